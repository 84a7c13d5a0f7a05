import { lookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface WebhookOptions {
  timeoutMs: number;
  /** Lets webhooks reach loopback, private, link-local and other non-public addresses (WEBHOOK_ALLOW_PRIVATE_NETWORKS). */
  allowPrivateNetworks: boolean;
}

/** A webhook whose host is, or resolves to, an address the platform does not call. */
export class WebhookBlockedError extends Error {
  constructor(readonly address: string) {
    super(`webhook address ${address} is not a public address; set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true to allow it`);
    this.name = 'WebhookBlockedError';
  }
}

/**
 * Public unicast only: ipaddr.js names every special-purpose range (loopback, private, link-local such as the cloud
 * metadata address 169.254.169.254, carrier-grade NAT, unique-local, multicast, reserved, and IPv6 forms that embed
 * an IPv4 address) and calls the rest 'unicast'. IPv4-mapped IPv6 addresses are judged as the IPv4 address.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * dns.lookup for the webhook's connection: the addresses checked are the ones connected to, so a name that resolves
 * to a public address when checked and a private one when connecting (DNS rebinding) is not possible.
 */
function publicLookup(hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '');
    const blocked = addresses.find((entry) => !isPublicAddress(entry.address));
    if (blocked) return callback(new WebhookBlockedError(blocked.address), '');
    if (options.all) return callback(null, addresses);
    const [first] = addresses;
    return callback(null, first!.address, first!.family);
  });
}

/**
 * POSTs a JSON body and resolves with the status code. Redirects are not followed (a 3xx is the answer), so a public
 * webhook cannot bounce the request to an internal address.
 */
export function postWebhook(target: string, body: string, options: WebhookOptions): Promise<number> {
  const url = new URL(target);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!options.allowPrivateNetworks && isIP(host) && !isPublicAddress(host)) return Promise.reject(new WebhookBlockedError(host));
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'tlm-alerts' },
        signal: AbortSignal.timeout(options.timeoutMs),
        ...(options.allowPrivateNetworks ? {} : { lookup: publicLookup as unknown as typeof lookup }),
      },
      (response) => {
        response.on('error', reject);
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.resume();
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
