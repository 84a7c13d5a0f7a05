import { openUrl } from './openUrl';

describe('openUrl', () => {
  it('is localhost for a server on every interface, which the machine itself reaches there', () => {
    expect(openUrl('0.0.0.0', 8080)).toBe('http://localhost:8080');
    expect(openUrl('::', 8080)).toBe('http://localhost:8080');
  });

  it('is the interface itself when HOST names one, IPv6 in brackets', () => {
    expect(openUrl('127.0.0.1', 9000)).toBe('http://127.0.0.1:9000');
    expect(openUrl('::1', 9000)).toBe('http://[::1]:9000');
  });
});
