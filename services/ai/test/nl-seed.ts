import { randomUUID } from 'node:crypto';
import { alertEventsTable, alertsTable, errorsTable, issuesTable, sessionsTable, spansTable, vitalsTable } from '@tlm/analytics-store';
import { eventually, type TestServer } from '@tlm/testkit';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** How long before `now` the i-th of a signal's rows happened: most within the hour, some hours and days before. */
function age(i: number, count: number): number {
  const share = i / count;
  if (share < 0.65) return (i % 50) * MINUTE + 30_000;
  if (share < 0.8) return 3 * HOUR + i * MINUTE;
  if (share < 0.9) return 30 * HOUR + i * MINUTE;
  return 50 * HOUR + i * MINUTE;
}

const ROUTES = ['/search', '/checkout', '/login', '/cart', '/health'];
const BASE_DURATION: Record<string, number> = { '/search': 300, '/checkout': 800, '/login': 120, '/cart': 200, '/health': 5 };
const SERVICES = ['api', 'web', 'worker'];
const REGIONS = ['us-east', 'eu-west', 'ap-south'];
const COUNTRIES = ['US', 'DE', 'FR', 'GB', 'DE', 'US', 'IN', 'US', 'DE', 'FR', 'US', 'BR'];
const PRODUCTS = ['basic', 'premium', 'enterprise', 'premium', 'basic'];
const PATHS = ['/home', '/pricing', '/docs', '/search', '/home'];

/**
 * A project as a new user's: logs of an HTTP service (service, route, duration_ms, status_code, region, user_id) and
 * product events (signup with plan and country, purchase with amount, country and product, pageview with path) sent
 * through the ingest API; errors, issues, spans, web vitals, sessions, alert rules and firings stored as rows.
 */
export async function seedProject(server: TestServer, projectId: string, secretKey: string, now: number): Promise<void> {
  const iso = (ms: number) => new Date(now - ms).toISOString();
  const logs = Array.from({ length: 80 }, (_, i) => {
    const route = ROUTES[i % ROUTES.length]!;
    const status = i % 10 === 3 || i % 10 === 6 ? 500 : i % 7 === 2 ? 404 : 200;
    const severity = i === 17 || i === 61 ? 'fatal' : status === 500 ? 'error' : status === 404 ? 'warn' : i % 11 === 5 ? 'debug' : 'info';
    const message = severity === 'fatal' ? 'out of memory' : status === 500 ? (route === '/checkout' ? 'payment declined' : 'request failed') : status === 404 ? 'not found' : 'request handled';
    return {
      severity,
      message,
      timestamp: iso(age(i, 80)),
      properties: {
        service: SERVICES[i % 3],
        route,
        duration_ms: BASE_DURATION[route]! + ((i * 37) % 100),
        status_code: status,
        region: REGIONS[Math.floor(i / 2) % 3],
        user_id: `u${i % 8}`,
      },
    };
  });
  const events = [
    ...Array.from({ length: 12 }, (_, i) => ({
      event: 'signup',
      distinct_id: `u${i + 1}`,
      timestamp: iso(age(i, 12)),
      properties: { country: COUNTRIES[i], plan: i % 3 === 0 ? 'pro' : 'free' },
    })),
    ...Array.from({ length: 15 }, (_, i) => ({
      event: 'purchase',
      distinct_id: `u${i % 9}`,
      timestamp: iso(age(i, 15)),
      properties: { amount: [19, 49, 99, 149, 29, 250][i % 6], country: COUNTRIES[(i + 3) % COUNTRIES.length], product: PRODUCTS[i % PRODUCTS.length] },
    })),
    ...Array.from({ length: 25 }, (_, i) => ({
      event: 'pageview',
      distinct_id: `u${i % 10}`,
      timestamp: iso(age(i, 25)),
      properties: { path: PATHS[i % PATHS.length], country: COUNTRIES[i % COUNTRIES.length] },
    })),
  ];
  for (const [path, batch] of [
    ['/v1/logs', logs],
    ['/v1/events', events],
  ] as const) {
    const reply = await server.api.post(path, { token: secretKey, body: { batch } });
    if (reply.status !== 202 || reply.body.rejected !== 0) throw new Error(`seeding ${path} failed: ${reply.status} ${reply.text}`);
  }

  // The schema document follows the stored rows: the translator reads event names and properties from it.
  await eventually(async () => {
    const schema = (await server.api.get('/v1/schema', { token: secretKey })).body;
    if (schema.event_names.length < 3 || schema.log_properties.length < 6 || schema.event_properties.length < 5) throw new Error('the schema document is not complete yet');
  });

  const stored = { project_id: projectId, received_at: now, retention_days: 3 };
  const analytics = server.standalone.analytics;
  const TYPES = ['TypeError', 'TypeError', 'ReferenceError', 'TypeError', 'ValueError', 'TimeoutError', 'TypeError', 'ReferenceError'];
  await analytics.insert(
    errorsTable,
    Array.from({ length: 40 }, (_, i) => ({
      ...stored,
      timestamp: now - age(i, 40),
      id: randomUUID(),
      issue_id: randomUUID(),
      fingerprint_hash: `f${i % 5}`,
      type: TYPES[i % TYPES.length]!,
      value: `${TYPES[i % TYPES.length]} number ${i}`,
      level: i % 9 === 4 ? 'fatal' : i % 13 === 6 ? 'warning' : 'error',
      release: i % 3 === 0 ? '1.2.0' : '1.3.0',
      environment: i % 4 === 1 ? 'staging' : 'production',
      platform: 'javascript',
      source: null,
      trace_id: null,
      span_id: null,
      user: { id: `u${i % 6}` },
      tags: { browser: ['Chrome', 'Firefox', 'Safari'][i % 3]! },
      extra: {},
      frames: null,
      breadcrumbs: [],
      stream_partition: 0,
      stream_offset: i,
      stack_id: null,
    })),
  );
  const issues: [string, string, string, number, number, number][] = [
    ['TypeError: Cannot read properties of undefined', 'unresolved', 'error', 120, 30, 2],
    ['ReferenceError: x is not defined', 'resolved', 'error', 45, 12, 5],
    ['ValueError: bad amount', 'unresolved', 'fatal', 300, 5, 1],
    ['TimeoutError: upstream timed out', 'regressed', 'error', 80, 40, 20],
    ['Deprecated API used', 'ignored', 'warning', 10, 2, 40],
    ['TypeError: x.map is not a function', 'unresolved', 'error', 60, 22, 0.2],
  ];
  await analytics.insert(
    issuesTable,
    issues.map(([title, status, level, eventCount, userCount, hoursAgo], i) => ({
      project_id: projectId,
      id: randomUUID(),
      short_id: i + 1,
      title,
      culprit: `app.js in handler${i}`,
      fingerprint: `f${i}`,
      status,
      level,
      event_count: eventCount,
      user_count: userCount,
      first_seen: now - 60 * HOUR,
      last_seen: now - hoursAgo * HOUR,
      release_first: '1.2.0',
      release_last: i % 2 === 0 ? '1.3.0' : '1.2.0',
      resolved_in_release: status === 'resolved' ? '1.3.0' : null,
      updated_at: now,
    })),
  );
  const SPANS: [string, string, string, number][] = [
    ['GET /search', 'http.server', 'frontend', 180],
    ['POST /checkout', 'http.server', 'checkout', 420],
    ['charge card', 'http.client', 'payments', 650],
    ['SELECT orders', 'db', 'checkout', 35],
  ];
  await analytics.insert(
    spansTable,
    Array.from({ length: 40 }, (_, i) => {
      const [name, op, service, base] = SPANS[i % SPANS.length]!;
      const duration = base + ((i * 53) % 120);
      const start = now - age(i, 40);
      return {
        ...stored,
        timestamp: start,
        id: randomUUID(),
        trace_id: (i % 10).toString(16).padStart(32, '0'),
        span_id: i.toString(16).padStart(16, '0'),
        parent_span_id: null,
        name,
        op,
        kind: 'server',
        status: name === 'charge card' && i % 3 === 0 ? 'error' : i % 11 === 7 ? 'error' : 'ok',
        duration_ms: duration,
        end_timestamp: start + duration,
        service,
        release: i % 2 === 0 ? 'shop@1.4.0' : 'shop@1.3.0',
        environment: i % 5 === 0 ? 'staging' : 'production',
        attributes: {},
        events: [],
      };
    }),
  );
  const VITALS: [string, number, string][] = [
    ['lcp', 2400, 'good'],
    ['inp', 180, 'good'],
    ['cls', 0.08, 'good'],
    ['fcp', 1600, 'good'],
    ['ttfb', 700, 'good'],
  ];
  await analytics.insert(
    vitalsTable,
    Array.from({ length: 45 }, (_, i) => {
      const [name, base] = VITALS[i % VITALS.length]!;
      const factor = 1 + ((i * 7) % 12) / 6;
      const rating = factor > 2.4 ? 'poor' : factor > 1.8 ? 'needs-improvement' : 'good';
      return {
        ...stored,
        timestamp: now - age(i, 45),
        id: randomUUID(),
        name,
        value: Math.round(base * factor * 100) / 100,
        route: ['/home', '/pricing', '/docs'][i % 3]!,
        rating,
        trace_id: null,
        release: 'shop@1.4.0',
        environment: 'production',
        properties: { $browser: i % 2 === 0 ? 'Chrome' : 'Safari' },
      };
    }),
  );
  const OUTCOMES: [string, string][] = [
    ['healthy', 'exited'],
    ['healthy', 'exited'],
    ['errored', 'exited'],
    ['crashed', 'crashed'],
    ['healthy', 'ok'],
    ['abnormal', 'abnormal'],
  ];
  await analytics.insert(
    sessionsTable,
    Array.from({ length: 30 }, (_, i) => {
      const [outcome, status] = OUTCOMES[i % OUTCOMES.length]!;
      const started = now - age(i, 30);
      const aggregated = i % 7 === 6;
      return {
        ...stored,
        id: randomUUID(),
        session_id: aggregated ? null : randomUUID(),
        distinct_id: aggregated ? null : `u${i % 7}`,
        status,
        outcome,
        errors: outcome === 'errored' ? 2 : 0,
        quantity: aggregated ? 5 : 1,
        started,
        timestamp: started + 60_000,
        duration_ms: 60_000 + i * 1_000,
        release: i % 3 === 0 ? 'shop@1.3.0' : 'shop@1.4.0',
        environment: i % 4 === 0 ? 'staging' : 'production',
        properties: {},
        updated_at: now,
      };
    }),
  );
  const RULES: [string, string, boolean][] = [
    ['Checkout errors', 'critical', true],
    ['Slow search', 'warning', true],
    ['Signup drop', 'info', false],
  ];
  const ruleIds = RULES.map(() => randomUUID());
  await analytics.insert(
    alertsTable,
    RULES.map(([name, severity, enabled], i) => ({
      project_id: projectId,
      id: ruleIds[i]!,
      name,
      metric: 'from:logs severity:error | count',
      threshold: 5 * (i + 1),
      comparator: 'gt',
      window_minutes: 5,
      severity,
      enabled,
      muted_until: null,
      created_at: now - (10 - i) * HOUR,
      deleted: false,
      updated_at: now,
    })),
  );
  await analytics.insert(
    alertEventsTable,
    [0, 0, 1, 0, 1, 0, 2].map((rule, i) => ({
      project_id: projectId,
      triggered_at: now - [5 * MINUTE, 20 * MINUTE, 2 * HOUR, 5 * HOUR, 26 * HOUR, 30 * HOUR, 49 * HOUR][i]!,
      id: randomUUID(),
      rule_id: ruleIds[rule]!,
      rule_name: RULES[rule]![0],
      value: 7 + i,
      threshold: 5 * (rule + 1),
      severity: RULES[rule]![1],
    })),
  );
}
