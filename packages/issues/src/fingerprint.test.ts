import type { StackFrame } from '@tlm/signals';
import { FINGERPRINT_VERSION, fingerprintOf, normalizeFileName, normalizeMessage } from './fingerprint';
import { culpritOf, issueIdOf, titleOf, userKeyOf } from './grouping';

const frame = (fn: string | null, filename: string | null, inApp: boolean, lineno = 10): StackFrame => ({
  function: fn,
  filename,
  module: null,
  lineno,
  colno: 3,
  in_app: inApp,
  abs_path: null,
  context_line: null,
});

const error = (overrides: { type?: string; value?: string; frames?: StackFrame[]; fingerprint?: string[] | null }) => ({
  type: 'TypeError',
  value: "Cannot read properties of undefined (reading 'id')",
  frames: [] as StackFrame[],
  fingerprint: null,
  ...overrides,
});

describe('fingerprint fp1', () => {
  it('hashes type, function and file of the innermost in-app frame, ignoring lines and vendor frames', () => {
    const stack = [frame('main', 'src/server.ts', true), frame('charge', 'src/billing.ts', true, 42), frame('request', 'node_modules/axios/index.js', false)];
    const fingerprint = fingerprintOf(error({ frames: stack }));
    expect(fingerprint.version).toBe(FINGERPRINT_VERSION);
    expect(fingerprint.components).toEqual(['frame', 'TypeError', 'charge', 'src/billing.ts']);
    expect(fingerprint.hash).toMatch(/^[0-9a-f]{32}$/);
    const moved = [frame('main', 'src/server.ts', true, 99), frame('charge', 'src/billing.ts', true, 57), frame('get', 'node_modules/got/index.js', false)];
    expect(fingerprintOf(error({ frames: moved, value: 'another message' })).hash).toBe(fingerprint.hash);
    expect(fingerprintOf(error({ frames: stack, type: 'RangeError' })).hash).not.toBe(fingerprint.hash);
  });

  it('uses the innermost frame when no frame is in-app', () => {
    const stack = [frame('outer', 'lib/a.js', false), frame('inner', 'lib/b.js', false)];
    expect(fingerprintOf(error({ frames: stack })).components).toEqual(['frame', 'TypeError', 'inner', 'lib/b.js']);
  });

  it('uses type and the normalised message without frames, so ids and numbers do not split issues', () => {
    const a = fingerprintOf(error({ type: 'NotFound', value: 'order 1234 of user 0b6e1f7c-3a52-4d8e-9b1a-2c3d4e5f6a7b at 0x7ffe12' }));
    const b = fingerprintOf(error({ type: 'NotFound', value: 'order 98 of user 11111111-2222-4333-8444-555555555555 at 0xdead' }));
    expect(a.components).toEqual(['message', 'NotFound', 'order <num> of user <uuid> at <hex>']);
    expect(b.hash).toBe(a.hash);
    expect(fingerprintOf(error({ type: 'NotFound', value: 'invoice 12 missing' })).hash).not.toBe(a.hash);
  });

  it('uses the client list instead, with {{ default }} expanding to the default components', () => {
    const stack = [frame('charge', 'src/billing.ts', true)];
    const custom = fingerprintOf(error({ frames: stack, fingerprint: ['payment-provider-down'] }));
    expect(custom.components).toEqual(['payment-provider-down']);
    const extended = fingerprintOf(error({ frames: stack, fingerprint: ['{{ default }}', 'tenant-7'] }));
    expect(extended.components).toEqual(['frame', 'TypeError', 'charge', 'src/billing.ts', 'tenant-7']);
    expect(fingerprintOf(error({ frames: stack, fingerprint: ['{{default}}'] })).hash).toBe(fingerprintOf(error({ frames: stack })).hash);
  });

  it('is stable: these hashes are a compatibility promise (docs/fingerprinting.md) and must never change', () => {
    expect(fingerprintOf(error({ frames: [frame('charge', 'src/billing.ts', true)] })).hash).toBe('3c092905242d37776f3bbfad57164983');
    expect(fingerprintOf(error({ type: 'NotFound', value: 'order 7 missing' })).hash).toBe('9d57ea836e86df0e6345b11616358e28');
  });
});

describe('normalisation', () => {
  it('drops query, fragment, scheme and host and replaces content hashes in file names', () => {
    expect(normalizeFileName('https://cdn.example.com/static/js/main.3f2a9c1b.js?v=2#x')).toBe('/static/js/main.<hash>.js');
    expect(normalizeFileName('app:///dist/chunk-9f8e7d6c5b.js')).toBe('/dist/chunk-<hash>.js');
    expect(normalizeFileName('src/billing.ts')).toBe('src/billing.ts');
  });

  it('replaces UUIDs, hex values and numbers in messages', () => {
    expect(normalizeMessage('id 0B6E1F7C-3A52-4D8E-9B1A-2C3D4E5F6A7B hash deadbeef12 addr 0xFF took 12.5ms')).toBe(
      'id <uuid> hash <hex> addr <hex> took <num>ms',
    );
  });
});

describe('issue fields', () => {
  it('derives one UUID per project and fingerprint', () => {
    const id = issueIdOf('0190d6a4-7c3e-7a51-9e4b-3f0c2a1b5d6e', 'a'.repeat(32));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(issueIdOf('0190d6a4-7c3e-7a51-9e4b-3f0c2a1b5d6e', 'a'.repeat(32))).toBe(id);
    expect(issueIdOf('0190d6a4-7c3e-7a51-9e4b-3f0c2a1b5d6f', 'a'.repeat(32))).not.toBe(id);
  });

  it('titles an issue type: value (first line) and names the culprit function in file', () => {
    expect(titleOf({ type: 'TypeError', value: 'x is undefined\n  at y' })).toBe('TypeError: x is undefined');
    expect(titleOf({ type: '', value: 'disk almost full' })).toBe('disk almost full');
    expect(titleOf({ type: 'Error', value: '' })).toBe('Error');
    expect(culpritOf({ frames: [frame('charge', 'src/billing.ts', true), frame('get', 'lib.js', false)], tags: {} })).toBe('charge in src/billing.ts');
    expect(culpritOf({ frames: [], tags: { transaction: 'POST /pay' } })).toBe('POST /pay');
  });

  it('identifies a user by id, else email, else ip, else username', () => {
    expect(userKeyOf({ user: { id: 'u1', email: 'a@example.com' } })).toBe('id:u1');
    expect(userKeyOf({ user: { email: 'a@example.com', ip: '203.0.113.9' } })).toBe('email:a@example.com');
    expect(userKeyOf({ user: { ip: '203.0.113.9' } })).toBe('ip:203.0.113.9');
    expect(userKeyOf({ user: {} })).toBeNull();
  });
});
