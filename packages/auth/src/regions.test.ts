import { parseRegionUrls } from './regions';

describe('parseRegionUrls', () => {
  it('reads region=URL pairs, spaces and an empty value allowed', () => {
    expect(parseRegionUrls(' eu=https://eu.example.com , ap=http://10.0.0.5:8080')).toEqual({
      eu: 'https://eu.example.com',
      ap: 'http://10.0.0.5:8080',
    });
    expect(parseRegionUrls('')).toEqual({});
  });

  it.each(['eu=foo:bar', 'eu=eu.example.com', 'eu=https://', 'mars=https://mars.example.com', 'eu', 'eu='])(
    'refuses %s at startup, naming REGION_URLS',
    (value) => {
      expect(() => parseRegionUrls(value)).toThrow(`REGION_URLS entry "${value}" must look like eu=https://eu.example.com`);
    },
  );
});
