import type { Properties } from './properties';

/** What the gateway knows about a request that every record built from it carries. */
export interface IngestContext {
  projectId: string;
  /** The organization plan's retention, stamped on rows so the analytics store can expire them. */
  retentionDays: number;
  /** Server receive time, epoch milliseconds; the default item time. */
  receivedAt: number;
  /** `$browser`, `$os`, `$device`, `$ip` and friends, from the request. */
  client: Properties;
  /** Trace id of a `traceparent` header, given to items that carry none. */
  traceId?: string;
}

/**
 * Merges an item's own properties with the server-injected ones. The item's values win for descriptive fields
 * (server SDKs know their own OS better than their User-Agent does); `$ip` always comes from the connection.
 */
export function withClientProperties(properties: Properties, client: Properties): Properties {
  // for…in walks V8's cached key list of the shared client object; Object.entries would build arrays per item.
  for (const key in client) {
    if (key === '$ip') properties[key] = client[key]!;
    else if (!(key in properties) && describesStoredName(key, properties, client)) properties[key] = client[key]!;
  }
  return properties;
}

/** The User-Agent's version or model of a browser, OS or device, by the name it belongs to. */
const DESCRIBED_NAME: Record<string, string> = { $browser_version: '$browser', $os_version: '$os', $device_model: '$device' };

/**
 * Whether the User-Agent's `$os_version` (`$browser_version`, `$device_model`) describes the `$os` (`$browser`,
 * `$device`) stored: not when the item named its own, or a Linux row would carry the version of the iOS that sent it.
 * The client's keys come in order, so a name taken from the User-Agent is already in `properties` here.
 */
function describesStoredName(key: string, properties: Properties, client: Properties): boolean {
  const name = DESCRIBED_NAME[key];
  return name === undefined || properties[name] === client[name];
}
