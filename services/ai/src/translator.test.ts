import { compileQuery, type SchemaDocument } from '@tlm/gql';
import { queryText } from './openai';
import { translate, type NlAnswer } from './translator';

const schema: SchemaDocument = {
  log_properties: [
    { key: 'route', type: 'string', examples: ['/checkout', '/cart'], volume: 10 },
    { key: 'duration_ms', type: 'number', examples: [12, 40], volume: 10 },
    { key: '$browser', type: 'string', examples: ['Chrome'], volume: 10 },
  ],
  event_properties: [{ key: 'plan', type: 'string', examples: ['pro', 'free'], volume: 4 }],
  event_names: [
    { name: 'signup', volume: 3 },
    { name: 'checkout_completed', volume: 2 },
  ],
};

/** A Friday: "today" is 2024-05-10 and "this week" started on Monday 2024-05-06. */
const now = new Date('2024-05-10T12:00:00Z');
const gqlOf = (answer: NlAnswer) => answer.gql ?? `(none: ${'reason' in answer ? answer.reason : ''})`;
const explorer = (prompt: string) => gqlOf(translate({ prompt, mode: 'explorer', schema, now }));
const alert = (prompt: string) => gqlOf(translate({ prompt, mode: 'alert', schema, now }));

describe('the built-in translator', () => {
  it("reads today, yesterday, this week and this month in the asker's time zone", () => {
    // 01:30 UTC on Saturday the 11th: still Friday the 10th in California, where the week began on Monday the 6th.
    const late = new Date('2024-05-11T01:30:00Z');
    const inZone = (prompt: string, timeZone?: string) => gqlOf(translate({ prompt, mode: 'explorer', schema, now: late, ...(timeZone ? { timeZone } : {}) }));
    expect(inZone('error logs today', 'America/Los_Angeles')).toBe('from:logs severity:error | since:2024-05-10T00:00-07:00');
    expect(inZone('error logs yesterday', 'America/Los_Angeles')).toBe('from:logs severity:error | since:2024-05-09T00:00-07:00 until:2024-05-10T00:00-07:00');
    expect(inZone('count of logs per route this week', 'America/Los_Angeles')).toBe('from:logs | count by route | since:2024-05-06T00:00-07:00');
    expect(inZone('count of logs per route this month', 'America/Los_Angeles')).toBe('from:logs | count by route | since:2024-05-01T00:00-07:00');
    // In UTC (the default, and a zone named so) it is Saturday the 11th, and the days stay dates.
    expect(inZone('error logs today')).toBe('from:logs severity:error | since:2024-05-11');
    expect(inZone('error logs today', 'UTC')).toBe('from:logs severity:error | since:2024-05-11');
    expect(inZone('count of logs per route this week', 'Etc/UTC')).toBe('from:logs | count by route | since:2024-05-06');
  });

  it.each([
    ['how many error logs in the last hour?', 'from:logs severity:error | count | last:1h'],
    ['show me fatal logs from the past 3 days', 'from:logs severity:fatal | last:3d'],
    ['error logs on /checkout today', 'from:logs severity:error route:/checkout | since:2024-05-10'],
    ['top 5 routes by error logs', 'from:logs severity:error | count by route | top 5 | last:24h'],
    ['count of logs per route this week', 'from:logs | count by route | since:2024-05-06'],
    ['average duration_ms of logs by route', 'from:logs | avg(duration_ms) by route | last:24h'],
    ['unique users who did signup in the last 30 days', 'from:events event_name:signup | count_distinct(distinct_id) | last:30d'],
    ['how many pro signups', 'from:events event_name:signup plan:pro | count | last:24h'],
    ['unresolved issues', 'from:issues status:unresolved'],
    ['p75 of lcp by route', 'from:vitals name:lcp | p75(value) by route | last:24h'],
    ['p95 latency of spans over time', 'from:spans | p95(duration_ms) by time(1h) | last:24h'],
    ['logs mentioning "payment failed"', 'from:logs "payment failed" | last:24h'],
    ['fatal crashes per release', 'from:errors level:fatal | count by release | last:24h'],
    ['crash-free sessions by outcome this week', 'from:sessions | sum(quantity) by outcome | since:2024-05-06'],
    ['how many crashed sessions per release', 'from:sessions outcome:crashed | sum(quantity) by release | last:24h'],
  ])('%s → %s', (prompt, gql) => {
    expect(explorer(prompt)).toBe(gql);
    expect(() => compileQuery(gql)).not.toThrow();
  });

  it('makes alert metrics: one aggregate and no time range', () => {
    expect(alert('more than 10 error logs in 5 minutes')).toBe('from:logs severity:error | count');
    expect(alert('too many fatal crashes')).toBe('from:errors level:fatal | count');
  });

  it.each([
    ['fatal crashes per release', 'from:errors level:fatal | count'],
    ['top 5 routes by error logs', 'from:logs severity:error | count'],
    ['average duration_ms of logs by route', 'from:logs | avg(duration_ms)'],
    ['p95 latency of spans over time', 'from:spans | p95(duration_ms)'],
  ])('makes a metric of one value in alert mode, without by or top: %s → %s', (prompt, gql) => {
    expect(alert(prompt)).toBe(gql);
    const { plan } = compileQuery(gql);
    expect(plan.aggregate?.groups).toEqual([]);
    expect(plan.since).toBeNull();
  });
});

describe('follow-ups in a conversation', () => {
  /** Each earlier prompt is a user turn answered by the query it translates to. */
  const conversation = (...prompts: string[]) => {
    const history = prompts.slice(0, -1).flatMap((prompt) => [
      { role: 'user' as const, content: prompt, queries: [] },
      { role: 'assistant' as const, content: 'reply', queries: [explorer(prompt)] },
    ]);
    return gqlOf(translate({ prompt: prompts.at(-1)!, mode: 'explorer', schema, history, now }));
  };

  it.each([
    [['how many error logs in the last hour?', 'and over the last 7 days?'], 'from:logs severity:error | count | last:7d'],
    [['how many error logs in the last hour?', 'what about warnings?'], 'from:logs severity:warn | count | last:1h'],
    [['how many error logs in the last hour?', 'and by route?'], 'from:logs severity:error | count by route | last:1h'],
    [['p95 latency of spans this week', 'and per release?'], 'from:spans | p95(duration_ms) by release | since:2024-05-06'],
    [['how many error logs in the last hour?', 'what about spans?'], 'from:spans | count | last:1h'],
    [['how many error logs in the last hour?', 'and by route?', 'only on /checkout'], 'from:logs severity:error route:/checkout | count by route | last:1h'],
    // A question naming its own source without a follow-up word starts afresh.
    [['how many error logs in the last hour?', 'unresolved issues'], 'from:issues status:unresolved'],
    // A question about what the project does not have is no follow-up: it is not the earlier one over a new range.
    [['how many error logs in the last hour?', 'how many refunds last week?'], '(none: nothing in this project is called "refunds": no source, field, event name or stored value matches)'],
    [['how many error logs in the last hour?', 'how many last week?'], 'from:logs severity:error | count | last:1w'],
  ])('%j → %s', (prompts, gql) => {
    expect(conversation(...prompts)).toBe(gql);
    if (!gql.startsWith('(none')) expect(() => compileQuery(gql)).not.toThrow();
  });

  it('refers to the last answered question: a turn whose answer ran no query is skipped', () => {
    const history = [
      { role: 'user' as const, content: 'how many error logs in the last hour?', queries: [] },
      { role: 'assistant' as const, content: 'reply', queries: ['from:logs severity:error | count | last:1h'] },
      { role: 'user' as const, content: 'gibberish', queries: [] },
      { role: 'assistant' as const, content: 'I could not turn that into a query.', queries: [] },
    ];
    expect(translate({ prompt: 'and over the last 3 days?', mode: 'explorer', schema, history, now })).toEqual({ gql: 'from:logs severity:error | count | last:3d' });
  });
});

describe('queryText', () => {
  it('takes the query out of a code fence or the first line of a model answer', () => {
    expect(queryText('```gql\nfrom:logs | count\n```\nThis counts logs.')).toBe('from:logs | count');
    expect(queryText('\n  from:events | count | last:1d\nexplanation')).toBe('from:events | count | last:1d');
  });
});

describe("the project's vocabulary", () => {
  const shop: SchemaDocument = {
    log_properties: [
      { key: 'route', type: 'string', examples: ['/search', '/checkout'], volume: 50 },
      { key: 'duration_ms', type: 'number', examples: [120], volume: 50 },
      { key: 'status_code', type: 'number', examples: [200, 500], volume: 50 },
      { key: 'user_id', type: 'string', examples: ['u1'], volume: 50 },
    ],
    event_properties: [
      { key: 'country', type: 'string', examples: ['US', 'DE', 'FR'], volume: 9 },
      { key: 'amount', type: 'number', examples: [19], volume: 5 },
      { key: 'product', type: 'string', examples: ['premium', 'basic'], volume: 5 },
    ],
    event_names: [
      { name: 'signup', volume: 5 },
      { name: 'purchase', volume: 5 },
    ],
  };
  const values = { errors: { type: ['TypeError'], environment: ['staging', 'production'] }, logs: { route: ['/search', '/checkout'] } };
  const ask = (prompt: string) => translate({ prompt, mode: 'explorer', schema: shop, values, now });

  it.each([
    // Stored values match whole words only: "us" in "users" and "fr" in "from" are not countries.
    ['unique users', 'from:events | count_distinct(distinct_id) | last:24h'],
    ['signups from Germany', 'from:events event_name:signup country:DE | last:24h'],
    ['purchases from the United States', 'from:events event_name:purchase country:US | last:24h'],
    // Plurals and verb forms find event names; a value implies its property and the source holding it.
    ['how many users signed up today?', 'from:events event_name:signup | count_distinct(distinct_id) | since:2024-05-10'],
    ['how many purchases per country', 'from:events event_name:purchase | count by country | last:24h'],
    ['premium purchases', 'from:events event_name:purchase product:premium | last:24h'],
    ['total purchase amount', 'from:events event_name:purchase | sum(amount) | last:24h'],
    ['top 2 countries by revenue', 'from:events | sum(amount) by country | top 2 | last:24h'],
    // Exception types and stored column values choose errors.
    ['how many TypeErrors', 'from:errors type:TypeError | count | last:24h'],
    ['errors in staging', 'from:errors environment:staging | last:24h'],
    // Synonyms of the duration field, status codes and superlatives.
    ['p95 latency per route', 'from:logs | p95(duration_ms) by route | last:24h'],
    ['slowest 2 routes', 'from:logs | avg(duration_ms) by route | top 2 | last:24h'],
    ['maximum duration for /search', 'from:logs route:/search | max(duration_ms) | last:24h'],
    ['how many requests returned status 500', 'from:logs status_code:500 | count | last:24h'],
    ['requests slower than 2 seconds', 'from:logs duration_ms > 2000 | last:24h'],
    ['top 2 issues by event count', 'from:issues | sort event_count desc | limit 2'],
  ])('%s → %s', (prompt, gql) => {
    expect(ask(prompt)).toEqual({ gql });
    expect(() => compileQuery(gql)).not.toThrow();
  });

  it('gives no query for a prompt naming nothing of the project, with the reason and questions it can answer', () => {
    expect(ask('how many refunds last week')).toEqual({
      gql: null,
      reason: 'nothing in this project is called "refunds": no source, field, event name or stored value matches',
      suggestions: ['how many error logs in the last hour?', 'how many signup events per day this week?', 'average duration_ms by route', 'unresolved issues'],
    });
    expect(ask('what is the weather in Paris')).toMatchObject({ gql: null, reason: expect.stringContaining('"weather"') });
  });

  it('answers small talk with no query, and the question after a greeting with its query', () => {
    expect(ask('hello, who are you?')).toMatchObject({ gql: null, smallTalk: true });
    expect(ask('thanks!')).toMatchObject({ gql: null, smallTalk: true });
    expect(ask('hi, how many signups today?')).toEqual({ gql: 'from:events event_name:signup | count | since:2024-05-10' });
  });

  it.each([
    ['how many errors today', 'from:errors | count | since:2024-05-10'],
    ['errors in staging', 'from:errors environment:staging | last:24h'],
    ['how many Errors', 'from:errors | count | last:24h'],
    ['how many errors at level error', 'from:errors level:error | count | last:24h'],
    // Nor does a stored `Error` make "errors" lean to the errors source: grouped by a field only logs hold, they are error logs.
    ['errors by route', 'from:logs severity:error | count by route | last:24h'],
    ['how many errors per route today', 'from:logs severity:error | count by route | since:2024-05-10'],
  ])('reads "errors" as the source, not as a stored level or exception type: %s → %s', (prompt, gql) => {
    const stored = { ...values, errors: { ...values.errors, type: ['TypeError', 'Error'], level: ['error', 'warning'] } };
    expect(translate({ prompt, mode: 'explorer', schema: shop, values: stored, now })).toEqual({ gql });
  });

  it('reads an exception type named as written', () => {
    const stored = { ...values, errors: { ...values.errors, type: ['TypeError', 'Error'] } };
    expect(translate({ prompt: 'errors of type Error', mode: 'explorer', schema: shop, values: stored, now })).toEqual({ gql: 'from:errors type:Error | last:24h' });
  });
});
