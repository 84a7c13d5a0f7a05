/**
 * A deterministic random number generator (mulberry32) for tests that draw many inputs: the same seed gives the same
 * inputs on every run, so a failure names an input that fails again. Kept apart from the rest of the testkit so unit
 * suites can use it without loading a server.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
