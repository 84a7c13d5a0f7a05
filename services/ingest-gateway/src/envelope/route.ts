import {
  bearerCredential,
  regionRouting,
  requestKey,
  requireApiKey,
  requireScope,
  requireWithinRate,
  type KeyResolver,
  type RateLimiter,
  type Region,
  type RegionUrls,
} from '@tlm/auth';
import type { BlobStore } from '@tlm/blob-store';
import type { Bus, Topic } from '@tlm/bus';
import { byteLimitText, jsonBudget, metrics, newId, payloadTooLarge, unauthorized, validationError, type JsonBudget } from '@tlm/core';
import { RecordingBudget, isEventId, jsonPayload, parseDsn, parseEnvelope, sentryKeyOfAuthHeader, type Envelope, type ItemError } from '@tlm/signals';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { inflateSync } from 'node:zlib';
import { bodyOf } from '../chunkBody';
import { ingestCors } from '../cors';
import { ingestContext } from '../request';
import { envelopeBody } from './body';
import { DEFAULT_ITEM_LIMIT_BYTES, MAX_BLOB_ITEMS_PER_ENVELOPE, MAX_ENVELOPE_BYTES, type ItemOutcome, type RoutedRecord } from './items';
import { envelopeItemKind } from './registry';

export interface EnvelopeDeps {
  bus: Bus;
  keys: KeyResolver;
  limiter: RateLimiter;
  region: Region;
  regionUrls: RegionUrls;
  blobs: BlobStore;
}

/** Sentry SDKs back off on this header: all categories, organization scope, one second. */
const SENTRY_RATE_LIMIT_HEADERS = { 'X-Sentry-Rate-Limits': '1::organization' };

const rawEnvelope = envelopeBody(MAX_ENVELOPE_BYTES, 'parts');

/**
 * Parses the raw body once; a structural error, or more than MAX_BLOB_ITEMS_PER_ENVELOPE items for the blob store,
 * rejects the whole request with 400 VALIDATION_ERROR before any item is handled. An inflated envelope charges its
 * header lines and the payloads that will be parsed (not attachments, nor items of types nobody stores) to the
 * request's JSON budget first, and is refused the same way over it.
 */
const parsedEnvelope: RequestHandler = (req, res, next) => {
  const body = bodyOf(req);
  const budget = jsonBudget(req, body);
  const parsed = parseEnvelope(body, budget.encoded ? budget : undefined);
  if (!parsed.ok) throw validationError(`malformed envelope: ${parsed.reason}`);
  const blobItems = parsed.value.items.reduce((count, item) => count + (envelopeItemKind(item.header.type)?.blob ? 1 : 0), 0);
  if (blobItems > MAX_BLOB_ITEMS_PER_ENVELOPE) {
    throw validationError(
      `malformed envelope: ${blobItems} items stored as blobs (replay recordings, profile chunks, attachments), at most ${MAX_BLOB_ITEMS_PER_ENVELOPE}`,
    );
  }
  if (budget.encoded) {
    for (const item of parsed.value.items) {
      const kind = envelopeItemKind(item.header.type);
      if (!kind || kind.unparsed) continue;
      const dense = budget.charge(item.payload);
      if (dense) throw validationError(`malformed envelope: ${dense}`);
    }
  }
  res.locals['envelope'] = parsed.value;
  next();
};

const envelopeOf = (res: Response): Envelope => res.locals['envelope'] as Envelope;

/** Sentry's DSN grammar puts a number in `/api/:dsn/…`; other /api paths belong to the dashboard. */
const numericDsn: RequestHandler = (req, _res, next) => next(/^\d+$/.test(String(req.params['dsn'])) ? undefined : 'route');

/**
 * The key of a Sentry-style request before its body is read: X-Sentry-Auth, an `Authorization: Sentry sentry_key=…`
 * header (Sentry accepts both), then `?sentry_key=`.
 */
function sentryCredential(req: Request): string | undefined {
  const query = req.query['sentry_key'];
  const authorization = req.get('authorization');
  return (
    sentryKeyOfAuthHeader(req.get('x-sentry-auth')) ??
    (authorization && /^sentry\s/i.test(authorization) ? sentryKeyOfAuthHeader(authorization) : undefined) ??
    (typeof query === 'string' ? query : undefined)
  );
}

/**
 * Sentry's legacy store endpoint takes one event as its JSON body (older SDKs, raven), at most an event item's 1 MiB:
 * it is read as an envelope of that one `event` item, under the event's own event_id. Its key comes from the headers
 * or the query (a store body names no DSN), so it is checked before the body is read.
 */
const rawStoreBody = envelopeBody(DEFAULT_ITEM_LIMIT_BYTES, 'body');
const noEnvelopeYet: RequestHandler = (_req, res, next) => {
  res.locals['envelope'] = { header: {}, items: [] } satisfies Envelope;
  next();
};
/** A store body in base64 text: nothing but base64 characters, with padding and a trailing newline at most. */
const BASE64_BODY = /^[A-Za-z0-9+/]+={0,2}\s*$/;

/**
 * The JSON bytes of a store body, decoded as Relay's store endpoint decodes it: legacy clients (raven-node,
 * raven-ruby, raven-php) send base64 text of zlib-deflated JSON, or of JSON, with no Content-Encoding. Bodies that
 * are not base64 (JSON, or what express inflated from a Content-Encoding) are taken as they are. What zlib inflates
 * is charged to the request's JSON `budget`.
 */
function storeJson(body: Buffer, budget: JsonBudget): Buffer {
  // JSON opens with `{` (or whitespace), which base64 never does: such bodies are not copied into text.
  if (!/[A-Za-z0-9+/]/.test(String.fromCharCode(body[0]!))) return body;
  const text = body.toString('latin1');
  if (!BASE64_BODY.test(text)) return body;
  const decoded = Buffer.from(text, 'base64');
  if (decoded[0] === 0x7b) return decoded;
  let inflated: Buffer;
  try {
    inflated = inflateSync(decoded, { maxOutputLength: DEFAULT_ITEM_LIMIT_BYTES });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw payloadTooLarge(`request body exceeds the ${byteLimitText(DEFAULT_ITEM_LIMIT_BYTES)} limit`);
    }
    throw validationError('malformed event: the body is base64 but neither JSON nor zlib-deflated JSON');
  }
  const dense = budget.charge(inflated);
  if (dense) throw validationError(`malformed event: ${dense}`);
  return inflated;
}

const storeBody: RequestHandler = (req, res, next) => {
  const body = bodyOf(req);
  if (body.length === 0) throw validationError('malformed event: the body is empty');
  const payload = storeJson(body, jsonBudget(req, body));
  const eventId = jsonPayload({ header: { type: 'event' }, payload });
  if (!eventId.ok) throw validationError('malformed event: the body is not a JSON object');
  const id = eventId.value['event_id'];
  const envelope: Envelope = { header: isEventId(id) ? { event_id: id } : {}, items: [{ header: { type: 'event' }, payload }] };
  res.locals['envelope'] = envelope;
  next();
};

/**
 * Runs each item through its kind's handler, publishes the records per topic and answers once the bus holds them:
 * 200 {id, accepted, rejected, skipped, errors: [{index, message}]} (the reasons of the rejected items). Skipped items
 * (unknown types) are also counted as rejected.
 */
function handleEnvelope(bus: Bus, blobs: BlobStore): RequestHandler {
  return async (req, res) => {
    const envelope = envelopeOf(res);
    const key = requestKey(res);
    const eventItems = envelope.items.reduce((count, item) => count + (item.header.type === 'event' ? 1 : 0), 0);
    const recordings = new RecordingBudget(jsonBudget(req, bodyOf(req)));
    const context = { ingest: ingestContext(req, key), key, envelope: envelope.header, eventItems, userAgent: req.get('user-agent'), blobs, recordings };
    let accepted = 0;
    let rejected = 0;
    let skipped = 0;
    const routed: RoutedRecord[] = [];
    const errors: ItemError[] = [];
    // Counted per (type, outcome) and reported once per envelope: an envelope of a hundred events is one or two series.
    const outcomes = new Map<string, { type: string; outcome: string; items: number }>();
    for (const [index, item] of envelope.items.entries()) {
      const kind = envelopeItemKind(item.header.type);
      let outcome: ItemOutcome | Promise<ItemOutcome> = !kind
        ? { skipped: `unknown item type ${item.header.type}` }
        : item.payload.length > kind.limitBytes
          ? { rejected: `${item.header.type} item exceeds ${kind.limitBytes} bytes` }
          : kind.handle(item, context);
      // Only items whose bodies go to the blob store wait; the others take no turn of the event loop each.
      if (outcome instanceof Promise) outcome = await outcome;
      const result = 'routed' in outcome ? 'accepted' : 'rejected' in outcome ? 'rejected' : 'skipped';
      const type = kind ? item.header.type : 'unknown';
      const series = `${type}\u0000${result}`;
      const counted = outcomes.get(series);
      if (counted) counted.items += 1;
      else outcomes.set(series, { type, outcome: result, items: 1 });
      if ('routed' in outcome) {
        accepted += 1;
        for (const record of outcome.routed) routed.push(record);
      } else if ('rejected' in outcome) {
        rejected += 1;
        errors.push({ index, message: outcome.rejected });
      } else {
        skipped += 1;
      }
    }
    for (const { type, outcome, items } of outcomes.values()) {
      metrics.envelopeItems.inc({ type, outcome }, items);
      // An `event` item is one error: counted here once per envelope, so the error path does no work per item for it.
      if (type === 'event') metrics.ingestItems.inc({ signal: 'errors', outcome }, items);
    }
    const byTopic = new Map<Topic, RoutedRecord['record'][]>();
    for (const { topic, record } of routed) {
      const records = byTopic.get(topic);
      if (records) records.push(record);
      else byTopic.set(topic, [record]);
    }
    await Promise.all(
      [...byTopic].map(([topic, records]) => bus.publish(topic, records.map((record) => ({ key: record.projectId, value: record })))),
    );
    // The header's event_id when it is one (32 hex digits or a UUID), as the events of the envelope are stored under it.
    const id = isEventId(envelope.header['event_id']) ? envelope.header['event_id'] : newId().replace(/-/g, '');
    res.json({ id, accepted, rejected: rejected + skipped, skipped, errors });
  };
}

/**
 * The Sentry route authenticates from X-Sentry-Auth, `?sentry_key=` or the envelope header's `dsn`, and the DSN's
 * project (`/api/<dsn_id>/`) must be the key's project.
 */
function sentryAuth(keys: KeyResolver): RequestHandler {
  return async (req, res, next) => {
    const dsnId = String(req.params['dsn']);
    const fromHeader = parseDsn(String(envelopeOf(res).header['dsn'] ?? ''));
    const raw = sentryCredential(req) ?? fromHeader?.key;
    if (!raw) throw unauthorized('missing key: send X-Sentry-Auth, ?sentry_key= or a dsn in the envelope header');
    const key = await keys.resolve(raw);
    if (!key) throw unauthorized('invalid, revoked or deleted key');
    if (String(key.dsnId) !== dsnId) throw unauthorized(`the key does not belong to the project of DSN ${dsnId}`);
    res.locals['apiKey'] = key;
    next();
  };
}

export function envelopeRoutes(deps: EnvelopeDeps): Router {
  const router = Router();
  const afterKey = [requireWithinRate(deps.limiter, SENTRY_RATE_LIMIT_HEADERS), requireScope('ingest:write')];

  router.options(['/v1/envelope', '/api/:dsn/envelope', '/api/:dsn/store'], ingestCors);
  router.post(
    '/v1/envelope',
    ingestCors,
    regionRouting(deps.region, deps.regionUrls),
    requireApiKey(deps.keys),
    ...afterKey,
    rawEnvelope,
    parsedEnvelope,
    handleEnvelope(deps.bus, deps.blobs),
  );
  router.post(
    '/api/:dsn/envelope',
    numericDsn,
    ingestCors,
    regionRouting(deps.region, deps.regionUrls, (req) => sentryCredential(req) ?? bearerCredential(req.headers.authorization)),
    rawEnvelope,
    parsedEnvelope,
    sentryAuth(deps.keys),
    ...afterKey,
    handleEnvelope(deps.bus, deps.blobs),
  );
  router.post(
    '/api/:dsn/store',
    numericDsn,
    ingestCors,
    regionRouting(deps.region, deps.regionUrls, (req) => sentryCredential(req) ?? bearerCredential(req.headers.authorization)),
    noEnvelopeYet,
    sentryAuth(deps.keys),
    ...afterKey,
    rawStoreBody,
    storeBody,
    handleEnvelope(deps.bus, deps.blobs),
  );
  return router;
}
