import { createProject, eventually, serverWithProject } from '@tlm/testkit';

/** GET /api/orgs/:org/usage: the plan, its limits and quotas in use, and this month's items per signal. */

const context = serverWithProject();

function envelopeWithError(message: string): string {
  const event = { event_id: 'a'.repeat(32), level: 'error', exception: { values: [{ type: 'Error', value: message }] } };
  return [JSON.stringify({}), JSON.stringify({ type: 'event' }), JSON.stringify(event)].join('\n');
}

describe('usage', () => {
  it('counts this month per signal for the organization and each project, with the quotas in use', async () => {
    const { server, setup } = context;
    const token = setup.secretKey;
    const other = await createProject(server.api, setup.session, { name: 'empty' });
    expect((await server.api.post('/v1/logs', { token, body: { batch: [1, 2, 3].map((n) => ({ severity: 'info', message: `usage ${n}` })) } })).status).toBe(202);
    expect((await server.api.post('/v1/events', { token, body: { batch: [{ event: 'signup' }, { event: 'login' }] } })).status).toBe(202);
    expect((await server.api.post('/v1/envelope', { token, body: envelopeWithError('usage failure') })).status).toBe(200);

    const path = `/api/orgs/${setup.session.organization.id}/usage`;
    const reply = await eventually(async () => {
      const answer = await server.api.get(path, { token: setup.session.token });
      if (answer.body.usage?.logs !== 3 || answer.body.usage?.events !== 2 || answer.body.usage?.errors !== 1) throw new Error(answer.text);
      return answer;
    }, 10_000);
    expect(reply.status).toBe(200);
    expect(reply.body.organization).toEqual(expect.objectContaining({ id: setup.session.organization.id, plan: 'free' }));
    expect(reply.body.month).toBe(new Date().toISOString().slice(0, 7));
    expect(reply.body.limits).toEqual({
      requests_per_second: 10,
      api_requests_per_second: 25,
      max_api_keys: 5,
      retention_days: 3,
      max_projects: 3,
      ai_queries_per_month: 50,
      ai_tokens_per_month: 100_000,
      // Deprecated names, kept for clients that read them (docs/api.md "Plan limits").
      requestsPerSecond: 10,
      apiRequestsPerSecond: 25,
      maxApiKeys: 5,
      retentionDays: 3,
      maxProjects: 3,
      aiQueriesPerMonth: 50,
    });
    expect(reply.body.keys).toEqual({ used: 2, limit: 5 });
    expect(reply.body.projects).toEqual({ used: 2, limit: 3 });
    expect(reply.body.usage).toEqual({ logs: 3, events: 2, ai_queries: 0, ai_prompt_tokens: 0, ai_completion_tokens: 0, errors: 1, spans: 0, vitals: 0, sessions: 0 });
    const byProject = Object.fromEntries(reply.body.by_project.map((project: { id: string; usage: unknown }) => [project.id, project.usage]));
    expect(byProject[setup.project.id]).toEqual(reply.body.usage);
    expect(byProject[other.id]).toEqual({ logs: 0, events: 0, ai_queries: 0, ai_prompt_tokens: 0, ai_completion_tokens: 0, errors: 0, spans: 0, vitals: 0, sessions: 0 });
  });

  it('answers 404 NOT_FOUND for an organization the user is not in', async () => {
    const reply = await context.server.api.get('/api/orgs/00000000-0000-4000-8000-000000000000/usage', { token: context.setup.session.token });
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe('NOT_FOUND');
  });

  it('answers 401 UNAUTHORIZED without a session', async () => {
    const reply = await context.server.api.get(`/api/orgs/${context.setup.session.organization.id}/usage`);
    expect(reply.status).toBe(401);
  });
});
