import { UAParser } from 'ua-parser-js';
import type { Properties } from './properties';

/**
 * Parses User-Agent strings into `$browser`, `$os` and `$device` properties. Traffic comes from few distinct
 * agents, so each string is parsed once and kept (least recently used out first).
 */
export class UserAgentCache {
  private readonly entries = new Map<string, Properties>();
  /** Number of actual parses, for tests and metrics. */
  parses = 0;

  constructor(private readonly capacity = 2_000) {}

  properties(userAgent: string): Properties {
    const cached = this.entries.get(userAgent);
    if (cached) {
      this.entries.delete(userAgent);
      this.entries.set(userAgent, cached);
      return cached;
    }
    const parsed = this.parse(userAgent);
    this.entries.set(userAgent, parsed);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    return parsed;
  }

  private parse(userAgent: string): Properties {
    this.parses += 1;
    const result = new UAParser(userAgent).getResult();
    const properties: Properties = {};
    if (result.browser.name) {
      properties['$browser'] = result.browser.name;
      if (result.browser.version) properties['$browser_version'] = result.browser.version;
      // ua-parser-js leaves the type empty for desktops; a recognised browser with no type is one.
      properties['$device'] = capitalize(result.device.type ?? 'desktop');
    } else if (result.device.type) {
      properties['$device'] = capitalize(result.device.type);
    }
    if (result.os.name) {
      properties['$os'] = result.os.name;
      if (result.os.version) properties['$os_version'] = result.os.version;
    }
    if (result.device.model) properties['$device_model'] = result.device.model;
    return properties;
  }
}

const capitalize = (value: string) => value.charAt(0).toUpperCase() + value.slice(1);

export const userAgents = new UserAgentCache();

/** Server-injected properties of one request: what its User-Agent says, and the client address. */
export function clientProperties(userAgent: string | undefined, ip: string | undefined): Properties {
  const properties: Properties = userAgent ? { ...userAgents.properties(userAgent) } : {};
  if (ip) properties['$ip'] = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  return properties;
}
