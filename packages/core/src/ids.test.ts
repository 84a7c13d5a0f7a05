import { isUuid, namedUuid, newId } from './ids';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('ids (DECISIONS.md: UUIDs v4 or v7)', () => {
  it('newId gives distinct v7 UUIDs that sort in the order they were made, within a millisecond too', () => {
    // Rows ordered by id (an AI conversation's turns made in one millisecond) come back in that order.
    const ids = Array.from({ length: 2_000 }, newId);
    expect(ids.every((id) => V7.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('namedUuid gives the same v4 UUID for the same name and different ones for different names', () => {
    expect(namedUuid('project\u0000fingerprint')).toBe(namedUuid('project\u0000fingerprint'));
    expect(namedUuid('a')).not.toBe(namedUuid('b'));
    expect(namedUuid('a')).toMatch(V4);
    expect(namedUuid('')).toBe('e3b0c442-98fc-4c14-9afb-f4c8996fb924');
    expect(isUuid(namedUuid('x'))).toBe(true);
  });
});
