import { UserAgentCache, clientProperties, userAgents } from './client';
import { withClientProperties } from './context';

const CHROME_ON_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const SAFARI_ON_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1';
const FIREFOX_ON_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0';

describe('UserAgentCache', () => {
  it('describes a desktop browser', () => {
    expect(new UserAgentCache().properties(CHROME_ON_MAC)).toEqual({
      $browser: 'Chrome',
      $browser_version: '120.0.0.0',
      $device: 'Desktop',
      $os: 'Mac OS',
      $os_version: '10.15.7',
      $device_model: 'Macintosh',
    });
    expect(new UserAgentCache().properties(FIREFOX_ON_WINDOWS)).toEqual({
      $browser: 'Firefox',
      $browser_version: '121.0',
      $device: 'Desktop',
      $os: 'Windows',
      $os_version: '10',
    });
  });

  it('describes a phone browser', () => {
    expect(new UserAgentCache().properties(SAFARI_ON_IPHONE)).toEqual({
      $browser: 'Mobile Safari',
      $browser_version: '17.2',
      $device: 'Mobile',
      $os: 'iOS',
      $os_version: '17.2',
      $device_model: 'iPhone',
    });
  });

  it('adds nothing for an agent it does not recognise (server SDKs, curl)', () => {
    expect(new UserAgentCache().properties('curl/8.5.0')).toEqual({});
    expect(new UserAgentCache().properties('')).toEqual({});
  });

  it('parses one agent string once, however often it is asked', () => {
    const cache = new UserAgentCache();
    for (let request = 0; request < 50; request += 1) cache.properties(CHROME_ON_MAC);
    expect(cache.parses).toBe(1);
    cache.properties(SAFARI_ON_IPHONE);
    cache.properties(CHROME_ON_MAC);
    expect(cache.parses).toBe(2);
  });

  it('drops the least recently used agent when full', () => {
    const cache = new UserAgentCache(2);
    cache.properties(CHROME_ON_MAC);
    cache.properties(SAFARI_ON_IPHONE);
    cache.properties(CHROME_ON_MAC);
    cache.properties(FIREFOX_ON_WINDOWS);
    expect(cache.parses).toBe(3);
    cache.properties(CHROME_ON_MAC);
    expect(cache.parses).toBe(3);
    cache.properties(SAFARI_ON_IPHONE);
    expect(cache.parses).toBe(4);
  });
});

describe('clientProperties', () => {
  it('combines the agent description with the client address', () => {
    expect(clientProperties(FIREFOX_ON_WINDOWS, '203.0.113.7')).toEqual({
      $browser: 'Firefox',
      $browser_version: '121.0',
      $device: 'Desktop',
      $os: 'Windows',
      $os_version: '10',
      $ip: '203.0.113.7',
    });
  });

  it('strips the ::ffff: prefix of an IPv4 address seen on an IPv6 socket', () => {
    expect(clientProperties(undefined, '::ffff:198.51.100.23')).toEqual({ $ip: '198.51.100.23' });
  });

  it('keeps a real IPv6 address as it is', () => {
    expect(clientProperties(undefined, '2001:db8::1')).toEqual({ $ip: '2001:db8::1' });
    expect(clientProperties(undefined, '::1')).toEqual({ $ip: '::1' });
  });

  it('adds nothing without an agent or an address', () => {
    expect(clientProperties(undefined, undefined)).toEqual({});
  });

  it('returns a copy, so changing one record never changes the cached description', () => {
    const first = clientProperties(CHROME_ON_MAC, '203.0.113.7');
    first['$browser'] = 'changed';
    expect(clientProperties(CHROME_ON_MAC, undefined)['$browser']).toBe('Chrome');
    expect(userAgents.properties(CHROME_ON_MAC)).not.toHaveProperty('$ip');
  });
});

describe('withClientProperties', () => {
  it("keeps the item's own descriptive fields and always takes $ip from the connection", () => {
    const merged = withClientProperties({ $os: 'Linux', $ip: '10.0.0.1', plan: 'pro' }, { $os: 'Mac OS', $browser: 'Chrome', $ip: '203.0.113.7' });
    expect(merged).toEqual({ $os: 'Linux', $browser: 'Chrome', $ip: '203.0.113.7', plan: 'pro' });
  });
});
