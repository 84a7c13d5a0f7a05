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
    super(`webhook address ${address} is not a public address; the server's operator can allow private addresses with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true`);
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

/** The receiver's answer: its status and the first RESPONSE_BODY_CHARS characters of its body. */
export interface ReceiverAnswer {
  status: number;
  body: string;
}

/** How much of a receiver's answer is kept with a delivery. */
export const RESPONSE_BODY_CHARS = 1_000;

/**
 * POSTs a JSON body with extra headers and resolves with the receiver's answer. Redirects are not followed (a 3xx is
 * the answer), so a public webhook cannot bounce the request to an internal address.
 */
export function postWebhook(target: string, body: string, options: WebhookOptions, headers: Record<string, string> = {}): Promise<ReceiverAnswer> {
  const url = new URL(target);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!options.allowPrivateNetworks && isIP(host) && !isPublicAddress(host)) return Promise.reject(new WebhookBlockedError(host));
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'tlm-alerts' },
        signal: AbortSignal.timeout(options.timeoutMs),
        ...(options.allowPrivateNetworks ? {} : { lookup: publicLookup as unknown as typeof lookup }),
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (text.length < RESPONSE_BODY_CHARS) text += chunk;
        });
        response.on('error', reject);
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text.slice(0, RESPONSE_BODY_CHARS) }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * Why the platform would never call `target`, or undefined: a host that is, or resolves to, a non-public address
 * while private networks are not allowed. A name that does not resolve now may later, so it is not refused here; its
 * deliveries record the error.
 */
export async function addressProblem(target: string, options: WebhookOptions): Promise<string | undefined> {
  if (options.allowPrivateNetworks) return undefined;
  const host = new URL(target).hostname.replace(/^\[(.*)\]$/, '$1');
  const addresses = isIP(host) ? [host] : await lookupAll(host);
  const blocked = addresses.find((address) => !isPublicAddress(address));
  return blocked === undefined ? undefined : new WebhookBlockedError(blocked).message;
}

function lookupAll(host: string): Promise<string[]> {
  return new Promise((resolve) => lookup(host, { all: true }, (error, addresses) => resolve(error ? [] : addresses.map((entry) => entry.address))));
}
