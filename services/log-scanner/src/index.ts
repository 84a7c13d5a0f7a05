import { Type } from '@sinclair/typebox';
import { runScanPass, type LogScannerDeps, type ScanOptions, type ScanReport } from './scanner';

export { errorIdOfLog, logErrorRecord, type ScannedLog } from './records';
export { runScanPass, type LogScannerDeps, type ScanOptions, type ScanReport } from './scanner';
export { parseTrace, type ParsedTrace, type ParsedException, type ChainedException } from './traces';

export const logScannerConfig = {
  LOG_SCAN_INTERVAL_MS: Type.Integer({
    minimum: 1_000,
    default: 60_000,
    description: 'How often the log scanner turns new error and fatal logs into errors (every 60 seconds by default).',
  }),
  LOG_SCAN_LOOKBACK_MS: Type.Integer({
    minimum: 60_000,
    default: 3_600_000,
    description: 'How far back each scanner pass looks for logs without an error (the last hour by default).',
  }),
  LOG_SCAN_MAX_ROWS: Type.Integer({
    minimum: 1,
    default: 10_000,
    description: 'Most log rows one scanner pass turns into errors; the rest wait for the next pass.',
  }),
};

export interface LogScanner {
  /** Runs a pass now, after the one in progress in this process if any. */
  runPass(): Promise<ScanReport>;
  /** Stops the timer and waits for the pass in progress. */
  stop(): Promise<void>;
}

/** Passes every `intervalMs`, one at a time in this process (and fleet-wide through the scanner lock). */
export function startLogScanner(deps: LogScannerDeps, options: ScanOptions & { intervalMs: number }): LogScanner {
  let queue: Promise<unknown> = Promise.resolve();
  const runPass = (): Promise<ScanReport> => {
    const pass = queue.then(async () => {
      const report = await runScanPass(deps, options);
      if (report.published > 0) deps.logger.info({ published: report.published }, 'log scanner pass published errors');
      return report;
    });
    queue = pass.catch(() => undefined);
    return pass;
  };
  const timer = setInterval(() => {
    runPass().catch((error: unknown) => deps.logger.error({ err: error }, 'log scanner pass failed'));
  }, options.intervalMs);
  timer.unref();
  return {
    runPass,
    stop: async () => {
      clearInterval(timer);
      await queue;
    },
  };
}
