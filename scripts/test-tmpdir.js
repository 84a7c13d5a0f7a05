#!/usr/bin/env node
// Prints the directory `make test` gives the suites as TMPDIR: one in /dev/shm when it is a memory file system with
// room to spare, else the system's. Every test server, the metadata template, chDB and the Kafka broker keep their data
// under TMPDIR; in memory their fsyncs and file copies cost nothing (a test server starts about 0.7 s sooner), and the
// suites still run on a real file system (tmpfs), with the same files, locks and renames.
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** Room the whole run needs at most, with a margin: test servers delete their data directories when they close. */
const NEEDED_BYTES = 4 * 1024 ** 3;

function memoryTmpdir() {
  try {
    const stats = fs.statfsSync('/dev/shm');
    if (stats.bavail * stats.bsize < NEEDED_BYTES) return undefined;
    const dir = path.join('/dev/shm', `tlm-test-${os.userInfo().uid}`);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.accessSync(dir, fs.constants.W_OK);
    return dir;
  } catch {
    return undefined;
  }
}

process.stdout.write(`${memoryTmpdir() ?? os.tmpdir()}\n`);
