import { randomFillSync } from 'node:crypto';
import { v7 } from 'uuid';
import { formatV7, isUuid, namedUuid, newId } from './ids';

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

  it('newId keeps ids made across runs of work in the order they were made', async () => {
    const ids: string[] = [];
    for (let run = 0; run < 20; run++) {
      for (let i = 0; i < 50; i++) ids.push(newId());
      await new Promise((resolve) => setTimeout(resolve, run % 4));
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    // The time in an id is when it was made, to the millisecond of its run.
    const msecs = parseInt(ids.at(-1)!.replace(/-/g, '').slice(0, 12), 16);
    expect(Math.abs(Date.now() - msecs)).toBeLessThan(1_000);
  });

  it('formats a v7 UUID exactly as the uuid package does for the same time, counter and random bits', () => {
    const random = new Uint8Array(16 * 200);
    randomFillSync(random);
    const counters = new Uint32Array(200);
    randomFillSync(counters);
    // Times within v7's 48 bits (up to the year 10889).
    const times = [0, 1, 0xffff_ffff_ff00, Date.now(), Date.UTC(2040, 0, 1)];
    for (let i = 0; i < 200; i++) {
      const msecs = times[i % times.length]! + (i >> 3);
      const seq = i < 4 ? [0, -1, 0x7fff_ffff, 1][i]! : counters[i]! | 0;
      const at = i * 16;
      expect(formatV7(msecs, seq, random, at)).toBe(v7({ msecs, seq, random: random.subarray(at, at + 16) }));
    }
  });

  it('namedUuid gives the same v4 UUID for the same name and different ones for different names', () => {
    expect(namedUuid('project\u0000fingerprint')).toBe(namedUuid('project\u0000fingerprint'));
    expect(namedUuid('a')).not.toBe(namedUuid('b'));
    expect(namedUuid('a')).toMatch(V4);
    expect(namedUuid('')).toBe('e3b0c442-98fc-4c14-9afb-f4c8996fb924');
    expect(isUuid(namedUuid('x'))).toBe(true);
  });
});
