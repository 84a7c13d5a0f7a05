/*
 * A KafkaBus consumer in a process of its own, which the live Kafka suite kills mid-batch to show what a crashed
 * consumer leaves behind. It runs the bus's TypeScript sources as they are (compiled on load by @swc/core, @tlm/*
 * packages mapped to their sources, as jest maps them).
 *
 * Environment: KAFKA_BROKERS, NAME_PREFIX (of the suite's topics and groups), GROUP, RUN (the tag of the suite's
 * messages), SWC_CORE (where @swc/core is).
 * Handles each batch with the suite's messages: a batch holding n = 1 is processed; the first one holding a larger n is
 * reported on stdout ("received <json>") and never finishes, as if the process died while writing it.
 */
'use strict';

const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const { transformSync } = require(process.env.SWC_CORE);

const ROOT = path.join(__dirname, '..', '..', '..');

require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function resolveWorkspacePackage(request, ...rest) {
  const workspace = /^@tlm\/([a-z0-9-]+)$/.exec(request);
  return resolveFilename.call(this, workspace ? path.join(ROOT, 'packages', workspace[1], 'src', 'index.ts') : request, ...rest);
};

const { createLogger } = require('@tlm/core');
const { KafkaBus } = require('../src/kafka.ts');
const { Topics } = require('../src/topics.ts');

const say = (line) => process.stdout.write(`${line}\n`);

async function main() {
  const run = process.env.RUN;
  const bus = await KafkaBus.connect({
    brokers: process.env.KAFKA_BROKERS.split(','),
    clientId: 'tlm-test-consumer-process',
    partitions: 1,
    replicationFactor: 1,
    compression: 'none',
    instanceId: `consumer-process-${process.pid}`,
    logger: createLogger('consumer-process', 'error'),
    namePrefix: process.env.NAME_PREFIX,
    // The broker's least: the suite waits this long, once the process is killed, for its partition to move on.
    sessionTimeoutMs: 6_000,
  });
  await bus.subscribe(Topics.logs, { group: process.env.GROUP }, async (values, positions) => {
    const mine = values.flatMap((value, index) => (value.run === run ? [{ n: value.n, position: positions[index] }] : []));
    if (mine.length === 0) return;
    if (mine.some((entry) => entry.n > 1)) {
      say(`received ${JSON.stringify(mine)}`);
      await new Promise(() => undefined);
    }
    say(`processed ${JSON.stringify(mine)}`);
  });
  say('subscribed');
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
