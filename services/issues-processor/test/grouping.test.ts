import { randomBytes } from 'node:crypto';
import { eventually, serverWithProject } from '@tlm/testkit';

/** Errors sent as envelopes, processed into issues by the processor the standalone server runs. */
const fixture = serverWithProject();

const eventId = () => randomBytes(16).toString('hex');
const asUuid = (hex: string) => hex.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');

function envelope(events: Record<string, unknown>[]): Buffer {
  const lines = ['{}'];
  for (const event of events) lines.push(JSON.stringify({ type: 'event' }), JSON.stringify(event));
  return Buffer.from(`${lines.join('\n')}\n`);
}

const send = (events: Record<string, unknown>[]) =>
  fixture.server.api.post(`/api/${fixture.setup.project.dsn_id}/envelope/`, {
    body: envelope(events),
    headers: { 'x-sentry-auth': `Sentry sentry_key=${fixture.setup.publicKey}, sentry_version=7` },
  });

const exception = (type: string, fn: string, extra: Record<string, unknown> = {}) => ({
  event_id: eventId(),
  exception: { values: [{ type, value: `${type} in ${fn}`, stacktrace: { frames: [{ function: fn, filename: 'src/app.ts', lineno: 10, in_app: true }] } }] },
  ...extra,
});

async function issuesOf(type: string) {
  return fixture.server.standalone.metadata.query<{ id: string; event_count: number; user_count: number; short_id: number }>(
    `select id, event_count, user_count, short_id from issues where project_id = $1 and title like $2`,
    [fixture.setup.project.id, `${type}:%`],
  );
}

async function errorCount(issueId: string): Promise<number> {
  const [row] = await fixture.server.standalone.analytics.query('SELECT count(*) AS n FROM errors WHERE project_id = $project AND issue_id = $issue', {
    project: fixture.setup.project.id,
    issue: issueId,
  });
  return row!['n'] as number;
}

describe('issues from envelope events', () => {
  it('counts an event once when the SDK sends the same event_id twice', async () => {
    const event = exception('RetriedError', 'save');
    expect((await send([event])).status).toBe(200);
    expect((await send([event])).status).toBe(200);
    expect((await send([event, event])).status).toBe(200);
    const [issue] = await issuesOf('RetriedError');
    expect(issue).toMatchObject({ event_count: 1 });
    expect(await errorCount(issue!.id)).toBe(1);
    const [row] = await fixture.server.standalone.analytics.query('SELECT id FROM errors WHERE issue_id = $issue', { issue: issue!.id });
    expect(row!['id']).toBe(asUuid(event.event_id));
  });

  it('makes one issue with event_count 50 from 50 simultaneous events of a new fingerprint', async () => {
    const replies = await Promise.all(Array.from({ length: 50 }, (_, index) => send([exception('StampedeError', 'reserve', { user: { id: `u${index % 5}` } })])));
    expect(replies.map((reply) => reply.status)).toEqual(Array(50).fill(200));
    // Every answer waited for the rows, and the first ones for the new issue; the counts follow by moments.
    const [created] = await issuesOf('StampedeError');
    expect(await errorCount(created!.id)).toBe(50);
    await eventually(async () => expect(await issuesOf('StampedeError')).toEqual([expect.objectContaining({ id: created!.id, event_count: 50, user_count: 5 })]));
    const issues = [created!];
    // The snapshot GQL reads follows the counts by moments, its batches' snapshots written together.
    await eventually(async () => {
      const [snapshot] = await fixture.server.standalone.analytics.query('SELECT event_count, user_count FROM issues WHERE id = $id', { id: issues[0]!.id });
      expect(snapshot).toEqual({ event_count: 50, user_count: 5 });
    });
  });

  it('groups by type and culprit frame, and by the client fingerprint when one is sent', async () => {
    await send([
      exception('GroupedError', 'alpha'),
      exception('GroupedError', 'alpha'),
      exception('GroupedError', 'beta'),
      exception('GroupedError', 'alpha', { fingerprint: ['tenant-limits'] }),
      exception('GroupedError', 'beta', { fingerprint: ['tenant-limits'] }),
    ]);
    const counts = (await issuesOf('GroupedError')).map((issue) => issue.event_count).sort();
    expect(counts).toEqual([1, 2, 2]);
  });
});
