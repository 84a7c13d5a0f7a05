import { hashPassword } from '@tlm/auth';
import { startTestServer, uniqueEmail, type TestServer } from '@tlm/testkit';

/** Password hashes: scrypt at PASSWORD_COST (2^17 by default) for new ones; older, cheaper ones are redone at log-in. */

const PASSWORD = 'correct horse battery staple';
let server: TestServer;

beforeAll(async () => {
  // The real default cost, which the other suites lower for speed.
  server = await startTestServer({ PASSWORD_COST: '131072' });
});
afterAll(() => server.close());

async function storedCost(email: string): Promise<string> {
  const [row] = await server.standalone.metadata.query<{ password_hash: string }>('select password_hash from users where email = $1', [email]);
  return row!.password_hash.split('$').slice(0, 4).join('$');
}

it('hashes a new password with scrypt at N = 2^17, r = 8, p = 1', async () => {
  const email = uniqueEmail('cost');
  expect((await server.api.post('/api/auth/signup', { body: { email, password: PASSWORD } })).status).toBe(201);
  expect(await storedCost(email)).toBe('scrypt$131072$8$1');
});

it('redoes a cheaper hash at the next successful log-in, and the password still works', async () => {
  const email = uniqueEmail('rehash');
  expect((await server.api.post('/api/auth/signup', { body: { email, password: PASSWORD } })).status).toBe(201);
  await server.standalone.metadata.query('update users set password_hash = $2 where email = $1', [email, await hashPassword(PASSWORD, 16_384)]);
  expect(await storedCost(email)).toBe('scrypt$16384$8$1');

  const wrong = await server.api.post('/api/auth/login', { body: { email, password: 'not the password' } });
  expect(wrong.status).toBe(401);
  expect(await storedCost(email)).toBe('scrypt$16384$8$1');

  expect((await server.api.post('/api/auth/login', { body: { email, password: PASSWORD } })).status).toBe(200);
  expect(await storedCost(email)).toBe('scrypt$131072$8$1');
  expect((await server.api.post('/api/auth/login', { body: { email, password: PASSWORD } })).status).toBe(200);
});
