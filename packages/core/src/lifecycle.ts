import type { Logger } from './logger';

/**
 * Runs `shutdown` once on the first SIGTERM or SIGINT and exits when it settles. A repeated SIGTERM while draining
 * changes nothing: supervisors send it more than once (make forwards the group's SIGTERM to its recipe), and the
 * drain finishes. A second SIGINT, Ctrl-C pressed again, exits at once.
 */
export function exitOnSignals(logger: Logger, shutdown: () => Promise<void>): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      if (signal === 'SIGTERM') {
        logger.info({ signal }, 'already draining');
        return;
      }
      logger.warn({ signal }, 'second interrupt, exiting without draining');
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
