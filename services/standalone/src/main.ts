// First: the thread pool's size is read when the pool is first used.
import './threadpool';
import { createLogger, exitOnSignals, loadConfig } from '@tlm/core';
import { start } from '@tlm/runtime';
import { StandaloneConfig, startStandalone } from './index';

start(async () => {
  const config = loadConfig(StandaloneConfig);
  const logger = createLogger('standalone', config.LOG_LEVEL);
  const standalone = await startStandalone(config, logger);
  logger.info({ url: standalone.url, data_dir: config.DATA_DIR }, 'tlm standalone listening');
  exitOnSignals(logger, standalone.close);
});
