/**
 * Runs `work` at once when `wait` (ms) has passed, else on a timer after it; answers the timer, if any. The timer never
 * holds the process open: the counter and the snapshot writer that use it finish their work when they are closed.
 */
export function runAfter(wait: number, work: () => void): NodeJS.Timeout | undefined {
  if (wait <= 0) {
    work();
    return undefined;
  }
  const timer = setTimeout(work, wait);
  timer.unref();
  return timer;
}
