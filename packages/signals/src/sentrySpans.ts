import { SPAN_KINDS, type SpanKind } from './spans';
import { accept, reject, type ItemResult } from './result';
import { VITAL_NAMES } from './vitals';
import { isoTimeMs } from './time';

/**
 * Sentry's two span formats as span items: `transaction` events (https://develop.sentry.dev/sdk/data-model/event-payloads/transaction/)
 * and span v2 items (https://develop.sentry.dev/sdk/telemetry/spans/span-protocol/). Fields come out unchecked;
 * `toSpanRecord` and `toVitalRecord` check them one span or vital at a time, so one bad child span costs only itself.
 */

type Json = Record<string, unknown>;

/** Sentry times: float seconds since the epoch or RFC 3339 text; epoch milliseconds, or undefined. */
export function sentryTime(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value * 1_000 : undefined;
  return typeof value === 'string' ? isoTimeMs(value) : undefined;
}

/** Sentry's span statuses (ok, cancelled, internal_error, not_found…) reduced to ok or error, as Sentry itself does. */
export function sentryStatus(status: unknown): 'ok' | 'error' {
  return status === undefined || status === null || status === '' || status === 'ok' || status === 'cancelled' ? 'ok' : 'error';
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const object = (value: unknown): Json => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
const defined = (fields: Json): Json => Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));

/** `otel.kind` (SERVER, CLIENT…) that Sentry's OpenTelemetry-based SDKs put in span data. */
function kindOf(data: Json): SpanKind | undefined {
  const kind = text(data['otel.kind'])?.toLowerCase();
  return SPAN_KINDS.find((known) => known === kind);
}

/** What a transaction holds: its own span, its child spans, and web vitals from its measurements. */
export interface TransactionParts {
  root: Json;
  children: Json[];
  vitals: Json[];
}

/**
 * A transaction event as span items. The transaction is the root span (its name is the transaction name); children
 * inherit its trace id, service, release and environment. Tags join the attributes (span data wins on a clash).
 */
export function transactionParts(event: Json): ItemResult<TransactionParts> {
  const trace = object(object(event['contexts'])['trace']);
  if (text(trace['span_id']) === undefined) return reject('contexts.trace.span_id is required');
  const tags = object(event['tags']);
  const traceData = object(trace['data']);
  const traceId = text(trace['trace_id']);
  const release = text(event['release']);
  const environment = text(event['environment']);
  const service = text(traceData['service.name']) ?? text(tags['service']);
  const name = text(event['transaction']) ?? '';
  const root = defined({
    trace_id: traceId,
    span_id: trace['span_id'],
    parent_span_id: text(trace['parent_span_id']),
    name,
    op: text(trace['op']),
    kind: kindOf(traceData),
    status: sentryStatus(trace['status']),
    start_timestamp: sentryTime(event['start_timestamp']),
    end_timestamp: sentryTime(event['timestamp']),
    attributes: { ...tags, ...traceData },
    service,
    release,
    environment,
  });
  const spans = Array.isArray(event['spans']) ? (event['spans'] as unknown[]) : [];
  const children = spans.map((value) => {
    const span = object(value);
    const data = object(span['data']);
    return defined({
      trace_id: text(span['trace_id']) ?? traceId,
      span_id: span['span_id'],
      parent_span_id: text(span['parent_span_id']),
      name: text(span['description']) ?? text(span['op']) ?? '',
      op: text(span['op']),
      kind: kindOf(data),
      status: sentryStatus(span['status']),
      start_timestamp: sentryTime(span['start_timestamp']),
      end_timestamp: sentryTime(span['timestamp']),
      attributes: { ...object(span['tags']), ...data },
      service: text(data['service.name']) ?? service,
      release,
      environment,
    });
  });
  return accept({ root, children, vitals: measurementVitals(event, name, traceId, release, environment) });
}

/** The Core Web Vitals among a browser transaction's measurements, with the transaction name as their route. */
function measurementVitals(event: Json, route: string, traceId: string | undefined, release?: string, environment?: string): Json[] {
  const measurements = object(event['measurements']);
  const start = sentryTime(event['start_timestamp']);
  const vitals: Json[] = [];
  for (const name of VITAL_NAMES) {
    const measurement = object(measurements[name]);
    const value = measurement['value'];
    if (typeof value !== 'number') continue;
    vitals.push(
      defined({
        name,
        value: measurement['unit'] === 'second' ? value * 1_000 : value,
        route,
        timestamp: start === undefined || start > 8.64e15 ? undefined : new Date(Math.floor(start)).toISOString(),
        trace_id: traceId,
        release,
        environment,
      }),
    );
  }
  return vitals;
}

/** The typed attributes of span v2 (`{name: {type, value, unit?}}`) as plain values. */
function attributeValues(attributes: unknown): Json {
  const values: Json = {};
  for (const [name, attribute] of Object.entries(object(attributes))) {
    values[name] = attribute && typeof attribute === 'object' && 'value' in attribute ? (attribute as { value: unknown }).value : attribute;
  }
  return values;
}

/**
 * One span of a span v2 item: `sentry.op`, `sentry.release` and `sentry.environment` are read from its attributes.
 * `events` (`[{name, timestamp (seconds), attributes}]`, as OpenTelemetry span events) is this service's addition,
 * which its own client sends; Sentry's span v2 has none.
 */
export function spanV2Item(value: unknown): Json {
  const span = object(value);
  const attributes = attributeValues(span['attributes']);
  const events = Array.isArray(span['events'])
    ? span['events'].map((entry) => {
        const event = object(entry);
        return defined({ name: event['name'], timestamp: sentryTime(event['timestamp']), attributes: attributeValues(event['attributes']) });
      })
    : undefined;
  return defined({
    trace_id: span['trace_id'],
    span_id: span['span_id'],
    parent_span_id: text(span['parent_span_id']),
    name: span['name'],
    op: text(attributes['sentry.op']),
    kind: kindOf(attributes),
    status: sentryStatus(span['status']),
    start_timestamp: sentryTime(span['start_timestamp']),
    end_timestamp: sentryTime(span['end_timestamp']),
    attributes,
    service: text(attributes['service.name']),
    release: text(attributes['sentry.release']),
    environment: text(attributes['sentry.environment']),
    events,
  });
}

/** Attributes naming the page a browser span belongs to: the route template a router set first, then the path. */
const ROUTE_ATTRIBUTES = ['url.template', 'http.route', 'url.path'];

/** The page's path from a span's own attributes, or undefined when it names none. */
function pageRoute(attributes: Json): string | undefined {
  for (const name of ROUTE_ATTRIBUTES) {
    const route = text(attributes[name]);
    if (route !== undefined) return route;
  }
  const full = text(attributes['url.full']);
  if (full === undefined || !URL.canParse(full)) return undefined;
  return new URL(full).pathname;
}

/** Routes of pageload and navigation spans by span id, kept between items: a Map, or a bounded memory of one. */
export interface PageRoutes {
  get(spanId: string): string | undefined;
  set(spanId: string, route: string): unknown;
}

const WEB_VITAL_ATTRIBUTE = /^browser\.web_vital\.([a-z]+)\.value$/;

/**
 * The Core Web Vitals among span v2 items (`spanV2Item` output), as @sentry/browser streams them: TTFB and FCP as
 * `browser.web_vital.*.value` attributes of the pageload span, LCP, CLS and INP as `ui.webvital.*` spans of their own
 * (one attribute each). A vital's route is the page's path: the span's own `url.*` attributes, else those of its page
 * span (`sentry.pageload.span_id`, `sentry.segment.id`, its parent) in the same item or remembered in `pageRoutes`
 * from an earlier one (the SDK sends LCP, CLS and INP after the pageload span, in later envelopes), else the segment's
 * name. The same vital of one page counts once; given twice (attribute and span), the `ui.webvital.*` span wins.
 */
export function spanV2Vitals(spans: Json[], pageRoutes: PageRoutes = new Map()): Json[] {
  const routes = new Map<string, string>();
  for (const span of spans) {
    const route = pageRoute(object(span['attributes']));
    if (route === undefined || typeof span['span_id'] !== 'string') continue;
    routes.set(span['span_id'], route);
    if (span['op'] === 'pageload' || span['op'] === 'navigation') pageRoutes.set(span['span_id'], route);
  }
  const vitals = new Map<string, { vital: Json; fromVitalSpan: boolean }>();
  for (const span of spans) {
    const attributes = object(span['attributes']);
    const page = text(attributes['sentry.pageload.span_id']) ?? text(attributes['sentry.segment.id']) ?? text(span['span_id']);
    const route =
      pageRoute(attributes) ??
      (page === undefined ? undefined : (routes.get(page) ?? pageRoutes.get(page))) ??
      routes.get(text(span['parent_span_id']) ?? '') ??
      text(attributes['sentry.segment.name']) ??
      text(span['name']);
    const fromVitalSpan = text(span['op'])?.startsWith('ui.webvital.') ?? false;
    const start = span['start_timestamp'];
    for (const [attribute, value] of Object.entries(attributes)) {
      const name = WEB_VITAL_ATTRIBUTE.exec(attribute)?.[1];
      if (name === undefined || !(VITAL_NAMES as readonly string[]).includes(name) || typeof value !== 'number') continue;
      const key = `${String(span['trace_id'])}:${page}:${name}`;
      if (vitals.get(key)?.fromVitalSpan && !fromVitalSpan) continue;
      const vital = defined({
        name,
        value,
        route,
        timestamp: typeof start === 'number' && Math.abs(start) <= 8.64e15 ? new Date(Math.floor(start)).toISOString() : undefined,
        trace_id: text(span['trace_id']),
        release: span['release'],
        environment: span['environment'],
      });
      vitals.set(key, { vital, fromVitalSpan });
    }
  }
  return [...vitals.values()].map(({ vital }) => vital);
}

