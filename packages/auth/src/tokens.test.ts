import { SignJWT, UnsecuredJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { TOKEN_LIFETIME_SECONDS, TokenIssuer } from './tokens';

const SECRET = 'a-server-secret-of-at-least-32-characters';
const USER_ID = '0190d6a4-7c3e-7a51-9e4b-3f0c2a1b5d6e';
const issuer = new TokenIssuer(SECRET);
const key = new TextEncoder().encode(SECRET);

const base64url = (value: string) => Buffer.from(value, 'utf8').toString('base64url');

describe('TokenIssuer.issue', () => {
  it('signs an HS256 JWT with sub = user id, iss = tlm, the session epoch and a 12 hour lifetime', async () => {
    const before = Math.floor(Date.now() / 1000);
    const token = await issuer.issue(USER_ID, 3);
    const after = Math.floor(Date.now() / 1000);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT' });
    const claims = decodeJwt(token);
    expect(Object.keys(claims).sort()).toEqual(['exp', 'iat', 'iss', 'sev', 'sub']);
    expect(claims['sev']).toBe(3);
    expect(claims.sub).toBe(USER_ID);
    expect(claims.iss).toBe('tlm');
    expect(claims.iat).toBeGreaterThanOrEqual(before);
    expect(claims.iat).toBeLessThanOrEqual(after);
    expect(TOKEN_LIFETIME_SECONDS).toBe(43_200);
    expect(claims.exp! - claims.iat!).toBe(43_200);
  });
});

describe('TokenIssuer.verify', () => {
  it('returns the user id and session epoch of a token it issued', async () => {
    expect(await issuer.verify(await issuer.issue(USER_ID, 2))).toEqual({ userId: USER_ID, sessionEpoch: 2 });
  });

  it('accepts a token of another issuer instance with the same secret (every service shares it)', async () => {
    expect(await new TokenIssuer(SECRET).verify(await issuer.issue(USER_ID, 0))).toEqual({ userId: USER_ID, sessionEpoch: 0 });
  });

  it.each([
    ['no expiry', (jwt: SignJWT) => jwt.setIssuedAt()],
    ['no issue time', (jwt: SignJWT) => jwt.setExpirationTime('1h')],
  ])('returns null for a token with %s', async (_label, claims) => {
    const token = await claims(new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(USER_ID).setIssuer('tlm')).sign(key);
    expect(await issuer.verify(token)).toBeNull();
  });

  it.each([['a subject that is not a user id', { sub: 'not-a-uuid' }], ['a session epoch that is not a whole number', { sev: 1.5 }]])(
    'returns null for a token with %s',
    async (_label, claims) => {
      const token = await new SignJWT('sev' in claims ? { sev: claims.sev } : {})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('sub' in claims ? claims.sub : USER_ID)
        .setIssuer('tlm')
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(key);
      expect(await issuer.verify(token)).toBeNull();
    },
  );

  it('returns null for a token whose payload was changed', async () => {
    const [header, , signature] = (await issuer.issue(USER_ID, 0)).split('.');
    const forged = base64url(JSON.stringify({ sub: 'someone-else', iss: 'tlm', iat: 1, exp: 4_102_444_800 }));
    expect(await issuer.verify(`${header}.${forged}.${signature}`)).toBeNull();
  });

  it('returns null for a token whose signature was changed', async () => {
    const token = await issuer.issue(USER_ID, 0);
    // The signature's first character: its last one also carries two padding bits, so A and B can decode the same.
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const changed = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
    expect(await issuer.verify(`${header}.${payload}.${changed}`)).toBeNull();
  });

  it('returns null for an expired token', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(USER_ID)
      .setIssuer('tlm')
      .setIssuedAt(now - 13 * 3600)
      .setExpirationTime(now - 3600)
      .sign(key);
    expect(await issuer.verify(expired)).toBeNull();
  });

  it("returns null for an unsigned token (alg: 'none')", async () => {
    const unsigned = new UnsecuredJWT({}).setSubject(USER_ID).setIssuer('tlm').setIssuedAt().setExpirationTime('1h').encode();
    expect(decodeProtectedHeader(unsigned).alg).toBe('none');
    expect(await issuer.verify(unsigned)).toBeNull();
  });

  it('returns null for a token signed with the same secret but another algorithm (the algorithm is pinned)', async () => {
    const hs512 = await new SignJWT({}).setProtectedHeader({ alg: 'HS512' }).setSubject(USER_ID).setIssuer('tlm').setExpirationTime('1h').sign(key);
    expect(await issuer.verify(hs512)).toBeNull();
  });

  it('returns null for a token signed with a foreign secret', async () => {
    const foreign = await new TokenIssuer('another-secret-that-is-also-32-characters').issue(USER_ID, 0);
    expect(await issuer.verify(foreign)).toBeNull();
  });

  it('returns null for a token of another issuer', async () => {
    const other = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(USER_ID).setIssuer('someone').setExpirationTime('1h').sign(key);
    expect(await issuer.verify(other)).toBeNull();
  });

  it('returns null for a token without an issuer', async () => {
    const anonymous = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(USER_ID).setExpirationTime('1h').sign(key);
    expect(await issuer.verify(anonymous)).toBeNull();
  });

  it('returns null for a valid token without a subject', async () => {
    const subjectless = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setIssuer('tlm').setExpirationTime('1h').sign(key);
    expect(await issuer.verify(subjectless)).toBeNull();
  });

  it.each([['an empty string', ''], ['garbage', 'not.a.token'], ['an API key', 'tlm_sk_us_Ab3dEf6hIj9lMn2pQr5tUv8xYz1B4c7D']])(
    'returns null for %s',
    async (_label, token) => {
      expect(await issuer.verify(token)).toBeNull();
    },
  );
});
