#!/usr/bin/env node
// Prints the directory `make test` gives the suites as TMPDIR: one in /dev/shm when it is a memory file system (tmpfs)
// with room to spare, else the system's. Every test server, the metadata template, chDB and the Kafka broker keep
// their data under TMPDIR; in memory their fsyncs and file copies cost nothing (a test server starts about 0.7 s
// sooner), and the suites still run on a real file system, with the same files, locks and renames. What a killed run
// leaves there stays in memory until the machine restarts (the whole run used at most 259 MB).
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** Room the whole run needs at most, with a margin: test servers delete their data directories when they close. */
const NEEDED_BYTES = 4 * 1024 ** 3;
/** statfs's f_type of tmpfs. */
const TMPFS_MAGIC = 0x01021994;

function memoryTmpdir() {
  try {
    const stats = fs.statfsSync('/dev/shm');
    if (stats.type !== TMPFS_MAGIC || stats.bavail * stats.bsize < NEEDED_BYTES) return undefined;
    const uid = process.getuid();
    const dir = path.join('/dev/shm', `tlm-test-${uid}`);
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    // /dev/shm is everyone's: only a directory of this user's own that no one else may enter (not a link another user
    // made beforehand) is taken.
    const own = fs.lstatSync(dir);
    if (!own.isDirectory() || own.uid !== uid || (own.mode & 0o077) !== 0) return undefined;
    fs.accessSync(dir, fs.constants.W_OK);
    return dir;
  } catch {
    return undefined;
  }
}

process.stdout.write(`${memoryTmpdir() ?? os.tmpdir()}\n`);
