import { randomFillSync } from 'node:crypto';
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

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
