// First: the thread pool's size is read when the pool is first used.
import './threadpool';
import path from 'node:path';
import { createLogger, exitOnSignals, infoThen, loadConfig } from '@tlm/core';
import { start } from '@tlm/runtime';
import { StandaloneConfig, startStandalone } from './index';
import { openUrl } from './openUrl';

start(async () => {
  const config = loadConfig(StandaloneConfig);
  const logger = createLogger('standalone', config.LOG_LEVEL);
  const standalone = await startStandalone(config, logger);
  const url = openUrl(config.HOST, standalone.port);
  const dataDir = path.resolve(config.DATA_DIR);
  // Then a line for the person who ran `make start`; on stderr, so stdout stays JSON lines for machines.
  infoThen(logger, { url, host: config.HOST, port: standalone.port, data_dir: dataDir }, 'tlm standalone listening', () =>
    process.stderr.write(
      `\ntlm is running: open ${url} in a browser. Docs: README.md and docs/; the API's description: ` +
        `${url}/v1/openapi.json. Data: ${dataDir}. Stop with Ctrl-C.\n\n`,
    ),
  );
  exitOnSignals(logger, standalone.close);
});
