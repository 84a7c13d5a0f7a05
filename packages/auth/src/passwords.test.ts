import { scryptSync } from 'node:crypto';
import { hashPassword, needsRehash, verifyPassword } from './passwords';

const PASSWORD = 'correct horse battery staple';

describe('hashPassword', () => {
  it("stores scheme, cost parameters (OWASP's N = 2^17, r = 8, p = 1 by default), a 16-byte salt and a 32-byte key, joined by $", async () => {
    const stored = await hashPassword(PASSWORD);
    const [scheme, n, r, p, salt, key, ...rest] = stored.split('$');
    expect([scheme, n, r, p]).toEqual(['scrypt', '131072', '8', '1']);
    expect(Buffer.from(salt!, 'base64')).toHaveLength(16);
    expect(Buffer.from(key!, 'base64')).toHaveLength(32);
    expect(rest).toEqual([]);
  });

  it('is scrypt of the password with the stored salt and parameters', async () => {
    const [, , , , salt, key] = (await hashPassword(PASSWORD, 16_384)).split('$');
    const expected = scryptSync(PASSWORD, Buffer.from(salt!, 'base64'), 32, { N: 16_384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
    expect(key).toBe(expected.toString('base64'));
  });

  it('salts every hash, so one password stored twice looks different', async () => {
    expect(await hashPassword(PASSWORD)).not.toBe(await hashPassword(PASSWORD));
  });

  it('never contains the password', async () => {
    expect(await hashPassword(PASSWORD)).not.toContain(PASSWORD);
  });
});

describe('verifyPassword', () => {
  let stored: string;
  beforeAll(async () => {
    stored = await hashPassword(PASSWORD);
  });

  it('accepts the right password', async () => {
    expect(await verifyPassword(PASSWORD, stored)).toBe(true);
  });

  it('rejects a wrong password, including one that differs only in case or trailing space', async () => {
    expect(await verifyPassword('wrong password', stored)).toBe(false);
    expect(await verifyPassword(PASSWORD.toUpperCase(), stored)).toBe(false);
    expect(await verifyPassword(`${PASSWORD} `, stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('verifies with the parameters stored beside the hash, so costs can be raised later', async () => {
    const salt = Buffer.from('0123456789abcdef');
    const key = scryptSync(PASSWORD, salt, 32, { N: 1_024, r: 8, p: 1 });
    const cheaper = ['scrypt', 1_024, 8, 1, salt.toString('base64'), key.toString('base64')].join('$');
    expect(await verifyPassword(PASSWORD, cheaper)).toBe(true);
    expect(await verifyPassword('wrong password', cheaper)).toBe(false);
  });

  it.each([
    ['an empty string', ''],
    ['another scheme', 'bcrypt$2b$10$abcdefghijklmnopqrstuv'],
    ['a hash without its key', 'scrypt$16384$8$1$c2FsdHNhbHRzYWx0c2FsdA=='],
    ['a key that decodes to no bytes', 'scrypt$16384$8$1$c2FsdHNhbHRzYWx0c2FsdA==$!!!!'],
  ])('rejects any password against %s', async (_label, malformed) => {
    expect(await verifyPassword(PASSWORD, malformed)).toBe(false);
    expect(await verifyPassword('', malformed)).toBe(false);
  });
});

describe('needsRehash', () => {
  it('asks to redo a hash made with a lower N than the cost, and not one made with it', async () => {
    const old = await hashPassword(PASSWORD, 16_384);
    expect(needsRehash(old)).toBe(true);
    expect(needsRehash(old, 16_384)).toBe(false);
    expect(needsRehash(await hashPassword(PASSWORD))).toBe(false);
  });

  it('asks to redo a hash of another scheme or block size', () => {
    expect(needsRehash('bcrypt$10$x$y')).toBe(true);
    expect(needsRehash('scrypt$131072$4$1$c2FsdA==$a2V5')).toBe(true);
  });
});
