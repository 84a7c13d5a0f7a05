import { createHash, randomFillSync } from 'node:crypto';
import { UUID_PATTERN } from '@tlm/api-schemas';
import { v7 } from 'uuid';

const POOL_IDS = 1_024;
const pool = new Uint8Array(16 * POOL_IDS);
let next = POOL_IDS;

/**
 * The v7 clock: the ids of one millisecond count up from a random start (RFC 9562's monotonic counter, as the uuid
 * package keeps it for calls without options; given its own random bits, it keeps none).
 */
const clock = { msecs: Number.NEGATIVE_INFINITY, seq: 0 };

/**
 * Time-ordered UUID (v7) for every stored resource and row, so ids sort by creation, within a millisecond too. The
 * random bits come from a pool filled 16 KB at a time: one system call per 1,024 ids instead of one per id on the
 * ingest hot path.
 */
export function newId(): string {
  if (next === POOL_IDS) {
    randomFillSync(pool);
    next = 0;
  }
  const random = pool.subarray(next * 16, next * 16 + 16);
  next += 1;
  const now = Date.now();
  if (now > clock.msecs) {
    clock.msecs = now;
    clock.seq = (random[6]! << 23) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
  } else {
    clock.seq = (clock.seq + 1) | 0;
    // The counter ran over: borrow the next millisecond, as the uuid package does.
    if (clock.seq === 0) clock.msecs += 1;
  }
  return v7({ random, msecs: clock.msecs, seq: clock.seq });
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

const UUID = new RegExp(UUID_PATTERN);

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
