/** Event ids remembered by default: between one and two million of the newest, in at most 32 MB. */
export const RECENT_EVENTS = 1_000_000;

/**
 * The event ids of the errors stored most recently, per project: an SDK's retry of an event, or the log scanner's
 * second look at a log, is stored and counted once. Sentry keeps the same memory for an hour
 * (docs/decisions.md "Issue counts follow the rows"); this keeps the newest one to two million ids whatever their
 * age, found again in the error rows when the processor starts.
 *
 * Ids are kept as 64-bit hashes of (project, event id) in two generations of open-addressed tables: when the current
 * one holds `capacity` ids it becomes the previous one, and the previous one is dropped. Two different events share a
 * hash about once in 10^13 lookups; the later one would be taken for a retry.
 */
export class RecentEventIds {
  private current = new IdTable();
  private previous = new IdTable();

  constructor(private readonly capacity = RECENT_EVENTS) {}

  has(projectId: string, eventId: string): boolean {
    hashPair(projectId, eventId);
    return this.current.has(hashHigh, hashLow) || this.previous.has(hashHigh, hashLow);
  }

  add(projectId: string, eventId: string): void {
    hashPair(projectId, eventId);
    if (this.previous.has(hashHigh, hashLow)) return;
    if (this.current.size >= this.capacity) {
      const emptied = this.previous;
      emptied.clear();
      this.previous = this.current;
      this.current = emptied;
    }
    this.current.add(hashHigh, hashLow);
  }

  /** Forgets every id. */
  clear(): void {
    this.current.clear();
    this.previous.clear();
  }

  get size(): number {
    return this.current.size + this.previous.size;
  }
}

const INITIAL_SLOTS = 1 << 12;

/** A set of 64-bit keys (two int32 halves) with linear probing; (0, 0) marks an empty slot. Grows at half full. */
class IdTable {
  private keys = new Int32Array(INITIAL_SLOTS * 2);
  private mask = INITIAL_SLOTS - 1;
  size = 0;

  has(high: number, low: number): boolean {
    const keys = this.keys;
    for (let slot = low & this.mask; ; slot = (slot + 1) & this.mask) {
      const storedHigh = keys[slot * 2]!;
      const storedLow = keys[slot * 2 + 1]!;
      if (storedHigh === high && storedLow === low) return true;
      if (storedHigh === 0 && storedLow === 0) return false;
    }
  }

  add(high: number, low: number): void {
    if ((this.size + 1) * 2 > this.mask + 1) this.grow();
    if (this.insert(high, low)) this.size += 1;
  }

  clear(): void {
    if (this.size === 0) return;
    this.keys = new Int32Array(INITIAL_SLOTS * 2);
    this.mask = INITIAL_SLOTS - 1;
    this.size = 0;
  }

  /** True when the key was not there. */
  private insert(high: number, low: number): boolean {
    const keys = this.keys;
    for (let slot = low & this.mask; ; slot = (slot + 1) & this.mask) {
      const storedHigh = keys[slot * 2]!;
      const storedLow = keys[slot * 2 + 1]!;
      if (storedHigh === high && storedLow === low) return false;
      if (storedHigh === 0 && storedLow === 0) {
        keys[slot * 2] = high;
        keys[slot * 2 + 1] = low;
        return true;
      }
    }
  }

  private grow(): void {
    const old = this.keys;
    this.keys = new Int32Array(old.length * 2);
    this.mask = old.length - 1;
    for (let index = 0; index < old.length; index += 2) {
      if (old[index] !== 0 || old[index + 1] !== 0) this.insert(old[index]!, old[index + 1]!);
    }
  }
}

/** The last hashPair result, in two int32 halves: no object per lookup on a path taken for every error. */
let hashHigh = 0;
let hashLow = 0;

/** Two 32-bit multiplicative hash lanes over both strings (cyrb53's mixing), never (0, 0). */
function hashPair(projectId: string, eventId: string): void {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let index = 0; index < projectId.length; index++) {
    const code = projectId.charCodeAt(index);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  // A separator, so ('ab', 'c') and ('a', 'bc') differ.
  h1 = Math.imul(h1 ^ 0xff, 2654435761);
  h2 = Math.imul(h2 ^ 0xff, 1597334677);
  for (let index = 0; index < eventId.length; index++) {
    const code = eventId.charCodeAt(index);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  hashHigh = h1 | 0;
  hashLow = h2 === 0 && h1 === 0 ? 1 : h2 | 0;
}
