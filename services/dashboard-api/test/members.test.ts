import { signup, startTestServer, type Session, type TestServer } from '@tlm/testkit';

/**
 * Members and roles: owners change roles (`PATCH /api/orgs/:org/members/:user`) and remove members; an organization
 * always keeps an owner, so the last one can be neither demoted nor removed (409 CONFLICT, reason last_owner).
 */

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

async function roles(orgId: string): Promise<Record<string, string>> {
  const rows = await server.standalone.metadata.query<{ user_id: string; role: string }>('select user_id, role from memberships where org_id = $1', [orgId]);
  return Object.fromEntries(rows.map((row) => [row.user_id, row.role]));
}

/** An organization of `owner` with `member` in it as a member. */
async function team(): Promise<{ owner: Session; member: Session }> {
  const owner = await signup(server.api);
  const member = await signup(server.api);
  const added = await server.api.post(`/api/orgs/${owner.organization.id}/members`, { token: owner.token, body: { email: member.user.email, role: 'member' } });
  expect(added.status).toBe(201);
  return { owner, member };
}

const memberPath = (owner: Session, userId: string) => `/api/orgs/${owner.organization.id}/members/${userId}`;

describe('PATCH /api/orgs/:org/members/:user', () => {
  it('makes a member an owner, who may then demote the first owner', async () => {
    const { owner, member } = await team();
    const promoted = await server.api.patch(memberPath(owner, member.user.id), { token: owner.token, body: { role: 'owner' } });
    expect(promoted.status).toBe(200);
    expect(promoted.body).toEqual(expect.objectContaining({ user_id: member.user.id, email: member.user.email, role: 'owner' }));
    const demoted = await server.api.patch(memberPath(owner, owner.user.id), { token: member.token, body: { role: 'member' } });
    expect(demoted.status).toBe(200);
    expect(await roles(owner.organization.id)).toEqual({ [owner.user.id]: 'member', [member.user.id]: 'owner' });
    // A member now, the first owner may no longer change roles.
    const refused = await server.api.patch(memberPath(owner, owner.user.id), { token: owner.token, body: { role: 'owner' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
  });

  it('refuses to demote the last owner with 409 CONFLICT (reason last_owner) and keeps the role', async () => {
    const { owner } = await team();
    const reply = await server.api.patch(memberPath(owner, owner.user.id), { token: owner.token, body: { role: 'member' } });
    expect(reply.status).toBe(409);
    expect(reply.body.error).toEqual(expect.objectContaining({ code: 'CONFLICT', details: { reason: 'last_owner' } }));
    expect((await roles(owner.organization.id))[owner.user.id]).toBe('owner');
  });

  it('refuses members who are not owners with 403 FORBIDDEN and changes nothing', async () => {
    const { owner, member } = await team();
    const reply = await server.api.patch(memberPath(owner, member.user.id), { token: member.token, body: { role: 'owner' } });
    expect(reply.status).toBe(403);
    expect(reply.body.error.code).toBe('FORBIDDEN');
    expect((await roles(owner.organization.id))[member.user.id]).toBe('member');
  });

  it.each([
    ['a role that does not exist', { role: 'admin' }],
    ['no role', {}],
    ['a field it does not know', { role: 'owner', email: 'x@example.com' }],
  ])('refuses %s with 400 VALIDATION_ERROR and changes nothing', async (_what, body) => {
    const { owner, member } = await team();
    const reply = await server.api.patch(memberPath(owner, member.user.id), { token: owner.token, body });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
    expect(await roles(owner.organization.id)).toEqual({ [owner.user.id]: 'owner', [member.user.id]: 'member' });
  });

  it('answers 404 NOT_FOUND for someone who is not a member', async () => {
    const { owner } = await team();
    const outsider = await signup(server.api);
    for (const userId of [outsider.user.id, 'not-a-uuid']) {
      const reply = await server.api.patch(memberPath(owner, userId), { token: owner.token, body: { role: 'owner' } });
      expect(reply.status).toBe(404);
      expect(reply.body.error.code).toBe('NOT_FOUND');
    }
    expect(await roles(owner.organization.id)).not.toHaveProperty(outsider.user.id);
  });
});

describe('DELETE /api/orgs/:org/members/:user', () => {
  it('removes a member, and refuses to remove the last owner with 409 CONFLICT (reason last_owner)', async () => {
    const { owner, member } = await team();
    expect((await server.api.delete(memberPath(owner, member.user.id), { token: owner.token })).status).toBe(204);
    const reply = await server.api.delete(memberPath(owner, owner.user.id), { token: owner.token });
    expect(reply.status).toBe(409);
    expect(reply.body.error).toEqual(expect.objectContaining({ code: 'CONFLICT', details: { reason: 'last_owner' } }));
    expect(await roles(owner.organization.id)).toEqual({ [owner.user.id]: 'owner' });
  });

  it('lets a member leave, but not remove others (403 FORBIDDEN)', async () => {
    const { owner, member } = await team();
    const refused = await server.api.delete(memberPath(owner, owner.user.id), { token: member.token });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    expect((await server.api.delete(memberPath(owner, member.user.id), { token: member.token })).status).toBe(204);
    expect(await roles(owner.organization.id)).toEqual({ [owner.user.id]: 'owner' });
  });
});
