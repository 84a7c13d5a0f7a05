import { gunzipSync } from 'node:zlib';
import { parseApiKey, requestKey, requireScope, requireWithinRate, type KeyResolver, type RateLimiter, type Region, type RegionUrls } from '@tlm/auth';
import { Topics, type Bus } from '@tlm/bus';
import {
  byteLimitText,
  jsonBudget,
  parseRepairedJson,
  payloadTooLarge,
  rawBody,
  regionUnreachable,
  unauthorized,
  validationError,
  wrongRegion,
} from '@tlm/core';
import { MAX_BODY_BYTES, isoTime, isoTimeMs, processBatch, toEventRecord, type ItemResult, type EventRecord, type IngestContext } from '@tlm/signals';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { bodyOf } from './chunkBody';
import { ingestCors } from './cors';
import { ingestContext, publishOutcome, withinBatchLimit, withinItemSize } from './request';

/**
 * PostHog-compatible capture (DECISIONS.md): `POST /batch/`, `/e/`, `/i/v0/e/` and `/capture/` with the project key
 * in the body, so unmodified PostHog SDKs send analytics events. posthog-node sends `{api_key, batch: [...]}` to
 * `/batch/` (gzip as `Content-Encoding`); posthog-js sends arrays of events carrying `properties.token` to `/e/`,
 * gzipped with `?compression=gzip-js` or base64 in a `data=` form field; the HTTP API takes single events.
 */
export const POSTHOG_PATHS = ['/batch', '/e', '/i/v0/e', '/capture'];

export interface PosthogDeps {
  bus: Bus;
  keys: KeyResolver;
  limiter: RateLimiter;
  region: Region;
  regionUrls: RegionUrls;
}

type Json = Record<string, unknown>;

interface PosthogRequest {
  key: string | undefined;
  events: unknown[];
  /** The body's `sent_at`: when the SDK sent the batch by its own clock. */
  sentAt: string | undefined;
}

/** DECISIONS.md: ids are UUIDs v4 or v7; an SDK uuid of another kind leaves the row its own id. */
const V4_OR_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-[47][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * The bytes after the encodings PostHog clients use on top of HTTP's own (which express has already undone); what
 * `gzip-js` inflates is charged to the request's JSON budget, with what its Content-Encoding inflated.
 */
function payloadText(req: Request, body: Buffer): string {
  const compression = req.query['compression'];
  if (compression === 'gzip-js' || (body[0] === 0x1f && body[1] === 0x8b)) {
    let inflated: Buffer;
    try {
      inflated = gunzipSync(body, { maxOutputLength: MAX_BODY_BYTES });
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw payloadTooLarge(`request body exceeds the ${byteLimitText(MAX_BODY_BYTES)} limit`);
      throw validationError('the body is not valid gzip');
    }
    const dense = jsonBudget(req, body).charge(inflated);
    if (dense) throw validationError(dense);
    return inflated.toString('utf8');
  }
  const raw = body.toString('utf8');
  if (req.is('application/x-www-form-urlencoded')) {
    const data = new URLSearchParams(raw).get('data');
    if (data === null) throw validationError('a form body must carry the events in its "data" field');
    return compression === 'base64' || !/^\s*[[{]/.test(data) ? Buffer.from(data, 'base64').toString('utf8') : data;
  }
  return raw;
}

/** The events of a capture body and the key it names: `api_key` or `token` on the body, else on the first event. */
export function posthogRequest(payload: unknown): PosthogRequest {
  let events: unknown[];
  let key: string | undefined;
  if (Array.isArray(payload)) events = payload;
  else if (isObject(payload) && Array.isArray(payload['batch'])) events = payload['batch'];
  else if (isObject(payload) && payload['event'] !== undefined) events = [payload];
  else throw validationError('request body must be a PostHog event, an array of events, or an object with a "batch" array');
  if (isObject(payload)) key = text(payload['api_key']) ?? text(payload['token']);
  for (const event of events) {
    if (key) break;
    if (!isObject(event)) continue;
    key = text(event['api_key']) ?? text(event['token']) ?? (isObject(event['properties']) ? text(event['properties']['token']) : undefined);
  }
  return { key, events: withinBatchLimit(events), sentAt: isObject(payload) ? text(payload['sent_at']) : undefined };
}

/**
 * A PostHog event as an event of `POST /v1/events`: `distinct_id` from the event or its properties, `$set` and
 * `$set_once` kept as properties, the project token dropped, and the SDK's `uuid` kept as the row id, so a retried
 * batch lands on the same rows.
 */
export function toPosthogEventRecord(input: unknown, context: IngestContext, sentAt?: string): ItemResult<EventRecord> {
  if (!isObject(input)) return toEventRecord(input, context);
  const { token: _token, ...properties } = isObject(input['properties']) ? input['properties'] : {};
  for (const field of ['$set', '$set_once'] as const) if (input[field] !== undefined) properties[field] = input[field];
  const distinctId = input['distinct_id'] ?? input['$distinct_id'] ?? properties['distinct_id'];
  // posthog-js batches send `offset` (milliseconds before the request) instead of a timestamp.
  const offset = input['offset'];
  const timestamp =
    skewCorrected(input['timestamp'], sentAt, context.receivedAt) ??
    input['timestamp'] ??
    (typeof offset === 'number' && offset >= 0 && offset <= context.receivedAt ? new Date(context.receivedAt - offset).toISOString() : undefined);
  const result = toEventRecord(
    {
      event: input['event'],
      ...(distinctId === undefined ? {} : { distinct_id: distinctId }),
      properties,
      ...(timestamp === undefined || timestamp === null ? {} : { timestamp }),
    },
    context,
  );
  const uuid = input['uuid'];
  if (result.ok && typeof uuid === 'string' && V4_OR_V7.test(uuid)) result.value.id = uuid.toLowerCase();
  return result;
}

/**
 * An event's time moved by the SDK's clock skew, as PostHog does: with both `timestamp` and the batch's `sent_at`,
 * the time is shifted by the difference between the receive time and `sent_at`. Undefined when either is missing or
 * not an ISO 8601 time (the event's own time is then checked as usual).
 */
function skewCorrected(timestamp: unknown, sentAt: string | undefined, receivedAt: number): string | undefined {
  const at = typeof timestamp === 'string' ? isoTimeMs(timestamp) : undefined;
  const sent = sentAt === undefined ? undefined : isoTimeMs(sentAt);
  return at === undefined || sent === undefined ? undefined : isoTime(at + (receivedAt - sent));
}

/** How long another region may take to answer a relayed capture. */
const RELAY_TIMEOUT_MS = 30_000;

export const posthogBody: RequestHandler = rawBody(MAX_BODY_BYTES);

/** The body's JSON after PostHog's encodings, and its text (charged to the item sizes); lone surrogates and NUL repaired. */
export function posthogPayload(req: Request): { payload: unknown; text: string } {
  const text = payloadText(req, bodyOf(req));
  try {
    // As jsonBody does for every other JSON door: lone surrogates and NUL become U+FFFD.
    return { payload: parseRepairedJson(text), text };
  } catch (error) {
    if (error instanceof SyntaxError) throw validationError('request body is not valid JSON');
    throw error;
  }
}

/**
 * Resolves the project key a PostHog SDK named (in the body or the path) into `res.locals.apiKey`. A key of another
 * region is relayed there as received and answered from it: then this answers false and the request is done.
 */
export async function resolvePosthogKey(deps: PosthogDeps, req: Request, res: Response, key: string): Promise<boolean> {
  const region = parseApiKey(key)?.region;
  if (region && region !== deps.region) {
    const target = deps.regionUrls[region];
    if (!target) throw wrongRegion(region);
    await relay(region, `${target}${req.originalUrl}`, req, bodyOf(req), res);
    return false;
  }
  const resolved = await deps.keys.resolve(key);
  if (!resolved) throw unauthorized('invalid, revoked or deleted key');
  res.locals['apiKey'] = resolved;
  return true;
}

/** Decodes the body and resolves its key; a key of another region is relayed there with the body as received. */
function posthogAuth(deps: PosthogDeps): RequestHandler {
  return async (req, res, next) => {
    const { payload, text } = posthogPayload(req);
    const parsed = posthogRequest(payload);
    if (!parsed.key) throw unauthorized('missing key: send the project key as "api_key" in the body (or "token" on the events)');
    if (!(await resolvePosthogKey(deps, req, res, parsed.key))) return;
    res.locals['posthogEvents'] = parsed.events;
    res.locals['posthogSentAt'] = parsed.sentAt;
    res.locals['posthogBytes'] = Buffer.byteLength(text);
    next();
  };
}

/** Sends the request on as received (the relay of DECISIONS.md "Regions") and answers with the other region's answer. */
async function relay(region: string, url: string, req: Request, body: Buffer, res: Response): Promise<void> {
  const headers: Record<string, string> = {};
  for (const name of ['content-type', 'user-agent']) {
    const value = req.get(name);
    if (value) headers[name] = value;
  }
  // rawBody has already inflated a Content-Encoding; the body goes on inflated.
  headers['x-forwarded-for'] = [req.get('x-forwarded-for'), req.socket.remoteAddress].filter(Boolean).join(', ');
  const withBody = req.method !== 'GET' && req.method !== 'HEAD';
  let answer: globalThis.Response;
  try {
    answer = await fetch(url, { method: req.method, headers, ...(withBody ? { body } : {}), signal: AbortSignal.timeout(RELAY_TIMEOUT_MS) });
  } catch {
    throw regionUnreachable(region);
  }
  res.status(answer.status).type(answer.headers.get('content-type') ?? 'application/json').send(Buffer.from(await answer.arrayBuffer()));
}

function capture(bus: Bus): RequestHandler {
  return async (req, res) => {
    const events = res.locals['posthogEvents'] as unknown[];
    const context = ingestContext(req, requestKey(res));
    const sentAt = res.locals['posthogSentAt'] as string | undefined;
    const outcome = processBatch(events, withinItemSize(res.locals['posthogBytes'] as number, (event) => toPosthogEventRecord(event, context, sentAt)));
    await publishOutcome(bus, 'events', Topics.events, outcome);
    // PostHog answers 200 {"status": 1}; its SDKs retry anything else. Our counts ride along.
    res.status(200).json({ status: 1, accepted: outcome.records.length, rejected: outcome.errors.length, errors: outcome.errors });
  };
}

export function posthogRoutes(deps: PosthogDeps): Router {
  const router = Router();
  router.options(POSTHOG_PATHS, ingestCors);
  router.post(POSTHOG_PATHS, ingestCors, posthogBody, posthogAuth(deps), requireWithinRate(deps.limiter), requireScope('ingest:write'), capture(deps.bus));
  return router;
}
