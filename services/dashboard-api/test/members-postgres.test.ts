import { TEST_POSTGRES_URL, postgresUnavailableReason, serverOnPostgres, signup, uniqueEmail } from '@tlm/testkit';

/**
 * Member changes and invitation links at the same moment, on the Postgres server where concurrent requests really
 * overlap: the organization keeps an owner, and a link works once.
 */

const postgresUnavailable = postgresUnavailableReason();
if (postgresUnavailable) console.log(`skipping the member races on Postgres: ${TEST_POSTGRES_URL} does not answer (${postgresUnavailable})`);
(postgresUnavailable ? describe.skip : describe)('members and invitations on the Postgres server', () => {
  const postgres = serverOnPostgres();

  it('lets only one of two owners demoting each other at the same moment succeed, and keeps an owner', async () => {
    for (let round = 0; round < 5; round += 1) {
      const alice = await signup(postgres.server.api);
      const bob = await signup(postgres.server.api);
      const orgId = alice.organization.id;
      expect((await postgres.server.api.post(`/api/orgs/${orgId}/members`, { token: alice.token, body: { email: bob.user.email, role: 'owner' } })).status).toBe(201);
      const replies = await Promise.all([
        postgres.server.api.patch(`/api/orgs/${orgId}/members/${bob.user.id}`, { token: alice.token, body: { role: 'member' } }),
        postgres.server.api.patch(`/api/orgs/${orgId}/members/${alice.user.id}`, { token: bob.token, body: { role: 'member' } }),
      ]);
      expect(replies.filter((reply) => reply.status === 200)).toHaveLength(1);
      // The other is refused as the last owner (409 CONFLICT), or, when it was let in after the first had finished, as
      // no longer an owner (403 FORBIDDEN).
      const refused = replies.find((reply) => reply.status !== 200)!;
      expect([403, 409]).toContain(refused.status);
      expect(refused.body.error.code).toBe(refused.status === 409 ? 'CONFLICT' : 'FORBIDDEN');
      const owners = await postgres.server.standalone.metadata.query<{ n: number }>(
        `select count(*)::int as n from memberships where org_id = $1 and role = 'owner'`,
        [orgId],
      );
      expect(owners[0]!.n).toBe(1);
    }
  });

  it('accepts an invitation link sent three times at the same moment once, and creates one account', async () => {
    const owner = await signup(postgres.server.api);
    for (let round = 0; round < 5; round += 1) {
      const email = uniqueEmail('race');
      const invited = await postgres.server.api.post(`/api/orgs/${owner.organization.id}/invitations`, { token: owner.token, body: { email, role: 'member' } });
      expect(invited.status).toBe(201);
      const token = invited.body.accept_url.split('#token=')[1];
      const replies = await Promise.all(
        [0, 1, 2].map(() => postgres.server.api.post('/api/invitations/accept', { body: { token, password: 'long enough password' } })),
      );
      expect(replies.filter((reply) => reply.status === 201)).toHaveLength(1);
      for (const reply of replies.filter((candidate) => candidate.status !== 201)) {
        // Refused as used, or as a second account for the address (the winner's insert came first).
        expect([404, 409]).toContain(reply.status);
      }
      const users = await postgres.server.standalone.metadata.query('select id from users where lower(email) = lower($1)', [email]);
      expect(users).toHaveLength(1);
    }
  });
});
