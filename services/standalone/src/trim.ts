import { metrics, type Logger } from '@tlm/core';

/**
 * Gives memory that glibc's allocator holds freed back to the system, at a bounded rate. DuckDB's threads allocate
 * and free through glibc's arenas, which keep what was freed for reuse: under steady ingest the process's resident
 * size kept growing while the memory in use did not (docs/performance.md "Soak"). DuckDB can trim after each large
 * free itself, but that ran so often that it halved the rate of small inserts; one `malloc_trim(0)` every
 * MEMORY_TRIM_INTERVAL_MS, run on a thread of the pool (koffi's asynchronous call) so the event loop never waits for
 * it, keeps the cost to one walk of the arenas per interval.
 *
 * Only where the C library is glibc (Linux); elsewhere, or when the library cannot be loaded, it does nothing.
 */
export interface MemoryTrim {
  stop(): void;
}

type TrimCall = { async(pad: number, done: (error: unknown, released: number) => void): void };

async function loadTrim(): Promise<TrimCall | null> {
  if (process.platform !== 'linux') return null;
  const koffi = (await import('koffi')).default;
  // glibc's name; musl (Alpine) has neither this file nor malloc_trim, and loading fails.
  return koffi.load('libc.so.6').func('int malloc_trim(size_t pad)') as unknown as TrimCall;
}

export async function startMemoryTrim(intervalMs: number, logger: Logger): Promise<MemoryTrim> {
  if (intervalMs <= 0) return { stop: () => undefined };
  let trim: TrimCall | null;
  try {
    trim = await loadTrim();
  } catch (error) {
    logger.warn({ err: error }, 'freed memory cannot be given back to the system here: malloc_trim is not available');
    trim = null;
  }
  if (!trim) return { stop: () => undefined };
  const call = trim;
  let running = false;
  let stopped = false;
  const timer = setInterval(() => {
    if (running || stopped) return;
    running = true;
    const started = performance.now();
    call.async(0, (error) => {
      running = false;
      if (error) logger.warn({ err: error }, 'malloc_trim failed');
      else metrics.memoryTrimSeconds.observe((performance.now() - started) / 1000);
    });
  }, intervalMs).unref();
  return {
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}
