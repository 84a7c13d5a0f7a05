import { gzipSync } from 'node:zlib';
import { strFromU8, unzipSync } from 'fflate';
import { Api, createKey, eventually, setupProject, startTestServer, type ProjectSetup, type TestServer } from '@tlm/testkit';

let server: TestServer;
let setup: Awaited<ReturnType<typeof setupProject>>;

beforeAll(async () => {
  server = await startTestServer({ EXPORT_POLL_MS: '100' });
  setup = await setupProject(server.api);
  await server.api.post('/v1/logs', {
    token: setup.secretKey,
    body: { batch: [1, 2, 3].map((n) => ({ severity: n === 2 ? 'error' : 'info', message: `line ${n}, "quoted"`, properties: { n } })) },
  });
});
afterAll(() => server.close());

async function finished(id: string, key = setup.secretKey, timeoutMs = 15_000) {
  return eventually(async () => {
    const jobs = (await server.api.get('/v1/exports', { token: key })).body.exports as { id: string; status: string }[];
    const job = jobs.find((candidate) => candidate.id === id)!;
    expect(job.status).toBe('done');
    return job as { id: string; status: string; rows: number; size: number; download_url: string; format: string };
  }, timeoutMs);
}

async function download(url: string): Promise<{ status: number; type: string | null; body: Buffer }> {
  const response = await fetch(url);
  return { status: response.status, type: response.headers.get('content-type'), body: Buffer.from(await response.arrayBuffer()) };
}

describe('exports', () => {
  it('runs a CSV export of a query in the background and serves it at a signed link that needs no key', async () => {
    const queued = await server.api.post('/v1/exports', { token: setup.secretKey, body: { format: 'csv', query: 'from:logs | last:1h' } });
    expect(queued.status).toBe(202);
    expect(queued.body).toEqual({ id: expect.any(String), status: 'queued' });
    const job = await finished(queued.body.id);
    expect(job).toMatchObject({ format: 'csv', query: 'from:logs | last:1h', source: null, rows: 3, size: expect.any(Number) });
    const file = await download(job.download_url);
    expect(file.status).toBe(200);
    expect(file.type).toContain('text/csv');
    const lines = file.body.toString('utf8').trimEnd().split('\r\n');
    expect(lines[0]).toContain('message');
    expect(lines).toHaveLength(4);
    expect(file.body.toString('utf8')).toContain('"line 2, ""quoted"""');
  });

  it("holds only as many rows as the query's own limit answers", async () => {
    const queued = await server.api.post('/v1/exports', { token: setup.secretKey, body: { format: 'json', query: 'from:logs | fields message | limit 2' } });
    const job = await finished(queued.body.id);
    expect(job).toMatchObject({ format: 'json', rows: 2 });
    const rows = JSON.parse((await download(job.download_url)).body.toString('utf8')) as unknown[];
    expect(rows).toHaveLength(2);
  });

  it('refuses a tampered or missing token with 401 UNAUTHORIZED', async () => {
    const queued = await server.api.post('/v1/exports', { token: setup.secretKey, body: { format: 'json', source: 'logs' } });
    const job = await finished(queued.body.id);
    expect(job).toMatchObject({ query: null, source: 'logs' });
    const url = new URL(job.download_url);
    const tampered = await new Api(url.origin).get(`${url.pathname}?token=${url.searchParams.get('token')!.slice(0, -2)}xx`);
    expect(tampered.status).toBe(401);
    expect(tampered.body.error.code).toBe('UNAUTHORIZED');
    expect((await new Api(url.origin).get(url.pathname)).status).toBe(401);
    const json = JSON.parse((await download(job.download_url)).body.toString('utf8')) as unknown[];
    expect(json).toHaveLength(3);
  });

  it('packs a GDPR ZIP with the project and one JSON-lines file per source', async () => {
    const queued = await server.api.post('/v1/exports', { token: setup.secretKey, body: { format: 'gdpr_zip' } });
    const job = await finished(queued.body.id);
    const file = await download(job.download_url);
    expect(file.type).toBe('application/zip');
    const files = unzipSync(new Uint8Array(file.body));
    expect(Object.keys(files).sort()).toEqual(
      [
        'project.json',
        ...['logs', 'events', 'errors', 'issues', 'alerts', 'alert_events', 'spans', 'vitals', 'sessions'].map((source) => `${source}.jsonl`),
        ...['replay_sessions', 'replay_chunks', 'profile_chunks', 'attachments', 'missing_bodies'].map((file) => `${file}.jsonl`),
      ].sort(),
    );
    expect(strFromU8(files['logs.jsonl']!).split('\n')).toHaveLength(3);
    expect(JSON.parse(strFromU8(files['project.json']!)).project.id).toBe(setup.project.id);
  });

  it('reads every row of a search across the 10,000-row page limit, rows of one millisecond included', async () => {
    const big = await setupProject(server.api);
    for (let request = 0; request < 21; request++) {
      const reply = await server.api.post('/v1/logs', {
        token: big.secretKey,
        body: { batch: Array.from({ length: 500 }, (_, item) => ({ severity: 'info', message: `bulk ${request}-${item}` })) },
      });
      expect(reply.status).toBe(202);
    }
    const queued = await server.api.post('/v1/exports', { token: big.secretKey, body: { format: 'json', source: 'logs' } });
    const job = await finished(queued.body.id, big.secretKey, 30_000);
    expect(job.rows).toBe(10_500);
    const rows = JSON.parse((await download(job.download_url)).body.toString('utf8')) as { id: string }[];
    expect(new Set(rows.map((row) => row.id)).size).toBe(10_500);

    // Fields without the time and the id, and a sort with a key after the time: paged alike, each row as asked.
    const fields = await server.api.post('/v1/exports', { token: big.secretKey, body: { format: 'json', query: 'from:logs | fields message | sort timestamp desc, severity' } });
    const fieldsJob = await finished(fields.body.id, big.secretKey, 30_000);
    expect(fieldsJob.rows).toBe(10_500);
    const messages = JSON.parse((await download(fieldsJob.download_url)).body.toString('utf8')) as Record<string, unknown>[];
    expect(new Set(messages.map((row) => row['message'])).size).toBe(10_500);
    expect(messages.every((row) => Object.keys(row).length === 1)).toBe(true);
  });

  it('stops serving a download link once its project is deleted, and again after a restore', async () => {
    const other = await setupProject(server.api);
    await server.api.post('/v1/logs', { token: other.secretKey, body: { batch: [{ severity: 'info', message: 'private' }] } });
    const queued = await server.api.post('/v1/exports', { token: other.secretKey, body: { format: 'json', source: 'logs' } });
    const job = await finished(queued.body.id, other.secretKey);
    expect((await download(job.download_url)).status).toBe(200);

    const projectPath = `/api/orgs/${other.session.organization.id}/projects/${other.project.id}`;
    expect((await server.api.delete(projectPath, { token: other.session.token })).status).toBe(200);
    const url = new URL(job.download_url);
    const gone = await new Api(url.origin).get(`${url.pathname}${url.search}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('NOT_FOUND');

    expect((await server.api.post(`${projectPath}/restore`, { token: other.session.token })).status).toBe(200);
    expect((await download(job.download_url)).status).toBe(200);
  });

  it("stops serving a download link once the organization's owner deletes their account", async () => {
    const other = await setupProject(server.api);
    const queued = await server.api.post('/v1/exports', { token: other.secretKey, body: { format: 'json', source: 'logs' } });
    const job = await finished(queued.body.id, other.secretKey);
    expect((await download(job.download_url)).status).toBe(200);
    expect((await server.api.delete('/api/auth/account', { token: other.session.token })).status).toBe(200);
    expect((await download(job.download_url)).status).toBe(404);
  });

  it('checks the request: scopes, a query or a source, not both (neither for a GDPR ZIP), and valid GQL, storing nothing refused', async () => {
    const reader = await createKey(server.api, setup.session, setup.project.id, { type: 'secret', scopes: ['data:read'] });
    expect((await server.api.post('/v1/exports', { token: reader.key, body: { format: 'csv' } })).status).toBe(403);
    expect((await server.api.get('/v1/exports', { token: reader.key })).status).toBe(403);
    const cases: [unknown, number][] = [
      [{ format: 'xml' }, 400],
      [{ format: 'csv', query: 'from:logs', source: 'logs' }, 400],
      [{ format: 'csv', source: 'nowhere' }, 400],
      [{ format: 'csv', query: 'from:logs | count by' }, 400],
      [{ format: 'csv', query: 'from:nowhere' }, 422],
      [{ format: 'gdpr_zip', query: 'from:logs' }, 400],
      [{ format: 'gdpr_zip', source: 'logs' }, 400],
    ];
    const listed = async () => (await server.api.get('/v1/exports', { token: setup.secretKey })).body.exports.length as number;
    const before = await listed();
    for (const [body, status] of cases) {
      const reply = await server.api.post('/v1/exports', { token: setup.secretKey, body });
      expect([JSON.stringify(body), reply.status, reply.body.error.code]).toEqual([JSON.stringify(body), status, 'VALIDATION_ERROR']);
    }
    expect(await listed()).toBe(before);
  });
});

/** Replays, profiles and attachments one project sent, and the bytes of every body as sent. */
interface SentBodies {
  replayChunks: Buffer[];
  profile: Buffer;
  profileGone: Buffer;
  event: { hex: string; uuid: string };
  log: Buffer;
  escaping: Buffer;
}

const SESSION_ID = 'gdpr-session';
const T0 = Date.now() - 60_000;
const rrwebEvents = (label: string, start: number) => JSON.stringify([0, 1, 2].map((i) => ({ type: 3, timestamp: start + i * 100, data: { label, x: i } })));

let events = 0;
/** A fresh event id (32 hex digits) and its UUID form, as attachment rows store it. */
function newEventId(): { hex: string; uuid: string } {
  events += 1;
  const hex = `${process.pid.toString(16).padStart(8, '0')}${events.toString(16).padStart(24, '0')}`;
  return { hex, uuid: hex.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5') };
}

/** A Sentry envelope: its header line, then each item's header line (with its length) and payload. */
function envelope(items: { header: Record<string, unknown>; payload: Buffer | string }[], header: Record<string, unknown>): Buffer {
  const parts: Buffer[] = [Buffer.from(`${JSON.stringify(header)}\n`)];
  for (const item of items) {
    const payload = Buffer.isBuffer(item.payload) ? item.payload : Buffer.from(item.payload);
    parts.push(Buffer.from(`${JSON.stringify({ ...item.header, length: payload.length })}\n`), payload, Buffer.from('\n'));
  }
  return Buffer.concat(parts);
}

/**
 * Sends a replay session of two chunks (`SESSION_ID`, in every project), two profile chunks (`<label>-profile` and
 * `<label>-profile-gone`) and an error with two attachments, one named `../../escape.txt`; every body names `label`.
 */
async function sendBodies(project: ProjectSetup, label: string): Promise<SentBodies> {
  const session = await server.api.post('/v1/replay/sessions', {
    token: project.publicKey,
    body: { session_id: SESSION_ID, distinct_id: `${label}-user`, started_at: T0, url: `https://shop.example/${label}` },
  });
  expect(session.status).toBe(200);
  // Compression level 1 makes bytes a re-compression at the default level would not reproduce.
  const replayChunks = [0, 1].map((seq) => gzipSync(rrwebEvents(label, T0 + seq * 10_000), { level: 1 }));
  for (const [seq, body] of replayChunks.entries()) {
    const reply = await server.api.post(`/v1/replay/chunks?session_id=${SESSION_ID}&seq=${seq}&start_ts=${T0 + seq * 10_000}&end_ts=${T0 + seq * 10_000 + 5_000}`, {
      token: project.publicKey,
      body,
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(reply.status).toBe(202);
  }
  // Spacing and key order are the client's: the stored body is the bytes sent.
  const profile = Buffer.from(`{ "samples": [1, 2, 3],\n  "label": "${label}" }`);
  const profileGone = Buffer.from(`{"label":"${label}-gone"}`);
  for (const [chunkId, body, startedAt] of [
    [`${label}-profile`, profile, T0],
    [`${label}-profile-gone`, profileGone, T0 - 1_000],
  ] as const) {
    const query = `profiler_id=${label}-profiler&profile_type=cpu&sample_count=3&chunk_id=${chunkId}&started_at=${startedAt}&ended_at=${startedAt + 1_000}&platform=node&release=api%401.0`;
    const reply = await server.api.post(`/v1/profiles/chunks?${query}`, { token: project.secretKey, body, headers: { 'content-type': 'application/json' } });
    expect(reply.status).toBe(202);
  }
  const event = newEventId();
  const log = Buffer.concat([Buffer.from(`${label} line 1\nline 2 caf\u00e9\n`), Buffer.from([0, 0xff, 0xfe, 0x1f, 0x8b])]);
  const escaping = Buffer.from(`${label} tried to leave its folder`);
  const sent = await server.api.post(`/api/${project.project.dsn_id}/envelope/`, {
    body: envelope(
      [
        { header: { type: 'event' }, payload: JSON.stringify({ exception: { values: [{ type: 'ExportError', value: `${label} with files` }] } }) },
        { header: { type: 'attachment', filename: 'app.log', content_type: 'text/plain' }, payload: log },
        { header: { type: 'attachment', filename: '../../escape.txt' }, payload: escaping },
      ],
      { event_id: event.hex },
    ),
    headers: { 'content-type': 'application/x-sentry-envelope', 'x-sentry-auth': `Sentry sentry_key=${project.publicKey}, sentry_version=7, sentry_client=test/1.0` },
  });
  expect(sent.body).toMatchObject({ accepted: 3, rejected: 0 });
  await eventually(async () => expect((await server.api.get(`/v1/attachments?event_id=${event.hex}`, { token: project.secretKey })).body.attachments).toHaveLength(2));
  return { replayChunks, profile, profileGone, event, log, escaping };
}

/** JSON lines as the export writes them. */
const jsonLines = (rows: unknown[]) => rows.map((row) => JSON.stringify(row)).join('\n');
const iso = (epochMs: number) => new Date(epochMs).toISOString();

describe('GDPR ZIP: replays, profiles and attachments', () => {
  it("holds the project's replay, profile and attachment metadata as the query service answers it and every body byte for byte, none of another project's", async () => {
    const mine = await setupProject(server.api);
    const theirs = await setupProject(server.api);
    const sent = await sendBodies(mine, 'mine');
    const theirBodies = await sendBodies(theirs, 'theirs');
    // A body gone from the blob store is listed, not fatal.
    const [gone] = await server.standalone.analytics.query('SELECT blob_key FROM profile_chunks WHERE project_id = $project AND id = $id', {
      project: mine.project.id,
      id: 'mine-profile-gone',
    });
    expect(await server.standalone.blobs.deletePrefix(String(gone!['blob_key']))).toBe(1);

    const queued = await server.api.post('/v1/exports', { token: mine.secretKey, body: { format: 'gdpr_zip' } });
    const job = await finished(queued.body.id, mine.secretKey);
    const files = unzipSync(new Uint8Array((await download(job.download_url)).body));
    const text = (name: string) => strFromU8(files[name]!);
    const bytes = (name: string) => Buffer.from(files[name]!);

    // Metadata rows: exactly what the query service's reads answer, replay chunks with their session id.
    const { chunks, ...session } = (await server.api.get(`/v1/replay/sessions/${SESSION_ID}`, { token: mine.secretKey })).body;
    expect(session).toMatchObject({ session_id: SESSION_ID, distinct_id: 'mine-user', started_at: iso(T0), url: 'https://shop.example/mine' });
    expect(chunks).toEqual(
      [0, 1].map((seq) => ({ seq, start_ts: iso(T0 + seq * 10_000), end_ts: iso(T0 + seq * 10_000 + 5_000), event_count: 3, size_bytes: sent.replayChunks[seq]!.length })),
    );
    expect(text('replay_sessions.jsonl')).toBe(jsonLines([session]));
    expect(text('replay_chunks.jsonl')).toBe(jsonLines([1, 0].map((seq) => ({ session_id: SESSION_ID, ...chunks[seq] }))));

    const profiles = (await server.api.get('/v1/profiles/chunks', { token: mine.secretKey })).body.chunks;
    expect(profiles).toEqual([
      {
        chunk_id: 'mine-profile',
        profiler_id: 'mine-profiler',
        profile_type: 'cpu',
        platform: 'node',
        release: 'api@1.0',
        environment: null,
        sample_count: 3,
        started_at: iso(T0),
        ended_at: iso(T0 + 1_000),
        size_bytes: sent.profile.length,
        received_at: expect.any(String),
      },
      expect.objectContaining({ chunk_id: 'mine-profile-gone', size_bytes: sent.profileGone.length }),
    ]);
    expect(text('profile_chunks.jsonl')).toBe(jsonLines(profiles));

    const attachments = (await server.api.get('/v1/attachments', { token: mine.secretKey })).body.attachments as { id: string; filename: string }[];
    expect(attachments.map((attachment) => [attachment.filename, attachment]).sort()).toEqual([
      ['../../escape.txt', expect.objectContaining({ event_id: sent.event.uuid, content_type: 'application/octet-stream', size_bytes: sent.escaping.length })],
      ['app.log', expect.objectContaining({ event_id: sent.event.uuid, content_type: 'text/plain', attachment_type: 'event.attachment', size_bytes: sent.log.length })],
    ]);
    expect(text('attachments.jsonl')).toBe(jsonLines(attachments));
    expect(text('missing_bodies.jsonl')).toBe(jsonLines([{ kind: 'profile_chunk', id: 'mine-profile-gone', reason: 'not_found' }]));

    // Bodies byte for byte; the file name with `../` keeps only its last part, inside its event's folder.
    const idOf = (filename: string) => attachments.find((attachment) => attachment.filename === filename)!.id;
    const bodies = {
      [`replays/${SESSION_ID}/0.json.gz`]: sent.replayChunks[0]!,
      [`replays/${SESSION_ID}/1.json.gz`]: sent.replayChunks[1]!,
      'profiles/mine-profile.json': sent.profile,
      [`attachments/${sent.event.uuid}/${idOf('app.log')}-app.log`]: sent.log,
      [`attachments/${sent.event.uuid}/${idOf('../../escape.txt')}-escape.txt`]: sent.escaping,
    };
    expect(Object.keys(files).filter((name) => !/^[a-z_]+\.jsonl?$/.test(name)).sort()).toEqual(Object.keys(bodies).sort());
    for (const [name, body] of Object.entries(bodies)) expect([name, bytes(name).equals(body)]).toEqual([name, true]);
    expect(Object.keys(files).filter((name) => name.split('/').some((segment) => segment === '..' || segment === '.' || segment === ''))).toEqual([]);

    // Nothing of the other project, which sent a session of the same id.
    const theirSent = [...theirBodies.replayChunks, theirBodies.profile, theirBodies.profileGone, theirBodies.log, theirBodies.escaping];
    expect(Object.values(files).filter((file) => theirSent.some((body) => Buffer.from(file).equals(body)))).toEqual([]);
    expect(Object.entries(files).filter(([name, file]) => name.includes('theirs') || name.includes(theirBodies.event.uuid) || strFromU8(file).includes('theirs'))).toEqual([]);

    // `rows` counts metadata rows, every .jsonl line but the missing bodies', not bodies.
    const rowFiles = Object.keys(files).filter((name) => name.endsWith('.jsonl') && name !== 'missing_bodies.jsonl');
    expect(job.rows).toBe(rowFiles.reduce((total, name) => total + (text(name) === '' ? 0 : text(name).split('\n').length), 0));
    expect(job.rows).toBeGreaterThanOrEqual(1 + 2 + 2 + 2);
  });
});
