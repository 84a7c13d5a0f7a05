/**
 * `compute` remembered for its recent arguments: grouping sees the same few fingerprints, files and issues over and
 * over, and each costs a hash or a few regular expressions. The memory is dropped whole once it holds `max` entries.
 */
export function memoized<T>(compute: (key: string) => T, max = 10_000): (key: string) => T {
  const recent = new Map<string, T>();
  return (key) => {
    let value = recent.get(key);
    if (value === undefined) {
      value = compute(key);
      if (recent.size >= max) recent.clear();
      recent.set(key, value);
    }
    return value;
  };
}
