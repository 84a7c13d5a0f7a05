import { createHash, randomFillSync } from 'node:crypto';
import { v7 } from 'uuid';

const POOL_IDS = 1_024;
const pool = new Uint8Array(16 * POOL_IDS);
let next = POOL_IDS;

/**
 * Time-ordered UUID (v7) for every stored resource and row, so ids sort by creation. The random bits come from a
 * pool filled 16 KB at a time: one system call per 1,024 ids instead of one per id on the ingest hot path.
 */
export function newId(): string {
  if (next === POOL_IDS) {
    randomFillSync(pool);
    next = 0;
  }
  const random = pool.subarray(next * 16, next * 16 + 16);
  next += 1;
  return v7({ random });
}

/**
 * A UUID named by `name`: the first 128 bits of its SHA-256 in the version 4 layout (DECISIONS.md: ids are v4 or v7).
 * The same name always gives the same id, so what is derived from a key (an issue from its fingerprint, a span from
 * its trace and span ids, the error made of a log row) gets one id however often and wherever it is computed; the
 * bits are as unpredictable as a random v4's to anyone without the name.
 */
export function namedUuid(name: string): string {
  const bytes = createHash('sha256').update(name).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
