import { createHash, randomFillSync } from 'node:crypto';
import { UUID_PATTERN } from '@tlm/api-schemas';

const POOL_IDS = 1_024;
const pool = new Uint8Array(16 * POOL_IDS);
let next = POOL_IDS;

/**
 * The v7 clock: the ids of one millisecond count up from a random start (RFC 9562's monotonic counter, laid out as
 * the uuid package lays out its `seq`).
 */
const clock = { msecs: Number.NEGATIVE_INFINITY, seq: 0 };

/**
 * The time ids take: read once per run of synchronous work (a batch of 500 records makes 500 ids) and again after it,
 * since each Date.now() is a system call on some virtual machines (about 70 ns here; an id costs about 150 ns without
 * it). An id made later in the same run carries the run's first millisecond, stale by at most the run's length (a few
 * milliseconds; nothing reads an id's time back), and counts up from its predecessor, so ids still sort in the order
 * they were made.
 */
let runMsecs: number | undefined;
const endRun = () => {
  runMsecs = undefined;
};
function runClock(): number {
  if (runMsecs === undefined) {
    runMsecs = Date.now();
    queueMicrotask(endRun);
  }
  return runMsecs;
}

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
  const at = next * 16;
  next += 1;
  const now = runClock();
  if (now > clock.msecs) {
    clock.msecs = now;
    clock.seq = (pool[at + 6]! << 23) | (pool[at + 7]! << 16) | (pool[at + 8]! << 8) | pool[at + 9]!;
  } else {
    clock.seq = (clock.seq + 1) | 0;
    // The counter ran over: borrow the next millisecond, as the uuid package does.
    if (clock.seq === 0) clock.msecs += 1;
  }
  return formatV7(clock.msecs, clock.seq, pool, at);
}

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
/** The text of the last millisecond formatted, `xxxxxxxx-xxxx-`: ids of one millisecond share it. */
let prefixMsecs = Number.NaN;
let prefix = '';

/**
 * The text of the v7 UUID of `msecs`, `seq` and the random bytes at `random[at + 10…15]`, exactly as the uuid
 * package's `v7({ msecs, seq, random })` writes it (ids.test.ts compares them), at a sixth of its cost: its options
 * object, byte array and generic formatting took about 600 ns of an id's 900 (with the clock's read, 0.8 µs of a
 * log's 13 to 32 µs of server CPU).
 */
export function formatV7(msecs: number, seq: number, random: Uint8Array, at: number): string {
  if (msecs !== prefixMsecs) {
    prefixMsecs = msecs;
    const hex = msecs.toString(16).padStart(12, '0');
    prefix = `${hex.slice(0, 8)}-${hex.slice(8)}-`;
  }
  return (
    prefix +
    HEX[0x70 | ((seq >>> 28) & 0x0f)]! +
    HEX[(seq >>> 20) & 0xff]! +
    '-' +
    HEX[0x80 | ((seq >>> 14) & 0x3f)]! +
    HEX[(seq >>> 6) & 0xff]! +
    '-' +
    HEX[((seq << 2) & 0xff) | (random[at + 10]! & 0x03)]! +
    HEX[random[at + 11]!]! +
    HEX[random[at + 12]!]! +
    HEX[random[at + 13]!]! +
    HEX[random[at + 14]!]! +
    HEX[random[at + 15]!]!
  );
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
