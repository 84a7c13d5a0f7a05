#!/usr/bin/env node
/*
 * A single-node Kafka (KRaft: controller and broker in one JVM) on loopback ports, for the live test suites.
 *
 *   node deploy/kafka/broker.js run -- <command...>   starts a broker, runs the command with KAFKA_BROKERS set to it,
 *                                                     stops the broker and exits with the command's status
 *   node deploy/kafka/broker.js start                 starts a broker, prints KAFKA_BROKERS=host:port, runs until
 *                                                     interrupted
 *
 * `run` leaves the command alone when KAFKA_BROKERS is already set, and runs it without a broker (the Kafka suites then
 * skip, saying why) when Java or Maven is missing. The broker's jars come from pom.xml beside this file, resolved by
 * Maven into target/lib once per pom; each broker formats a fresh log directory in a temporary folder and removes it
 * when it stops.
 */
'use strict';

const { spawn, spawnSync } = require('node:child_process');
const { createHash, randomBytes } = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const HERE = __dirname;
const POM = path.join(HERE, 'pom.xml');
const LIB = path.join(HERE, 'target', 'lib');
/** Written after a complete resolution: the SHA-256 of the pom.xml the jars in LIB were resolved from. */
const RESOLVED_MARKER = path.join(LIB, '.pom-sha256');
const HEAP = '512m';
const START_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 30_000;

/** The Kafka version pom.xml pins. */
function kafkaVersion() {
  const match = /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(fs.readFileSync(POM, 'utf8'));
  if (!match) throw new Error(`${POM} names no kafka.version`);
  return match[1];
}

/** Kafka 4 brokers run on Java 17 or newer. */
const JAVA_MAJOR = 17;

/** The major version of the `java` on PATH, or undefined when there is none. */
function javaMajor() {
  const result = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (result.error) return undefined;
  const match = /version "(\d+)(?:\.(\d+))?/.exec(result.stderr);
  if (!match) return 0;
  // Java 8 and older call themselves 1.x.
  return match[1] === '1' ? Number(match[2]) : Number(match[1]);
}

/** Why no broker can start on this machine, or undefined when one can. */
function unavailableReason() {
  const java = javaMajor();
  if (java === undefined) return `no java on PATH (the test broker needs Java ${JAVA_MAJOR} or newer)`;
  if (java < JAVA_MAJOR) return `java on PATH is version ${java}; the test broker needs ${JAVA_MAJOR} or newer`;
  if (!resolved() && spawnSync('mvn', ['-version'], { stdio: 'ignore' }).error) return 'no mvn on PATH to resolve the Kafka broker';
  return undefined;
}

function pomHash() {
  return createHash('sha256').update(fs.readFileSync(POM)).digest('hex');
}

/** Whether target/lib holds the jars of this very pom.xml. */
function resolved() {
  return fs.existsSync(RESOLVED_MARKER) && fs.readFileSync(RESOLVED_MARKER, 'utf8').trim() === pomHash();
}

/**
 * Copies the broker's jars into target/lib unless they are there already. Maven fills a folder of its own that then
 * replaces target/lib whole, so two test processes resolving at once never share a half-filled folder, and no jar of
 * another version stays behind to shadow the pinned ones.
 */
function resolveJars(log) {
  if (resolved()) return;
  log(`resolving Kafka ${kafkaVersion()} with Maven into ${path.relative(process.cwd(), LIB)}`);
  const hash = pomHash();
  const staging = `${LIB}.${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  const result = spawnSync('mvn', ['-q', '-B', '-Dstyle.color=never', `-Dkafka.lib=${staging}`, '-f', POM, 'dependency:copy-dependencies'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw new Error(`mvn dependency:copy-dependencies failed (${result.error?.message ?? `exit ${result.status}`})`);
  }
  fs.writeFileSync(path.join(staging, path.basename(RESOLVED_MARKER)), `${hash}\n`);
  if (resolved()) {
    fs.rmSync(staging, { recursive: true, force: true });
    return;
  }
  fs.rmSync(LIB, { recursive: true, force: true });
  fs.renameSync(staging, LIB);
}

/** A port nothing listens on at the moment (the broker binds it a moment later). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Kafka's cluster id: 16 random bytes in URL-safe base64 without padding, as `kafka-storage random-uuid` prints. Like
 * Kafka's own Uuid.randomUuid it never starts with '-', which the tool's argument parser would take for an option.
 */
function clusterId() {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

function brokerProperties({ dir, brokerPort, controllerPort }) {
  return [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
    `listeners=PLAINTEXT://127.0.0.1:${brokerPort},CONTROLLER://127.0.0.1:${controllerPort}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${brokerPort}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    `log.dirs=${path.join(dir, 'data')}`,
    // One node: every internal topic has one replica, and a few partitions are plenty for tests.
    'offsets.topic.replication.factor=1',
    'offsets.topic.num.partitions=4',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'transaction.state.log.num.partitions=4',
    'share.coordinator.state.topic.replication.factor=1',
    'share.coordinator.state.topic.min.isr=1',
    'auto.create.topics.enable=true',
    'num.partitions=1',
    'default.replication.factor=1',
    'min.insync.replicas=1',
    // A group starts as soon as its first member joins, instead of waiting three seconds for more.
    'group.initial.rebalance.delay.ms=0',
    // Accepts the 64 MiB batches the bus's topics allow.
    'socket.request.max.bytes=209715200',
    'num.network.threads=2',
    'num.io.threads=4',
    'log.segment.bytes=67108864',
    '',
  ].join('\n');
}

function java(args, options) {
  return spawn('java', [`-Xmx${HEAP}`, `-Xms${HEAP}`, '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Djava.awt.headless=true', '-cp', `${LIB}${path.sep}*`, ...args], options);
}

function waitForExit(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode ?? child.signalCode);
    else child.once('exit', (code, signal) => resolve(code ?? signal));
  });
}

/** kafkajs from the bus package, which is the client the product itself uses. */
function kafkajs() {
  const { createRequire } = require('node:module');
  return createRequire(path.join(HERE, '..', '..', 'packages', 'bus', 'package.json'))('kafkajs');
}

/** Resolves once the broker answers a DescribeCluster through kafkajs. */
async function waitUntilAnswering(brokers, child, logFile) {
  const { Kafka, logLevel } = kafkajs();
  const kafka = new Kafka({ clientId: 'tlm-test-broker', brokers: [brokers], logLevel: logLevel.NOTHING, retry: { retries: 0 } });
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the Kafka broker exited (${child.exitCode ?? child.signalCode}) before it answered; see ${logFile}`);
    }
    const admin = kafka.admin();
    try {
      await admin.connect();
      const cluster = await admin.describeCluster();
      if (cluster.brokers.length > 0) return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`the Kafka broker did not answer within ${START_TIMEOUT_MS / 1000} s (${error.message}); see ${logFile}`);
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Keeps the log of a broker that failed to start, since its folder is removed: it says why. */
function keepLog(logFile) {
  const kept = path.join(os.tmpdir(), `tlm-kafka-failed-${process.pid}.log`);
  fs.copyFileSync(logFile, kept);
  return kept;
}

/** One attempt: formats a fresh log directory, starts the JVM and waits until it answers. */
async function launch() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tlm-kafka-'));
  const [brokerPort, controllerPort] = [await freePort(), await freePort()];
  const properties = path.join(dir, 'server.properties');
  fs.writeFileSync(properties, brokerProperties({ dir, brokerPort, controllerPort }));
  const logFile = path.join(dir, 'broker.log');
  const logConfig = `-Dlog4j2.configurationFile=${path.join(HERE, 'log4j2.properties')}`;
  const spawnLogged = (args) => {
    const out = fs.openSync(logFile, 'a');
    try {
      return java([logConfig, ...args], { stdio: ['ignore', out, out] });
    } finally {
      fs.closeSync(out);
    }
  };

  const formatted = await waitForExit(spawnLogged(['kafka.tools.StorageTool', 'format', '--cluster-id', clusterId(), '--config', properties]));
  if (formatted !== 0) {
    const kept = keepLog(logFile);
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`formatting the Kafka log directory failed (${formatted}); see ${kept}`);
  }

  const child = spawnLogged([`-Dkafka.logs.dir=${dir}`, 'kafka.Kafka', properties]);
  // A test process that ends without stopping its broker still takes the JVM with it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const brokers = `127.0.0.1:${brokerPort}`;

  let stopping;
  const stop = () => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
        await waitForExit(child);
        clearTimeout(timer);
      }
      process.removeListener('exit', killOnExit);
      fs.rmSync(dir, { recursive: true, force: true });
    })();
    return stopping;
  };

  try {
    await waitUntilAnswering(brokers, child, logFile);
  } catch (error) {
    const kept = keepLog(logFile);
    const exited = child.exitCode !== null || child.signalCode !== null;
    await stop();
    throw Object.assign(new Error(error.message.replace(logFile, kept)), { exited });
  }
  return { brokers, logFile, stop };
}

/**
 * Starts a broker and answers `{ brokers, version, startMs, logFile, stop() }` once it answers clients. `log` receives
 * one-line progress notes. A JVM that exits before it answers is started once more on other ports: another process
 * may have taken a free port between the look and the bind.
 */
async function startBroker({ log = () => undefined } = {}) {
  const reason = unavailableReason();
  if (reason) throw new Error(`cannot start a Kafka broker: ${reason}`);
  const startedAt = Date.now();
  resolveJars(log);
  let broker;
  try {
    broker = await launch();
  } catch (error) {
    if (!error.exited) throw error;
    log(`${error.message}; starting it once more`);
    broker = await launch();
  }
  return { ...broker, version: kafkaVersion(), startMs: Date.now() - startedAt };
}

/** Runs `command` with KAFKA_BROKERS pointing at a broker started for it; answers the command's exit status. */
async function runWithBroker(command, log) {
  let broker;
  const env = { ...process.env };
  if (env['KAFKA_BROKERS']) {
    log(`using KAFKA_BROKERS=${env['KAFKA_BROKERS']}`);
  } else {
    const reason = unavailableReason();
    if (reason) {
      log(`no test broker: ${reason}; the live Kafka suites skip`);
    } else {
      broker = await startBroker({ log });
      env['KAFKA_BROKERS'] = broker.brokers;
      log(`Kafka ${broker.version} answers at ${broker.brokers} after ${(broker.startMs / 1000).toFixed(1)} s (log: ${broker.logFile})`);
    }
  }
  const child = spawn(command[0], command.slice(1), { stdio: 'inherit', env });
  const forward = (signal) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  const status = await waitForExit(child);
  process.removeListener('SIGINT', forward);
  process.removeListener('SIGTERM', forward);
  if (broker) {
    await broker.stop();
    log('Kafka test broker stopped');
  }
  return typeof status === 'number' ? status : 1;
}

async function main(argv) {
  const log = (line) => process.stderr.write(`[kafka] ${line}\n`);
  const [mode, ...rest] = argv;
  if (mode === 'run') {
    const command = rest[0] === '--' ? rest.slice(1) : rest;
    if (command.length === 0) throw new Error('usage: broker.js run -- <command...>');
    process.exitCode = await runWithBroker(command, log);
  } else if (mode === 'start') {
    const broker = await startBroker({ log });
    process.stdout.write(`KAFKA_BROKERS=${broker.brokers}\n`);
    log(`Kafka ${broker.version} answers after ${(broker.startMs / 1000).toFixed(1)} s (log: ${broker.logFile}); Ctrl-C stops it`);
    const shutdown = () => void broker.stop().then(() => process.exit(0));
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
  } else {
    throw new Error('usage: broker.js run -- <command...> | broker.js start');
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error) => {
    process.stderr.write(`[kafka] ${error.message}\n`);
    process.exit(1);
  });
}

module.exports = { startBroker, unavailableReason, kafkaVersion };
