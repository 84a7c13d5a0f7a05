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
    if (key === '$ip' || !(key in properties)) properties[key] = client[key]!;
  }
  return properties;
}
