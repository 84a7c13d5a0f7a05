import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  TEST_POSTGRES_URL,
  createKey,
  eventually,
  postgresUnavailableReason,
  serverOnPostgres,
  setupProject,
  startTestServer,
  type TestServer,
} from '@tlm/testkit';

let server: TestServer;
let setup: Awaited<ReturnType<typeof setupProject>>;
let chatKey: string;

beforeAll(async () => {
  server = await startTestServer();
  setup = await setupProject(server.api);
  // SPEC.md's recommended scopes for tooling that reads and chats.
  chatKey = (await createKey(server.api, setup.session, setup.project.id, { type: 'secret', scopes: ['data:read', 'ai:chat'] })).key;
  await server.api.post('/v1/logs', {
    token: setup.secretKey,
    body: { batch: [1, 2, 3].map((n) => ({ severity: 'error', message: `card declined ${n}`, properties: { route: '/checkout' } })) },
  });
  await eventually(async () => expect((await server.api.get('/v1/schema', { token: setup.secretKey })).body.log_properties.length).toBeGreaterThan(0));
});
afterAll(() => server.close());

describe('POST /v1/gql/nl', () => {
  it('turns a prompt into a valid GQL query with the parsed form, using the discovered schema', async () => {
    const reply = await server.api.post('/v1/gql/nl', { token: setup.secretKey, body: { prompt: 'how many error logs on /checkout in the last hour?' } });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      gql: 'from:logs severity:error route:/checkout | count | last:1h',
      valid: true,
      parsed: { source: 'logs', mode: 'aggregate' },
    });
  });

  it('makes an alert metric in alert mode: no time range', async () => {
    const reply = await server.api.post('/v1/gql/nl', { token: setup.secretKey, body: { prompt: 'more than 5 error logs', mode: 'alert' } });
    expect(reply.body).toMatchObject({ gql: 'from:logs severity:error | count', valid: true });
  });

  it('refuses a prompt over 500 characters with 400 VALIDATION_ERROR and a public key with 403 FORBIDDEN', async () => {
    const long = await server.api.post('/v1/gql/nl', { token: setup.secretKey, body: { prompt: 'x'.repeat(501) } });
    expect(long.status).toBe(400);
    expect(long.body.error.code).toBe('VALIDATION_ERROR');
    expect((await server.api.post('/v1/gql/nl', { token: setup.publicKey, body: { prompt: 'errors' } })).status).toBe(403);
  });
});

describe('POST /api/orgs/:org/projects/:project/gql/nl', () => {
  it("uses one AI query of the plan's quota and answers 402 QUOTA_EXCEEDED when it is used up", async () => {
    const fresh = await setupProject(server.api);
    const path = `/api/orgs/${fresh.session.organization.id}/projects/${fresh.project.id}/gql/nl`;
    const first = await server.api.post(path, { token: fresh.session.token, body: { prompt: 'error logs' } });
    expect(first.status).toBe(200);
    expect(first.body.valid).toBe(true);
    const [used] = await server.standalone.metadata.query<{ items: number }>(
      `select items from usage_counters where project_id = $1 and signal = 'ai_queries'`,
      [fresh.project.id],
    );
    expect(used!.items).toBe(1);
    // The free plan includes 50 a month.
    await server.standalone.metadata.query(`update usage_counters set items = 50 where project_id = $1 and signal = 'ai_queries'`, [fresh.project.id]);
    const over = await server.api.post(path, { token: fresh.session.token, body: { prompt: 'error logs' } });
    expect(over.status).toBe(402);
    expect(over.body.error).toMatchObject({ code: 'QUOTA_EXCEEDED', details: { limit: 50, used: 50, plan: 'free', upgrade: ['starter', 'pro', 'team'] } });
  });

  it("reads today in the browser's time zone, and refuses an unknown zone with 400 VALIDATION_ERROR before spending a query", async () => {
    const fresh = await setupProject(server.api);
    const path = `/api/orgs/${fresh.session.organization.id}/projects/${fresh.project.id}/gql/nl`;
    const usedQueries = async () =>
      (await server.standalone.metadata.query<{ items: number }>(`select items from usage_counters where project_id = $1 and signal = 'ai_queries'`, [fresh.project.id]))[0]?.items ?? 0;
    const zoned = await server.api.post(path, { token: fresh.session.token, body: { prompt: 'error logs today', time_zone: 'Asia/Kathmandu' } });
    expect(zoned.status).toBe(200);
    expect(zoned.body).toMatchObject({ valid: true, gql: expect.stringMatching(/^from:logs severity:error \| since:\d{4}-\d{2}-\d{2}T00:00\+05:45$/) });
    expect(await usedQueries()).toBe(1);
    for (const timeZone of ['Mars/Olympus_Mons', '+05:45', '', 'x'.repeat(65), 42]) {
      const refused = await server.api.post(path, { token: fresh.session.token, body: { prompt: 'error logs today', time_zone: timeZone } });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('VALIDATION_ERROR');
      expect(refused.body.error.message).toContain('time_zone');
    }
    expect(await usedQueries()).toBe(1);
  });
});

describe('POST /v1/ai/chat', () => {
  it('answers from the data with the query it ran, and continues a conversation by session_id', async () => {
    const first = await server.api.post('/v1/ai/chat', { token: chatKey, body: { message: 'How many error logs in the last hour?' } });
    expect(first.status).toBe(200);
    expect(first.body.queries).toEqual(['from:logs severity:error | count | last:1h']);
    expect(first.body.reply).toContain('3');
    const second = await server.api.post('/v1/ai/chat', { token: chatKey, body: { message: 'show the latest error logs', session_id: first.body.session_id } });
    expect(second.body.session_id).toBe(first.body.session_id);
    expect(second.body.reply).toContain('card declined');
    const messages = await server.standalone.metadata.query('select role from ai_messages where conversation_id = $1 order by created_at, id', [first.body.session_id]);
    expect(messages).toHaveLength(4);
  });

  it('answers a key with ai:chat but not data:read with the query, not run: it reads no data', async () => {
    const chatOnly = (await createKey(server.api, setup.session, setup.project.id, { type: 'secret', scopes: ['ai:chat'] })).key;
    const reply = await server.api.post('/v1/ai/chat', { token: chatOnly, body: { message: 'show the latest error logs' } });
    expect(reply.status).toBe(200);
    expect(reply.body.queries).toEqual(['from:logs severity:error | last:24h']);
    expect(reply.body.reply).toContain('data:read');
    expect(reply.body.reply).not.toContain('card declined');
    const stream = await fetch(`${server.url}/v1/ai/chat/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${chatOnly}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'show the latest error logs' }),
    });
    const text = await stream.text();
    expect(text).not.toContain('event: query');
    expect(text).not.toContain('card declined');
  });

  it('reads a follow-up in the light of the conversation: the earlier filters stay, what it says changes', async () => {
    const first = await server.api.post('/v1/ai/chat', { token: chatKey, body: { message: 'How many error logs in the last hour?' } });
    const followUp = await server.api.post('/v1/ai/chat', { token: chatKey, body: { message: 'and over the last 7 days?', session_id: first.body.session_id } });
    expect(followUp.status).toBe(200);
    expect(followUp.body.queries).toEqual(['from:logs severity:error | count | last:7d']);
    // A long run of follow-ups keeps the first question's filter and count.
    let last = followUp;
    for (const days of [2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14]) {
      last = await server.api.post('/v1/ai/chat', { token: chatKey, body: { message: `and over the last ${days} days?`, session_id: first.body.session_id } });
    }
    expect(last.body.queries).toEqual(['from:logs severity:error | count | last:14d']);
    // Without the session the same words are a question of their own.
    const alone = await server.api.post('/v1/ai/chat', { token: chatKey, body: { message: 'and over the last 7 days?' } });
    expect(alone.body.queries).toEqual(['from:logs | last:7d']);
  });

  it('refuses an unknown time zone with 400 VALIDATION_ERROR, keeping no conversation and spending no tokens', async () => {
    const tokens = async () =>
      (await server.standalone.metadata.query<{ items: number }>(`select coalesce(sum(items), 0)::int as items from usage_counters where project_id = $1 and signal like 'ai_%'`, [setup.project.id]))[0]!.items;
    const spentBefore = await tokens();
    const refused = await server.api.post('/v1/ai/chat', { token: chatKey, body: { message: 'error logs today', time_zone: 'Europe/Atlantis' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('VALIDATION_ERROR');
    expect(refused.body.error.message).toContain('time_zone');
    const kept = await server.standalone.metadata.query(`select m.id from ai_messages m where m.content = 'error logs today'`);
    expect(kept).toHaveLength(0);
    expect(await tokens()).toBe(spentBefore);
    const nl = await server.api.post('/v1/gql/nl', { token: setup.secretKey, body: { prompt: 'error logs today', time_zone: 'Europe/Atlantis' } });
    expect(nl.status).toBe(400);
    expect(nl.body.error.code).toBe('VALIDATION_ERROR');
    // A known zone is read: Chatham Islands' days start at a quarter to one hour offsets.
    const chat = await server.api.post('/v1/ai/chat', { token: chatKey, body: { message: 'how many error logs today?', time_zone: 'Pacific/Chatham' } });
    expect(chat.body.queries).toEqual([expect.stringMatching(/^from:logs severity:error \| count \| since:\d{4}-\d{2}-\d{2}T00:00\+1[23]:45$/)]);
  });

  it('refuses an unknown session with 404 and a key without ai:chat with 403', async () => {
    expect((await server.api.post('/v1/ai/chat', { token: chatKey, body: { message: 'errors', session_id: '01900000-0000-7000-8000-000000000000' } })).status).toBe(404);
    const denied = await server.api.post('/v1/ai/chat', { token: (await createKey(server.api, setup.session, setup.project.id, { type: 'secret', scopes: ['data:read'] })).key, body: { message: 'errors' } });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('FORBIDDEN');
  });

  it('streams server-sent events: the query with its data, the reply in deltas, then done with the session', async () => {
    const reply = await server.api.post('/v1/ai/chat/stream', { token: chatKey, body: { message: 'how many error logs in the last hour' } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toContain('text/event-stream');
    const events = reply.text
      .trim()
      .split('\n\n')
      .map((block) => ({ event: /^event: (.+)$/m.exec(block)![1], data: JSON.parse(/^data: (.+)$/m.exec(block)![1]!) }));
    expect(events[0]).toMatchObject({ event: 'query', data: { gql: 'from:logs severity:error | count | last:1h', data: { mode: 'aggregate' } } });
    const text = events.filter((event) => event.event === 'delta').map((event) => event.data.text).join('');
    expect(text).toContain('3');
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { session_id: expect.any(String) } });
  });
});

/** What the recorded provider does with a request: answer a completion, fail with a status, or never answer. */
type Recorded = string | { status: number } | { content: string; usage: false } | 'hang';

/**
 * A small OpenAI-compatible server answering chat completions from a recording, in order: the response bodies are
 * shaped as OpenAI's (`chat.completion` with choices and usage). It keeps what each request carried.
 */
async function recordedProvider(recording: Recorded[]) {
  const seen: { authorization?: string; model?: string; messages: { role: string; content: string }[] }[] = [];
  const hanging: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const request = JSON.parse(body) as { model: string; messages: { role: string; content: string }[] };
      seen.push({ authorization: req.headers.authorization, model: request.model, messages: request.messages });
      const next = recording.shift();
      if (next === 'hang') return void hanging.push(res);
      if (typeof next === 'object' && 'content' in next) {
        const choices = [{ index: 0, message: { role: 'assistant', content: next.content }, finish_reason: 'stop' }];
        return void res.setHeader('content-type', 'application/json').end(JSON.stringify({ id: `chatcmpl-${seen.length}`, object: 'chat.completion', choices }));
      }
      if (next === undefined || typeof next !== 'string') return void res.writeHead(next?.status ?? 500).end('{"error":{"message":"overloaded"}}');
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          id: `chatcmpl-${seen.length}`,
          object: 'chat.completion',
          created: 1_715_342_400,
          model: request.model,
          choices: [{ index: 0, message: { role: 'assistant', content: next }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 812, completion_tokens: 14, total_tokens: 826 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    seen,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: async () => {
      for (const res of hanging) res.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('an OpenAI-compatible provider', () => {
  it('is asked with the GQL grammar, the project schema and worked examples; its answer is validated as GQL, and a failing one is sent back once with the error', async () => {
    const provider = await recordedProvider([
      '```gql\nfrom:logs severity:error | count | last:2h\n```\nThis counts error logs.',
      'from:logs | count by (',
      'from:logs severity:error | count by route | last:2h',
      'from:logs | count by (',
      'from:logs | avg(message)',
      'from:logs severity:error | count | last:2h',
      'from:logs severity:error | count | last:7d',
      'from:logs | count by (',
      'from:logs severity:error | count by route | last:2h',
    ]);
    const withModel = await startTestServer({ AI_BASE_URL: provider.url, AI_API_KEY: 'sk-test', AI_MODEL: 'gql-model' });
    try {
      const project = await setupProject(withModel.api);
      await withModel.api.post('/v1/logs', { token: project.secretKey, body: { batch: [{ severity: 'error', message: 'declined', properties: { route: '/checkout' } }] } });
      await eventually(async () => expect((await withModel.api.get('/v1/schema', { token: project.secretKey })).body.log_properties.length).toBeGreaterThan(0));
      const good = await withModel.api.post('/v1/gql/nl', { token: project.secretKey, body: { prompt: 'errors lately', time_zone: 'Asia/Tokyo' } });
      expect(good.body).toMatchObject({ gql: 'from:logs severity:error | count | last:2h', valid: true });
      const system = provider.seen[0]!.messages[0]!;
      expect(system.role).toBe('system');
      expect(system.content).toContain('GQL, the query language');
      expect(system.content).toContain('route (string: "/checkout")');
      expect(system.content).toContain('- spans: trace spans');
      // The asker's days, with Tokyo's offset (no daylight saving there), so "today" is read as they mean it.
      expect(system.content).toMatch(/The asker's time zone is Asia\/Tokyo: "today" there is since:\d{4}-\d{2}-\d{2}T00:00\+09:00, "yesterday" since:\d{4}-\d{2}-\d{2}T00:00\+09:00 until:/);
      expect(provider.seen[0]!.messages).toContainEqual({ role: 'assistant', content: 'from:issues | sort event_count desc | limit 5' });
      expect(provider.seen[0]).toMatchObject({ authorization: 'Bearer sk-test', model: 'gql-model' });

      // Sent back once with the parser's message; the corrected query is used.
      const fixed = await withModel.api.post('/v1/gql/nl', { token: project.secretKey, body: { prompt: 'errors by route' } });
      expect(fixed.body).toMatchObject({ gql: 'from:logs severity:error | count by route | last:2h', valid: true });
      expect(provider.seen[2]!.messages.slice(-2)).toEqual([
        { role: 'assistant', content: 'from:logs | count by (' },
        { role: 'user', content: expect.stringMatching(/^That query cannot run: expected a field name after 'count by' .*Answer with the corrected query only\.$/) },
      ]);

      // Only once: a second failure is the answer, not valid, with the reason.
      const bad = await withModel.api.post('/v1/gql/nl', { token: project.secretKey, body: { prompt: 'errors by route' } });
      expect(bad.body).toEqual({ gql: 'from:logs | avg(message)', valid: false, parsed: null, reason: 'avg() needs a numeric field; message holds text at column 17' });
      expect(provider.seen).toHaveLength(5);

      // A chat follow-up reaches the model with the conversation: the question, and the answer as the query it ran.
      const chatKey = (await createKey(withModel.api, project.session, project.project.id, { type: 'secret', scopes: ['data:read', 'ai:chat'] })).key;
      const asked = await withModel.api.post('/v1/ai/chat', { token: chatKey, body: { message: 'errors in the last 2 hours?' } });
      expect(asked.body.reply).toContain('1');
      const more = await withModel.api.post('/v1/ai/chat', { token: chatKey, body: { message: 'and last week?', session_id: asked.body.session_id } });
      expect(more.body.queries).toEqual(['from:logs severity:error | count | last:7d']);
      expect(provider.seen[6]!.messages.slice(-3)).toEqual([
        { role: 'user', content: 'errors in the last 2 hours?' },
        { role: 'assistant', content: 'from:logs severity:error | count | last:2h' },
        { role: 'user', content: 'and last week?' },
      ]);

      // Chat is billed the tokens the server reported (812 read and 14 written a completion); /v1/gql/nl spends none.
      const aiUsage = async () => (await withModel.api.get('/v1/info', { token: project.secretKey })).body.organization.usage;
      expect(await aiUsage()).toMatchObject({ ai_queries: 0, ai_prompt_tokens: 2 * 812, ai_completion_tokens: 2 * 14 });
      // A query sent back to be fixed is two completions of one message: both count, once each.
      const retried = await withModel.api.post('/v1/ai/chat', { token: chatKey, body: { message: 'errors by route?' } });
      expect(retried.body.queries).toEqual(['from:logs severity:error | count by route | last:2h']);
      expect(await aiUsage()).toMatchObject({ ai_prompt_tokens: 4 * 812, ai_completion_tokens: 4 * 14 });
    } finally {
      await withModel.close();
      await provider.close();
    }
  });

  it('falls back to the built-in translator when the provider fails, does not answer in AI_TIMEOUT_MS, or answers NONE; bills a completion without usage by its text', async () => {
    const provider = await recordedProvider([{ status: 500 }, 'hang', { status: 401 }, 'NONE', { content: 'from:logs | count | last:1h', usage: false }]);
    const withModel = await startTestServer({ AI_BASE_URL: provider.url, AI_API_KEY: 'sk-test', AI_MODEL: 'gql-model', AI_TIMEOUT_MS: '300' });
    try {
      const project = await setupProject(withModel.api);
      const ask = async (prompt: string) => (await withModel.api.post('/v1/gql/nl', { token: project.secretKey, body: { prompt } })).body;
      expect(await ask('how many error logs in the last hour?')).toMatchObject({ gql: 'from:logs severity:error | count | last:1h', valid: true });
      expect(await ask('fatal logs in the last 3 days')).toMatchObject({ gql: 'from:logs severity:fatal | last:3d', valid: true });
      expect(await ask('hello, who are you?')).toMatchObject({ gql: '', valid: false, parsed: null, reason: "this is not a question about the project's data" });
      expect(await ask('tell me a joke')).toMatchObject({ gql: '', valid: false, parsed: null, reason: 'nothing in this project is called "joke": no source, field, event name or stored value matches' });
      expect(provider.seen).toHaveLength(4);

      // A completion answered without `usage` is billed as estimated from its text, four characters a token.
      const chatKey = (await createKey(withModel.api, project.session, project.project.id, { type: 'secret', scopes: ['data:read', 'ai:chat'] })).key;
      expect((await withModel.api.post('/v1/ai/chat', { token: chatKey, body: { message: 'how many logs?' } })).body.queries).toEqual(['from:logs | count | last:1h']);
      const read = provider.seen[4]!.messages.map((message) => message.content).join('\n');
      expect((await withModel.api.get('/v1/info', { token: project.secretKey })).body.organization.usage).toMatchObject({
        ai_prompt_tokens: Math.ceil(read.length / 4),
        ai_completion_tokens: Math.ceil('from:logs | count | last:1h'.length / 4),
      });
    } finally {
      await withModel.close();
      await provider.close();
    }
  });

  it("marks a model's answer in alert mode invalid when an alert rule would refuse it, after sending it back once", async () => {
    const provider = await recordedProvider([
      'from:errors | count by release',
      'from:errors | count | last:1h',
      'from:errors level:fatal',
      'from:errors level:fatal | count',
    ]);
    const withModel = await startTestServer({ AI_BASE_URL: provider.url, AI_API_KEY: 'sk-test', AI_MODEL: 'gql-model' });
    try {
      const project = await setupProject(withModel.api);
      const translate = async () => (await withModel.api.post('/v1/gql/nl', { token: project.secretKey, body: { prompt: 'fatal crashes', mode: 'alert' } })).body;
      expect(await translate()).toEqual({ gql: 'from:errors | count | last:1h', valid: false, parsed: null, reason: 'an alert metric must not name a time range; the window supplies it' });
      expect(provider.seen[1]!.messages.at(-1)!.content).toBe('That query cannot run: an alert metric must yield one value: remove "by ...". Answer with the corrected query only.');
      expect(await translate()).toMatchObject({ gql: 'from:errors level:fatal | count', valid: true });
      const rule = await withModel.api.post('/v1/alerts', {
        token: project.secretKey,
        body: { name: 'fatal', metric: 'from:errors level:fatal | count', threshold: 1, window_minutes: 5, severity: 'critical' },
      });
      expect(rule.status).toBe(201);
    } finally {
      await withModel.close();
      await provider.close();
    }
  });
});

const postgresUnavailable = postgresUnavailableReason();
if (postgresUnavailable) console.log(`skipping the AI quota race on Postgres: ${TEST_POSTGRES_URL} does not answer (${postgresUnavailable})`);
(postgresUnavailable ? describe.skip : describe)('the dashboard AI quota on the Postgres server', () => {
  const postgres = serverOnPostgres();

  it('lets simultaneous conversions use no more than the plan\'s 50 AI queries: the rest answer 402 QUOTA_EXCEEDED', async () => {
    const fresh = await setupProject(postgres.server.api);
    const path = `/api/orgs/${fresh.session.organization.id}/projects/${fresh.project.id}/gql/nl`;
    const replies = await Promise.all(
      Array.from({ length: 70 }, () => postgres.server.api.post(path, { token: fresh.session.token, body: { prompt: 'error logs' } })),
    );
    const statuses: Record<number, number> = {};
    for (const reply of replies) statuses[reply.status] = (statuses[reply.status] ?? 0) + 1;
    expect(statuses).toEqual({ 200: 50, 402: 20 });
    expect(replies.find((reply) => reply.status === 402)!.body.error).toMatchObject({ code: 'QUOTA_EXCEEDED', details: { limit: 50, plan: 'free' } });
    const [used] = await postgres.server.standalone.metadata.query<{ items: number }>(
      `select items::int as items from usage_counters where project_id = $1 and signal = 'ai_queries'`,
      [fresh.project.id],
    );
    expect(used!.items).toBe(50);
  });
});
