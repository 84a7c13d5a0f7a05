import { memoized } from './memo';

describe('memoized', () => {
  it('computes a key once while it is remembered, and again after the memory was dropped', () => {
    const computed: string[] = [];
    const upper = memoized((key) => {
      computed.push(key);
      return key.toUpperCase();
    }, 2);
    expect([upper('a'), upper('b'), upper('a')]).toEqual(['A', 'B', 'A']);
    expect(computed).toEqual(['a', 'b']);
    // A third key finds the memory full: it is dropped whole, so 'a' is computed again.
    expect([upper('c'), upper('a')]).toEqual(['C', 'A']);
    expect(computed).toEqual(['a', 'b', 'c', 'a']);
  });
});
