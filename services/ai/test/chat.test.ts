import { migrate, readMigrations, readUsage, recordUsage } from '@tlm/metadata-store';
import { createKey, createProject, eventually, gqlRows, serverWithProject, signup, type Reply } from '@tlm/testkit';

/** The chat's answers (help, numbers with their queries, follow-ups, issues and releases) and its token billing. */
const fixture = serverWithProject();
let chatKey: string;

const chat = (message: string, sessionId?: string, token = chatKey) =>
  fixture.server.api.post('/v1/ai/chat', { token, body: { message, ...(sessionId ? { session_id: sessionId } : {}) } });

/** The stream's events, in order. */
async function stream(message: string, token = chatKey): Promise<{ event: string; data: any }[]> {
  const reply = await fixture.server.api.post('/v1/ai/chat/stream', { token, body: { message } });
  expect(reply.status).toBe(200);
  return reply.text
    .trim()
    .split('\n\n')
    .map((block) => ({ event: /^event: (.+)$/m.exec(block)![1]!, data: JSON.parse(/^data: (.+)$/m.exec(block)![1]!) }));
}

const streamedText = (events: { event: string; data: any }[]) => events.filter((event) => event.event === 'delta').map((event) => event.data.text).join('');

async function sendError(input: { type: string; value: string; release: string; function: string; breadcrumbs?: { category: string; message: string }[] }) {
  const event = {
    release: input.release,
    environment: 'production',
    exception: { values: [{ type: input.type, value: input.value, stacktrace: { frames: [{ function: 'main', filename: 'src/server.ts', in_app: true }, { function: input.function, filename: 'src/checkout.ts', lineno: 42, in_app: true }, { function: 'emit', filename: 'node:events', in_app: false }] } }] },
    ...(input.breadcrumbs ? { breadcrumbs: { values: input.breadcrumbs } } : {}),
  };
  const reply = await fixture.server.api.post(`/api/${fixture.setup.project.dsn_id}/envelope/`, {
    body: Buffer.from(`{}\n${JSON.stringify({ type: 'event' })}\n${JSON.stringify(event)}\n`),
    headers: { 'x-sentry-auth': `Sentry sentry_key=${fixture.setup.publicKey}` },
  });
  expect(reply.body).toMatchObject({ accepted: 1 });
}

const month = () => `${new Date().toISOString().slice(0, 7)}-01`;
const counters = (projectId: string) =>
  fixture.server.standalone.metadata.query<{ signal: string; items: number }>(
    `select signal, items::int as items from usage_counters where project_id = $1 and signal like 'ai_%' order by signal`,
    [projectId],
  );

beforeAll(async () => {
  const { server, setup } = fixture;
  chatKey = (await createKey(server.api, setup.session, setup.project.id, { type: 'secret', scopes: ['data:read', 'ai:chat'] })).key;
  await server.api.post('/v1/logs', {
    token: setup.secretKey,
    body: {
      batch: [
        { severity: 'error', message: 'card declined', properties: { route: '/checkout' } },
        { severity: 'error', message: 'card declined', properties: { route: '/checkout' } },
        { severity: 'error', message: 'timeout', properties: { route: '/search' } },
        { severity: 'info', message: 'ok', properties: { route: '/search' } },
        { severity: 'error', message: 'yesterday', timestamp: new Date(Date.now() - 86_400_000).toISOString(), properties: { route: '/search' } },
      ],
    },
  });
  const crumbs = [
    { category: 'navigation', message: '/cart' },
    { category: 'ui.click', message: 'button#pay' },
    { category: 'fetch', message: 'POST /api/pay 502' },
  ];
  await sendError({ type: 'PaymentError', value: 'gateway refused the card', release: 'shop@1.1.0', function: 'pay' });
  await sendError({ type: 'PaymentError', value: 'gateway refused the card', release: 'shop@1.2.0', function: 'pay', breadcrumbs: crumbs });
  await sendError({ type: 'RangeError', value: 'quantity out of range', release: 'shop@1.2.0', function: 'addToCart' });
  await eventually(async () => {
    expect((await server.api.get('/v1/schema', { token: setup.secretKey })).body.log_properties.length).toBeGreaterThan(0);
    expect(await gqlRows(server.api, setup.secretKey, 'from:issues | sort event_count desc | limit 5')).toMatchObject([{ event_count: 2 }, { event_count: 1 }]);
    expect(await gqlRows(server.api, setup.secretKey, 'from:errors | count')).toEqual([{ value: 3 }]);
  });
});

describe('chat answers', () => {
  it('answers small talk and "what can you do" with what it can do, running no query, in the stream too', async () => {
    for (const message of ['hello, who are you?', 'what can you do?']) {
      const reply = await chat(message);
      expect(reply.status).toBe(200);
      expect(reply.body.queries).toEqual([]);
      expect(reply.body.reply).toMatch(/^I answer questions about this project's data/);
    }
    const events = await stream('what can you do?');
    expect(events.map((event) => event.event)).not.toContain('query');
    expect(streamedText(events)).toMatch(/^I answer questions about this project's data/);
  });

  it('states the number it found with the query behind it, and keeps the question for follow-ups', async () => {
    const first = await chat('how many error logs in the last 24 hours?');
    expect(first.body.queries).toEqual(['from:logs severity:error | count | last:24h']);
    expect(first.body.reply).toBe('The answer is 3 (from:logs severity:error | count | last:24h).');
    const byRoute = await chat('by route', first.body.session_id);
    expect(byRoute.body.queries).toEqual(['from:logs severity:error | count by route | last:24h']);
    expect(byRoute.body.reply).toContain('route /checkout: 2');
    expect(byRoute.body.reply).toContain('route /search: 1');
    const week = await chat('and over the last 7 days?', first.body.session_id);
    expect(week.body.queries).toEqual(['from:logs severity:error | count by route | last:7d']);
    expect(week.body.reply).toContain('route /search: 2');

    // "today" and "yesterday" are calendar days (UTC); the log sent a day ago is yesterday's.
    const today = await chat('how many error logs today?');
    expect(today.body.queries[0]).toMatch(/^from:logs severity:error \| count \| since:\d{4}-\d\d-\d\d$/);
    const yesterday = await chat('and yesterday?', today.body.session_id);
    expect(yesterday.body.queries[0]).toMatch(/^from:logs severity:error \| count \| since:\d{4}-\d\d-\d\d until:\d{4}-\d\d-\d\d$/);
    expect(yesterday.body.reply).toBe(`The answer is 1 (${yesterday.body.queries[0]}).`);
    // A question about an issue between them is not what a follow-up builds on.
    const asked = await chat('how many error logs in the last hour?');
    expect((await chat('why is issue 1 happening?', asked.body.session_id)).body.queries[0]).toMatch(/^from:issues short_id:1 /);
    expect((await chat('by route', asked.body.session_id)).body.queries).toEqual(['from:logs severity:error | count by route | last:1h']);
  });

  it('answers why an issue happens from its latest event: the exception, where it was raised, the breadcrumbs and the releases', async () => {
    const [issue] = await gqlRows(fixture.server.api, fixture.setup.secretKey, `from:issues title:"PaymentError: gateway refused the card" | limit 1`);
    const reply = await chat(`why is issue ${issue!['short_id']} happening?`);
    expect(reply.status).toBe(200);
    expect(reply.body.queries).toHaveLength(3);
    expect(reply.body.queries[0]).toBe(`from:issues short_id:${issue!['short_id']} status:[unresolved, resolved, ignored, regressed] | limit 1`);
    const text: string = reply.body.reply;
    expect(text).toContain(`Issue ${issue!['short_id']}, "PaymentError: gateway refused the card"`);
    expect(text).toContain('is unresolved: 2 events from 0 users');
    expect(text).toContain('(release shop@1.2.0, production), raised PaymentError: gateway refused the card in pay (src/checkout.ts:42)');
    expect(text).toContain('Just before it: navigation: /cart; ui.click: button#pay; fetch: POST /api/pay 502.');
    expect(text).toMatch(/Events by release: shop@1\.(1|2)\.0: 1, shop@1\.(1|2)\.0: 1\./);
    expect(text).toContain(`(${reply.body.queries.join('; ')})`);

    // The stream sends each query with its rows, and the same reply.
    const events = await stream(`why is issue ${issue!['short_id']} happening?`);
    expect(events.filter((event) => event.event === 'query').map((event) => event.data.gql)).toEqual(reply.body.queries);
    expect(events.find((event) => event.event === 'query')!.data.data.results).toMatchObject([{ short_id: issue!['short_id'], event_count: 2 }]);
    expect(streamedText(events)).toBe(text);

    const missing = await chat('why is issue 9999 happening?');
    expect(missing.body.reply).toMatch(/^This project has no issue 9999\. \(from:issues short_id:9999 /);
  });

  it("says stored times in the asker's time zone, and in UTC without one", async () => {
    const [issue] = await gqlRows(fixture.server.api, fixture.setup.secretKey, `from:issues title:"PaymentError: gateway refused the card" | limit 1`);
    const spoken = (iso: unknown, timeZone: string) =>
      new Date(String(iso)).toLocaleString('en-US', { timeZone, year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZoneName: 'short' });
    const question = `why is issue ${issue!['short_id']} happening?`;
    const zoned = await fixture.server.api.post('/v1/ai/chat', { token: chatKey, body: { message: question, time_zone: 'Asia/Kathmandu' } });
    expect(zoned.status).toBe(200);
    expect(zoned.body.reply).toContain(`first seen ${spoken(issue!['first_seen'], 'Asia/Kathmandu')}, last seen ${spoken(issue!['last_seen'], 'Asia/Kathmandu')}.`);
    expect(zoned.body.reply).toContain('GMT+5:45');
    expect(zoned.body.reply).not.toMatch(/seen \d{4}-\d{2}-\d{2}T/);
    const plain = await chat(question);
    expect(plain.body.reply).toContain(`first seen ${spoken(issue!['first_seen'], 'UTC')}`);

    // A time bucket in a count by time reads the same way.
    const buckets = await fixture.server.api.post('/v1/ai/chat', { token: chatKey, body: { message: 'error logs per hour in the last 24 hours', time_zone: 'Asia/Kathmandu' } });
    expect(buckets.status).toBe(200);
    expect(buckets.body.queries[0]).toMatch(/count by time\(1h\)/);
    expect(buckets.body.reply).toMatch(/^time [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{2}:\d{2} GMT\+5:45: \d+/);
  });

  it('answers what changed in a release with its error count beside the others, the issues first seen in it and its error types', async () => {
    const reply = await chat('what changed in release 1.2?');
    expect(reply.status).toBe(200);
    const text: string = reply.body.reply;
    expect(text).toContain('Release shop@1.2.0 has 2 errors (other releases: shop@1.1.0: 1).');
    expect(text).toMatch(/Issues first seen in it: issue \d+ "RangeError: quantity out of range" \(1 event\)\./);
    expect(text).toMatch(/Its errors by type: (PaymentError 1, RangeError 1|RangeError 1, PaymentError 1)\./);
    expect(reply.body.queries).toEqual([
      'from:errors release:* | count by release | top 50',
      'from:issues release_first:"shop@1.2.0" status:[unresolved, resolved, ignored, regressed] | sort event_count desc | limit 5',
      'from:errors release:"shop@1.2.0" | count by type | top 5',
    ]);
    expect((await chat('what changed in release 7.0?')).body.reply).toMatch(/^No errors were recorded in release 7\.0\. Releases with errors: /);
  });

  it('tells a key without data:read that it cannot look at the issue, and reads nothing', async () => {
    const chatOnly = (await createKey(fixture.server.api, fixture.setup.session, fixture.setup.project.id, { type: 'secret', scopes: ['ai:chat'] })).key;
    const reply = await chat('why is issue 1 happening?', undefined, chatOnly);
    expect(reply.body).toMatchObject({ queries: [], reply: expect.stringContaining('data:read') });
  });
});

describe('chat for members of the project (the web app)', () => {
  const memberChat = () => `/api/orgs/${fixture.setup.session.organization.id}/projects/${fixture.setup.project.id}/ai/chat`;
  const conversations = async () =>
    (await fixture.server.standalone.metadata.query<{ n: number }>('select count(*)::int as n from ai_conversations where project_id = $1', [fixture.setup.project.id]))[0]!.n;

  it('answers with the session, runs the query, continues the conversation and streams it with the rows', async () => {
    const { server, setup } = fixture;
    const first = await server.api.post(memberChat(), { token: setup.session.token, body: { message: 'how many error logs in the last 24 hours?', time_zone: 'Europe/Berlin' } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ reply: 'The answer is 3 (from:logs severity:error | count | last:24h).', session_id: expect.any(String), queries: ['from:logs severity:error | count | last:24h'] });
    const byRoute = await server.api.post(memberChat(), { token: setup.session.token, body: { message: 'by route', session_id: first.body.session_id } });
    expect(byRoute.body.queries).toEqual(['from:logs severity:error | count by route | last:24h']);
    // A conversation a key began goes on in the web app, and back: both are the project's.
    const byKey = await chat('and over the last 7 days?', first.body.session_id);
    expect(byKey.body.queries).toEqual(['from:logs severity:error | count by route | last:7d']);

    const streamed = await server.api.post(`${memberChat()}/stream`, { token: setup.session.token, body: { message: 'error logs by route in the last 24 hours' } });
    expect(streamed.status).toBe(200);
    const events = streamed.text
      .trim()
      .split('\n\n')
      .map((block) => ({ event: /^event: (.+)$/m.exec(block)![1]!, data: JSON.parse(/^data: (.+)$/m.exec(block)![1]!) }));
    expect(events[0]).toEqual({
      event: 'query',
      data: {
        gql: 'from:logs severity:error | count by route | last:24h',
        data: { mode: 'aggregate', table: 'logs', total_groups: 2, results: [{ route: '/checkout', value: 2 }, { route: '/search', value: 1 }] },
      },
    });
    expect(streamedText(events)).toContain('route /checkout: 2');
    expect(events.at(-1)).toEqual({ event: 'done', data: { session_id: expect.any(String) } });
  });

  it('refuses bad requests and strangers with the exact status and code, storing and counting nothing', async () => {
    const { server, setup } = fixture;
    const stored = await conversations();
    const spent = await counters(setup.project.id);
    const stranger = await signup(server.api);
    const cases: [string, Record<string, unknown> | undefined, unknown, number, string][] = [
      [memberChat(), undefined, { message: 'how many logs?' }, 401, 'UNAUTHORIZED'],
      [memberChat(), { token: setup.session.token }, {}, 400, 'VALIDATION_ERROR'],
      [memberChat(), { token: setup.session.token }, { message: 'x'.repeat(4_001) }, 400, 'VALIDATION_ERROR'],
      [memberChat(), { token: setup.session.token }, { message: 'how many logs today?', time_zone: 'Mars/Olympus' }, 400, 'VALIDATION_ERROR'],
      [memberChat(), { token: setup.session.token }, { message: 'and yesterday?', session_id: '0190a5b0-0000-7000-8000-000000000000' }, 404, 'NOT_FOUND'],
      [`${memberChat()}/stream`, { token: setup.session.token }, { message: '' }, 400, 'VALIDATION_ERROR'],
      [memberChat(), { token: stranger.token }, { message: 'how many logs?' }, 404, 'NOT_FOUND'],
      [`/api/orgs/${setup.session.organization.id}/projects/0190a5b0-0000-7000-8000-000000000000/ai/chat`, { token: setup.session.token }, { message: 'how many logs?' }, 404, 'NOT_FOUND'],
    ];
    for (const [path, auth, body, status, code] of cases) {
      const reply = await server.api.post(path, { ...auth, body });
      expect([path, JSON.stringify(body), reply.status, reply.body.error?.code]).toEqual([path, JSON.stringify(body), status, code]);
    }
    expect(await conversations()).toBe(stored);
    expect(await counters(setup.project.id)).toEqual(spent);
  });
});

describe('chat billing', () => {
  it('counts prompt and completion tokens per project and organization, shown in /v1/info and the usage page', async () => {
    const { server, setup } = fixture;
    const info = async (token: string) => (await server.api.get('/v1/info', { token })).body;
    const before = (await info(setup.secretKey)).organization.usage;
    const other = await createProject(server.api, setup.session, { name: 'shop' });
    const otherKey = (await createKey(server.api, setup.session, other.id, { type: 'secret', scopes: ['data:read', 'ai:chat'] })).key;
    const message = 'how many error logs in the last hour?';
    const reply: Reply = await chat(message, undefined, otherKey);
    // Without a model: about four characters a token, the message read and the reply written.
    const prompt = Math.ceil(message.length / 4);
    const completion = Math.ceil(reply.body.reply.length / 4);
    expect((await info(otherKey)).usage).toMatchObject({ ai_queries: 0, ai_prompt_tokens: prompt, ai_completion_tokens: completion });
    expect((await info(setup.secretKey)).organization.usage).toEqual({
      month: month().slice(0, 7),
      ai_queries: before.ai_queries,
      ai_prompt_tokens: before.ai_prompt_tokens + prompt,
      ai_completion_tokens: before.ai_completion_tokens + completion,
    });
    const usage = await server.api.get(`/api/orgs/${setup.session.organization.id}/usage`, { token: setup.session.token });
    expect(usage.body.limits.ai_tokens_per_month).toBe(100_000);
    expect(usage.body.by_project.find((project: { id: string }) => project.id === other.id).usage).toMatchObject({ ai_prompt_tokens: prompt, ai_completion_tokens: completion });
    expect(usage.body.usage.ai_prompt_tokens).toBe(before.ai_prompt_tokens + prompt);
  });

  it("refuses chat over the plan's monthly tokens with 402 QUOTA_EXCEEDED, storing and counting nothing; a conversion spends an AI query, not tokens", async () => {
    const { server, setup } = fixture;
    const { usage: spent } = (await server.api.get('/v1/info', { token: setup.secretKey })).body.organization;
    const used = spent.ai_prompt_tokens + spent.ai_completion_tokens;
    // The free plan includes 100,000 tokens a month, over all the organization's projects.
    await server.standalone.metadata.query(
      `insert into usage_counters (project_id, signal, month, items) values ($1, 'ai_prompt_tokens', $2, $3)
       on conflict (project_id, signal, month) do update set items = usage_counters.items + excluded.items`,
      [setup.project.id, month(), 100_000 - used],
    );
    const atLimit = await counters(setup.project.id);
    const conversations = async () => (await server.standalone.metadata.query<{ n: number }>('select count(*)::int as n from ai_conversations where project_id = $1', [setup.project.id]))[0]!.n;
    const stored = await conversations();
    const sessionId = (await server.standalone.metadata.query<{ id: string }>('select id from ai_conversations where project_id = $1 limit 1', [setup.project.id]))[0]!.id;
    for (const refused of [
      await chat('how many error logs today?'),
      await chat('and yesterday?', sessionId),
      await server.api.post('/v1/ai/chat/stream', { token: chatKey, body: { message: 'how many error logs today?' } }),
      // The web app's chat counts against the same allowance.
      await server.api.post(`/api/orgs/${setup.session.organization.id}/projects/${setup.project.id}/ai/chat`, { token: setup.session.token, body: { message: 'how many error logs today?' } }),
    ]) {
      expect(refused.status).toBe(402);
      expect(refused.body.error).toMatchObject({
        code: 'QUOTA_EXCEEDED',
        message: 'the free plan includes 100,000 AI chat tokens a month',
        details: { limit: 100_000, used: 100_000, plan: 'free', upgrade: ['starter', 'pro', 'team'] },
      });
    }
    expect(await conversations()).toBe(stored);
    expect(await counters(setup.project.id)).toEqual(atLimit);

    // The dashboard's conversion spends one AI query of its own allowance and no tokens.
    const converted = await server.api.post(`/api/orgs/${setup.session.organization.id}/projects/${setup.project.id}/gql/nl`, {
      token: setup.session.token,
      body: { prompt: 'error logs' },
    });
    expect(converted.status).toBe(200);
    const after = await counters(setup.project.id);
    expect(after.filter((row) => row.signal !== 'ai_queries')).toEqual(atLimit.filter((row) => row.signal !== 'ai_queries'));
    expect(after.find((row) => row.signal === 'ai_queries')!.items).toBe((atLimit.find((row) => row.signal === 'ai_queries')?.items ?? 0) + 1);
  });
});

describe('migration 0016', () => {
  it('keeps the tokens of the earlier ai_tokens counter as tokens read, added to those counted, and drops the counter', async () => {
    const { server, setup } = fixture;
    const store = server.standalone.metadata;
    const project = await createProject(server.api, setup.session, { name: 'earlier' });
    await recordUsage(store, [
      { projectId: project.id, signal: 'ai_tokens', month: '2026-10-01', items: 120 },
      { projectId: project.id, signal: 'ai_tokens', month: '2026-11-01', items: 30 },
      { projectId: project.id, signal: 'ai_prompt_tokens', month: '2026-11-01', items: 5 },
      { projectId: project.id, signal: 'logs', month: '2026-11-01', items: 7 },
    ]);
    // The server's store has the migration applied: its SQL runs again under a version of its own.
    const { sql } = readMigrations().find((migration) => migration.version === '0016_ai_token_counters')!;
    await migrate(store, [{ version: '0016_ai_token_counters (test)', sql }]);
    expect(await readUsage(store, project.id, '2026-10-01')).toEqual({ ai_prompt_tokens: 120 });
    expect(await readUsage(store, project.id, '2026-11-01')).toEqual({ ai_prompt_tokens: 35, logs: 7 });
  });
});
