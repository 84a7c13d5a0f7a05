/**
 * The work running under `key` in `running`, or `start()`'s when none runs: every caller that asks while it runs
 * shares the one promise, and the key is free again once it settles.
 */
export function shared<T>(running: Map<string, Promise<T>>, key: string, start: () => Promise<T>): Promise<T> {
  let work = running.get(key);
  if (!work) {
    work = start().finally(() => running.delete(key));
    running.set(key, work);
  }
  return work;
}
