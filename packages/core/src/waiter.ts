/** A promise with its resolve and reject at hand, settled by whoever finishes the work it waits for. */
export interface Waiter {
  promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

/** A new waiter; a rejection nobody awaits (a delivery answered before its work) never fails the process. */
export function waiter(): Waiter {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((onResolve, onReject) => {
    resolve = onResolve;
    reject = onReject;
  });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}
