import type { Logger } from './logger';

/**
 * Runs `shutdown` once on the first SIGTERM or SIGINT and exits when it settles; a second signal exits at once.
 */
export function exitOnSignals(logger: Logger, shutdown: () => Promise<void>): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal, exiting without draining');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'draining and closing');
    shutdown().then(
      () => {
        logger.info('stopped cleanly');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
