import { parseRepairedJson, type JsonBudget } from '@tlm/core';
import { accept, reject, type ItemResult } from './result';

/** Header of one item of a Sentry envelope; fields beyond `type` and `length` depend on the type. */
export interface EnvelopeItemHeader {
  type: string;
  length?: number;
  [field: string]: unknown;
}

export interface EnvelopeItem {
  header: EnvelopeItemHeader;
  payload: Buffer;
}

export interface Envelope {
  /** event_id, dsn, sent_at, sdk…; `{}` when the SDK sent none. */
  header: Record<string, unknown>;
  items: EnvelopeItem[];
}

const NEWLINE = 0x0a;

/**
 * Parses Sentry's envelope format (https://develop.sentry.dev/sdk/envelopes/): a JSON header line, then per item a
 * JSON header line and a payload of exactly `length` bytes, or, without `length`, up to the next newline. Payloads
 * stay bytes: replay recordings and attachments are binary. A structural error rejects the whole envelope, and so
 * does a header line that would take the request past its `budget` (given when the envelope was inflated).
 */
export function parseEnvelope(body: Buffer, budget?: JsonBudget): ItemResult<Envelope> {
  let offset = 0;
  const line = (): Buffer => {
    const end = body.indexOf(NEWLINE, offset);
    const slice = body.subarray(offset, end === -1 ? body.length : end);
    offset = end === -1 ? body.length : end + 1;
    return slice;
  };
  const charged = (bytes: Buffer) => budget?.charge(bytes);
  const headerLine = line();
  const dense = charged(headerLine);
  if (dense) return reject(dense);
  const header = parseJsonObject(headerLine);
  if (!header) return reject('the envelope header is not a JSON object');
  const items: EnvelopeItem[] = [];
  while (offset < body.length) {
    const itemLine = line();
    if (itemLine.length === 0 || (itemLine.length === 1 && itemLine[0] === 0x0d)) continue;
    const denseItem = charged(itemLine);
    if (denseItem) return reject(denseItem);
    const itemHeader = parseJsonObject(itemLine);
    if (!itemHeader || typeof itemHeader['type'] !== 'string') {
      return reject(`item ${items.length + 1}: the item header is not a JSON object with a type`);
    }
    const length = itemHeader['length'];
    let payload: Buffer;
    if (length === undefined || length === null) {
      payload = line();
    } else {
      if (typeof length !== 'number' || !Number.isInteger(length) || length < 0) {
        return reject(`item ${items.length + 1}: length must be a non-negative integer`);
      }
      if (offset + length > body.length) {
        return reject(`item ${items.length + 1} (${itemHeader['type']}): length ${length} runs past the end of the envelope`);
      }
      payload = body.subarray(offset, offset + length);
      offset += length;
      if (body[offset] === NEWLINE) offset += 1;
    }
    items.push({ header: itemHeader as EnvelopeItemHeader, payload });
  }
  return accept({ header, items });
}

/** A JSON object from bytes, its strings repaired when the text escapes a lone surrogate (see core's jsonBody). */
function parseJsonObject(bytes: Buffer): Record<string, unknown> | undefined {
  try {
    const text = bytes.toString('utf8');
    const value = parseRepairedJson(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Parses an item payload that must be one JSON object. */
export function jsonPayload(item: EnvelopeItem): ItemResult<Record<string, unknown>> {
  const value = parseJsonObject(item.payload);
  return value ? accept(value) : reject(`${item.header.type} item: the payload is not a JSON object`);
}

/**
 * The key and project of a Sentry DSN (`https://<key>@<host>/<project>`), or undefined. The project part is the
 * numeric `dsn_id` of our projects.
 */
export function parseDsn(dsn: string): { key: string; dsnId: string } | undefined {
  try {
    const url = new URL(dsn);
    const dsnId = url.pathname.split('/').filter(Boolean).pop();
    if (!url.username || !dsnId) return undefined;
    return { key: decodeURIComponent(url.username), dsnId };
  } catch {
    return undefined;
  }
}

/** `sentry_key` of an `X-Sentry-Auth: Sentry sentry_key=…, sentry_version=7` header. */
export function sentryKeyOfAuthHeader(header: string | undefined): string | undefined {
  const match = /(?:^|[\s,])sentry_key\s*=\s*([^,\s]+)/.exec(header ?? '');
  return match?.[1];
}
