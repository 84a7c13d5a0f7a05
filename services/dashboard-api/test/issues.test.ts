import { randomUUID } from 'node:crypto';
import { eventually, serverWithProject, signup } from '@tlm/testkit';

/** Issue actions (resolve, ignore, unresolve) and what GQL then shows, with errors sent as Sentry envelopes. */
const fixture = serverWithProject();

const issuePath = (id: string, action: string, project = fixture.setup.project.id, org = fixture.setup.session.organization.id) =>
  `/api/orgs/${org}/projects/${project}/issues/${id}/${action}`;

const act = (id: string, action: string, body?: unknown, token = fixture.setup.session.token) => fixture.server.api.post(issuePath(id, action), { token, body });

async function sendError(type: string, release: string | null) {
  const event = {
    exception: { values: [{ type, value: 'boom', stacktrace: { frames: [{ function: 'handler', filename: 'src/routes.ts', in_app: true }] } }] },
    ...(release ? { release } : {}),
  };
  const body = Buffer.from(`{}\n${JSON.stringify({ type: 'event' })}\n${JSON.stringify(event)}\n`);
  const reply = await fixture.server.api.post(`/api/${fixture.setup.project.dsn_id}/envelope/`, {
    body,
    headers: { 'x-sentry-auth': `Sentry sentry_key=${fixture.setup.publicKey}` },
  });
  expect(reply.body).toMatchObject({ accepted: 1 });
}

async function gqlIssues(q: string) {
  const reply = await fixture.server.api.get(`/api/orgs/${fixture.setup.session.organization.id}/projects/${fixture.setup.project.id}/gql?q=${encodeURIComponent(q)}`, {
    token: fixture.setup.session.token,
  });
  expect(reply.status).toBe(200);
  return reply.body.data.results as { id: string; status: string; title: string; event_count: number; resolved_in_release: string | null }[];
}

/** What `q` shows once the snapshots of the errors sent so far are written (they follow the answer by moments). */
const shows = (q: string, expected: unknown[]) => eventually(async () => expect(await gqlIssues(q)).toEqual(expected));

async function newIssue(type: string, release: string | null = 'api@1.0.0'): Promise<string> {
  await sendError(type, release);
  const [issue] = await eventually(async () => {
    const issues = await gqlIssues(`from:issues title:'${type}: boom'`);
    expect(issues).toHaveLength(1);
    return issues;
  });
  return issue!.id;
}

describe('issue actions', () => {
  it('resolves in a release, stays resolved for that release and regresses on another', async () => {
    const id = await newIssue('CheckoutError');
    const resolved = await act(id, 'resolve', { release: 'api@1.0.0' });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({
      id,
      short_id: expect.any(Number),
      title: 'CheckoutError: boom',
      culprit: 'handler in src/routes.ts',
      status: 'resolved',
      resolved_in_release: 'api@1.0.0',
      event_count: 1,
      release_last: 'api@1.0.0',
    });
    expect(resolved.body.first_seen).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    await sendError('CheckoutError', 'api@1.0.0');
    await shows(`from:issues title:'CheckoutError: boom'`, [expect.objectContaining({ status: 'resolved', event_count: 2 })]);

    await sendError('CheckoutError', 'api@1.1.0');
    await shows(`from:issues status:regressed`, [expect.objectContaining({ id, status: 'regressed', event_count: 3, resolved_in_release: 'api@1.0.0' })]);
  });

  it('resolves without a release (any later error regresses it), with an empty body or none', async () => {
    const id = await newIssue('QueueError');
    const reply = await fixture.server.api.post(issuePath(id, 'resolve'), { token: fixture.setup.session.token });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ status: 'resolved', resolved_in_release: null });
    expect((await act(id, 'resolve', {})).body).toMatchObject({ status: 'resolved', resolved_in_release: null });
    await sendError('QueueError', 'api@1.0.0');
    await shows(`from:issues title:'QueueError: boom'`, [expect.objectContaining({ status: 'regressed' })]);
  });

  it('ignores: the issue leaves the default from:issues list and status:ignored shows it; unresolve brings it back', async () => {
    const id = await newIssue('NoiseError');
    expect((await act(id, 'ignore')).body).toMatchObject({ id, status: 'ignored' });
    expect((await gqlIssues('from:issues')).map((issue) => issue.id)).not.toContain(id);
    expect((await gqlIssues('from:issues status:ignored')).map((issue) => issue.id)).toEqual([id]);

    await sendError('NoiseError', 'api@2.0.0');
    await shows('from:issues status:ignored', [expect.objectContaining({ id, event_count: 2 })]);

    expect((await act(id, 'unresolve')).body).toMatchObject({ id, status: 'unresolved', resolved_in_release: null });
    expect((await gqlIssues('from:issues')).map((issue) => issue.id)).toContain(id);
  });

  it('answers 404 NOT_FOUND for an unknown issue, an id that is not a UUID and an issue of another project', async () => {
    const id = await newIssue('ElsewhereError');
    const otherProject = await fixture.server.api.post(`/api/orgs/${fixture.setup.session.organization.id}/projects`, { token: fixture.setup.session.token, body: { name: 'other' } });
    for (const path of [issuePath(randomUUID(), 'resolve'), issuePath('not-a-uuid', 'ignore'), issuePath(id, 'ignore', otherProject.body.id)]) {
      const reply = await fixture.server.api.post(path, { token: fixture.setup.session.token });
      expect(reply.status).toBe(404);
      expect(reply.body.error.code).toBe('NOT_FOUND');
    }
    expect(await gqlIssues(`from:issues title:'ElsewhereError: boom'`)).toEqual([expect.objectContaining({ status: 'unresolved' })]);
  });

  it('needs a JWT (401) of a member of the organization (404 for others)', async () => {
    const id = await newIssue('GuardedError');
    const anonymous = await fixture.server.api.post(issuePath(id, 'ignore'));
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('UNAUTHORIZED');
    const withKey = await fixture.server.api.post(issuePath(id, 'ignore'), { token: fixture.setup.secretKey });
    expect(withKey.status).toBe(401);
    const stranger = await signup(fixture.server.api);
    const foreign = await act(id, 'ignore', undefined, stranger.token);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('NOT_FOUND');
    expect(await gqlIssues(`from:issues title:'GuardedError: boom'`)).toEqual([expect.objectContaining({ status: 'unresolved' })]);
  });

  it('answers 400 VALIDATION_ERROR for a release that is not text and for unknown fields', async () => {
    const id = await newIssue('BodyError');
    for (const [action, body] of [
      ['resolve', { release: 42 }],
      ['resolve', { release: '' }],
      ['resolve', { version: '1.0' }],
      ['ignore', { until: 'tomorrow' }],
    ] as const) {
      const reply = await act(id, action, body);
      expect(reply.status).toBe(400);
      expect(reply.body.error.code).toBe('VALIDATION_ERROR');
    }
  });
});
