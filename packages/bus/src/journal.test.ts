import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApiError, metrics } from '@tlm/core';
import type { Delivery } from './bus';
import { DataError, type DeadLetterPolicy } from './deadLetter';
import { EmbeddedBus, type JournalSync } from './embedded';
import { IngestJournal, type JournalOptions } from './journal';
import { Topics } from './topics';

/**
 * The embedded bus with its ingest journal, on real files: a publish is answered once its entry is on disk and
 * processed or the commit wait passed; a process that stops without processing it delivers it again on the next start,
 * marked as redelivered; a torn last entry is cut off; files every group read past are removed.
 */

const TOPICS = [Topics.logs, Topics.errors];
const GROUP = { group: 'writer' };

let dir: string;
let open: EmbeddedBus[];
let abandoned: IngestJournal[];

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tlm-journal-'));
  open = [];
  abandoned = [];
});
afterEach(async () => {
  for (const bus of open) await bus.close().catch(() => undefined);
  for (const journal of abandoned) await journal.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

function journaledBus(
  options: { commitWaitMs?: number; maxBehind?: number; deadLetters?: DeadLetterPolicy; journalSync?: JournalSync } & JournalOptions = {},
): EmbeddedBus {
  const bus = new EmbeddedBus({
    journal: IngestJournal.open(dir, TOPICS, { segmentBytes: options.segmentBytes, datasync: options.datasync }),
    commitWaitMs: options.commitWaitMs ?? 50,
    maxBehind: options.maxBehind,
    journalSync: options.journalSync,
    ...(options.deadLetters ? { deadLetters: options.deadLetters } : {}),
  });
  open.push(bus);
  return bus;
}

/**
 * A process that stops without closing anything: its bus is dropped where it stands (its timers stopped). Its
 * journal's files are closed after the test, as the operating system closes a stopped process's files.
 */
function dropWithoutClosing(bus: EmbeddedBus): void {
  open.splice(open.indexOf(bus), 1);
  const dropped = bus as unknown as { persistTimer: NodeJS.Timeout; journal: IngestJournal };
  clearInterval(dropped.persistTimer);
  abandoned.push(dropped.journal);
}

/**
 * A disk that holds every fdatasync until `release` (a sync behind a DuckDB checkpoint's writes on the same device), or
 * fails them; `started` counts the syncs begun. The syncs are real once released.
 */
function heldDisk(failure?: Error): { datasync: NonNullable<JournalOptions['datasync']>; release: () => void; started: () => number } {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let started = 0;
  return {
    datasync: async (handle) => {
      started += 1;
      await held;
      if (failure) throw failure;
      await handle.datasync();
    },
    release,
    started: () => started,
  };
}

/** This process's open files in `folder` (Linux: the links of /proc/self/fd). */
const openFilesIn = (folder: string): string[] =>
  readdirSync('/proc/self/fd')
    .map((fd) => {
      try {
        return readlinkSync(path.join('/proc/self/fd', fd));
      } catch {
        return '';
      }
    })
    .filter((target) => target.startsWith(`${folder}/`));

const pending = <T>(promise: Promise<T>): Promise<boolean> =>
  Promise.race([promise.then(() => false, () => false), sleep(0).then(() => true)]);

const messages = (...values: number[]) => values.map((value) => ({ key: 'project-1', value }));
const never = () => new Promise<void>(() => undefined);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Received {
  values: number[];
  redelivered: boolean;
}

function recorder(): { received: Received[]; handler: (values: number[], positions: unknown, delivery?: Delivery) => Promise<void> } {
  const received: Received[] = [];
  return {
    received,
    handler: async (values, _positions, delivery) => {
      received.push({ values, redelivered: delivery?.redelivered ?? false });
    },
  };
}

/** Few quick attempts, so a poison message is set aside within a fraction of a second. */
const QUICK: DeadLetterPolicy = { attempts: 3, backoffMs: 5, maxBackoffMs: 20 };

async function until(condition: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + 10_000; !condition(); await sleep(10)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

const deadLetterFile = (topic: string) => path.join(dir, `${topic}.dead.jsonl`);
const deadLettersIn = (topic: string) =>
  existsSync(deadLetterFile(topic))
    ? readFileSync(deadLetterFile(topic), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
    : [];
const deadLetterCount = async (topic: string, group: string) =>
  (await metrics.busDeadLetters.get()).values.find((sample) => sample.labels['topic'] === topic && sample.labels['group'] === group)?.value ?? 0;

describe('the ingest journal', () => {
  it('answers a publish whose consumer is slow after the commit wait, and still delivers it once', async () => {
    const bus = journaledBus({ commitWaitMs: 30 });
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const received: number[][] = [];
    await bus.subscribe<number>(Topics.logs, GROUP, async (values) => {
      await slow;
      received.push(values);
    });
    await bus.publish(Topics.logs, messages(1, 2, 3));
    expect(received).toEqual([]);
    release();
    await bus.close();
    expect(received).toEqual([[1, 2, 3]]);

    // Processed before the close, so a new start has nothing to deliver.
    const again = journaledBus();
    const next = recorder();
    await again.subscribe(Topics.logs, GROUP, next.handler);
    expect(await again.replayJournal()).toBe(0);
    expect(next.received).toEqual([]);
  });

  it('times each fdatasync of the journal in tlm_ingest_journal_sync_seconds, by topic', async () => {
    const syncs = async (topic: string) =>
      (await metrics.journalSyncDuration.get()).values.find((value) => value.metricName === 'tlm_ingest_journal_sync_seconds_count' && value.labels['topic'] === topic)?.value ?? 0;
    const [logsBefore, errorsBefore] = [await syncs(Topics.logs), await syncs(Topics.errors)];
    const bus = journaledBus();
    await bus.subscribe(Topics.logs, GROUP, recorder().handler);
    await bus.publish(Topics.logs, messages(1));
    await bus.publish(Topics.logs, messages(2));
    expect(await syncs(Topics.logs)).toBe(logsBefore + 2);
    expect(await syncs(Topics.errors)).toBe(errorsBefore);
  });

  it('counts in tlm_ingest_answered_early_total each answer the commit wait gave before the rows or the sync were done', async () => {
    const early = async (pending: string) =>
      (await metrics.ingestAnsweredEarly.get()).values.find((value) => value.labels['topic'] === Topics.logs && value.labels['pending'] === pending)?.value ?? 0;
    const before = { commit: await early('commit'), sync: await early('sync') };
    const disk = heldDisk();
    const bus = journaledBus({ commitWaitMs: 200, datasync: disk.datasync });
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    let slowConsumer = true;
    await bus.subscribe<number>(Topics.logs, GROUP, async () => {
      if (slowConsumer) await slow;
    });
    // The consumer and the disk both held: answered before the rows were committed.
    await bus.publish(Topics.logs, messages(1));
    expect(await early('commit')).toBe(before.commit + 1);
    expect(await early('sync')).toBe(before.sync);
    // The rows committed at once, the disk still held: answered before the sync.
    slowConsumer = false;
    release();
    await bus.publish(Topics.logs, messages(2));
    expect(await early('commit')).toBe(before.commit + 1);
    expect(await early('sync')).toBe(before.sync + 1);
    // Both done within the wait: not counted.
    disk.release();
    await bus.publish(Topics.logs, messages(3));
    expect(await early('commit')).toBe(before.commit + 1);
    expect(await early('sync')).toBe(before.sync + 1);
  });

  it('delivers again, marked as redelivered, what a stopped process answered but never processed', async () => {
    const first = journaledBus({ commitWaitMs: 10 });
    await first.subscribe<number>(Topics.logs, GROUP, never);
    await first.subscribe<number>(Topics.errors, GROUP, async () => undefined);
    await first.publish(Topics.logs, messages(1, 2));
    await first.publish(Topics.logs, messages(3));
    await first.publish(Topics.errors, messages(9));
    await sleep(250);
    dropWithoutClosing(first);

    const second = journaledBus();
    const logs = recorder();
    const errors = recorder();
    await second.subscribe(Topics.logs, GROUP, logs.handler);
    await second.subscribe(Topics.errors, GROUP, errors.handler);
    expect(await second.replayJournal()).toBe(3);
    expect(logs.received.flatMap((batch) => batch.values)).toEqual([1, 2, 3]);
    expect(logs.received.every((batch) => batch.redelivered)).toBe(true);
    // The error was processed and its progress written before the stop.
    expect(errors.received).toEqual([]);

    // New messages are numbered after the old ones and delivered as new.
    await second.publish(Topics.logs, messages(4));
    expect(logs.received.at(-1)).toEqual({ values: [4], redelivered: false });
    await second.close();
    const third = journaledBus();
    const none = recorder();
    await third.subscribe(Topics.logs, GROUP, none.handler);
    expect(await third.replayJournal()).toBe(0);
  });

  it('hands each batch over with the JSON arrays its publishes were journaled as, in order, on first delivery and on replay', async () => {
    const bus = journaledBus({ commitWaitMs: 10 });
    const seen: { values: unknown[]; encoded: string[] | undefined }[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await bus.subscribe<unknown>(Topics.logs, GROUP, async (values, _positions, delivery) => {
      seen.push({ values, encoded: delivery?.encoded?.map((bytes) => bytes.toString('utf8')) });
      if (seen.length === 1) await held;
    });
    const first = bus.publish(Topics.logs, [{ key: 'p', value: { text: 'héllo "quoted"\n' } }]);
    await until(() => seen.length === 1, 'the first delivery');
    // Two publishes arriving while the handler is busy go over together, each with its own array.
    const grouped = [bus.publish(Topics.logs, messages(2, 3)), bus.publish(Topics.logs, messages(4))];
    await sleep(20);
    release();
    await Promise.all([first, ...grouped]);
    expect(seen).toEqual([
      { values: [{ text: 'héllo "quoted"\n' }], encoded: ['[{"text":"héllo \\"quoted\\"\\n"}]'] },
      { values: [2, 3, 4], encoded: ['[2,3]', '[4]'] },
    ]);
    await bus.close();

    // Unprocessed entries on a new start come with the same bytes, read back from the file.
    const unprocessed = journaledBus({ commitWaitMs: 10 });
    await unprocessed.subscribe<number>(Topics.logs, GROUP, never);
    await unprocessed.publish(Topics.logs, messages(5, 6));
    dropWithoutClosing(unprocessed);
    const replayed: (string[] | undefined)[] = [];
    const again = journaledBus();
    await again.subscribe<number>(Topics.logs, GROUP, async (_values, _positions, delivery) => {
      replayed.push(delivery?.encoded?.map((bytes) => bytes.toString('utf8')));
    });
    await again.replayJournal();
    expect(replayed).toEqual([['[5,6]']]);
  });

  it('hands over a retried part of a failed batch without its journaled bytes, which hold the whole batch', async () => {
    const bus = journaledBus({ commitWaitMs: 10, deadLetters: QUICK });
    const seen: { values: number[]; encoded: boolean }[] = [];
    await bus.subscribe<number>(Topics.logs, GROUP, async (values, _positions, delivery) => {
      seen.push({ values, encoded: delivery?.encoded !== undefined });
      if (seen.length === 1) {
        await sleep(30);
        throw new Error('a checkpoint failed');
      }
    });
    await bus.publish(Topics.logs, messages(1, 2));
    await until(() => seen.length >= 2, 'the retry');
    expect(seen[0]).toEqual({ values: [1, 2], encoded: true });
    expect(seen.slice(1).every((call) => !call.encoded)).toBe(true);
  });

  it('fails a publish whose consumer fails within the commit wait, and never delivers it again', async () => {
    const bus = journaledBus({ commitWaitMs: 5_000 });
    await bus.subscribe<number>(Topics.logs, GROUP, async () => {
      throw new Error('the store refused the rows');
    });
    await expect(bus.publish(Topics.logs, messages(1))).rejects.toThrow('the store refused the rows');
    await bus.close();

    const again = journaledBus();
    const next = recorder();
    await again.subscribe(Topics.logs, GROUP, next.handler);
    expect(await again.replayJournal()).toBe(0);
  });

  it('delivers again, with backoff, a batch whose consumer fails after its publish was answered', async () => {
    const bus = journaledBus({ commitWaitMs: 10 });
    const attempts: Received[] = [];
    await bus.subscribe<number>(Topics.logs, GROUP, async (values, _positions, delivery) => {
      attempts.push({ values, redelivered: delivery?.redelivered ?? false });
      if (attempts.length === 1) {
        await sleep(50);
        throw new Error('a checkpoint failed');
      }
    });
    await bus.publish(Topics.logs, messages(7));
    await sleep(400);
    await bus.close();
    expect(attempts).toEqual([
      { values: [7], redelivered: false },
      { values: [7], redelivered: true },
    ]);
  });

  it('sets a journaled message that keeps failing with a data error aside in <topic>.dead.jsonl, and stores the others', async () => {
    const bus = journaledBus({ commitWaitMs: 10, deadLetters: QUICK });
    const stored: number[] = [];
    let calls = 0;
    await bus.subscribe<number>(Topics.logs, { group: 'poison-writer' }, async (values) => {
      calls += 1;
      // The first call fails after the publish was answered, as a slow insert does.
      if (calls === 1) await sleep(50);
      if (values.includes(13)) throw new DataError('13 is not a log');
      stored.push(...values);
    });
    await bus.publish(Topics.logs, messages(11, 12, 13, 14));
    await until(() => stored.includes(14), 'the message after the poison one');
    expect(stored).toEqual([11, 12, 14]);
    expect(deadLettersIn(Topics.logs)).toEqual([
      { topic: Topics.logs, offset: 2, group: 'poison-writer', error: 'DataError: 13 is not a log', attempts: 3, at: expect.stringMatching(/^\d{4}-/), value: 13 },
    ]);
    expect(await deadLetterCount(Topics.logs, 'poison-writer')).toBe(1);
    await bus.close();

    // The entry counts as processed: nothing is delivered again on the next start.
    const again = journaledBus();
    await again.subscribe(Topics.logs, { group: 'poison-writer' }, recorder().handler);
    expect(await again.replayJournal()).toBe(0);
  });

  it('sets aside a message failing with an error no rule names once another message was stored after it began to fail', async () => {
    const bus = journaledBus({ commitWaitMs: 10, deadLetters: QUICK });
    const stored: number[] = [];
    await bus.subscribe<number>(Topics.errors, { group: 'proof-writer' }, async (values) => {
      await sleep(20);
      if (values.includes(21)) throw new TypeError("Cannot read properties of undefined (reading 'exception')");
      stored.push(...values);
    });
    await bus.publish(Topics.errors, messages(21));
    // Only failures so far: the store may be down, so the message waits.
    await sleep(200);
    expect(deadLettersIn(Topics.errors)).toEqual([]);
    await bus.publish(Topics.errors, messages(22));
    await until(() => deadLettersIn(Topics.errors).length === 1, 'the dead letter');
    expect(stored).toEqual([22]);
    expect(deadLettersIn(Topics.errors)[0]).toMatchObject({ offset: 0, group: 'proof-writer', error: "TypeError: Cannot read properties of undefined (reading 'exception')", value: 21 });
  });

  it('retries a journaled batch without end, and sets nothing aside, while every message fails as when the store is down', async () => {
    const bus = journaledBus({ commitWaitMs: 10, deadLetters: QUICK });
    const stored: number[] = [];
    let failures = 0;
    await bus.subscribe<number>(Topics.logs, { group: 'down-writer' }, async (values) => {
      await sleep(20);
      // Far more failed calls than the attempts of one message, with an error no rule names.
      if (failures < 12 * QUICK.attempts) {
        failures += 1;
        throw new Error('the analytics store went away');
      }
      stored.push(...values);
    });
    await bus.publish(Topics.logs, messages(31, 32, 33));
    await bus.publish(Topics.logs, messages(34));
    await until(() => stored.length === 4, 'every message once the store is back');
    expect(stored.sort()).toEqual([31, 32, 33, 34]);
    expect(deadLettersIn(Topics.logs)).toEqual([]);
    expect(await deadLetterCount(Topics.logs, 'down-writer')).toBe(0);
  });

  it('refuses publishes with 503 while a consumer is further behind than allowed, and writes nothing', async () => {
    const bus = journaledBus({ commitWaitMs: 5, maxBehind: 3 });
    await bus.subscribe<number>(Topics.logs, GROUP, never);
    await bus.publish(Topics.logs, messages(1, 2, 3, 4));
    const refused = await bus.publish(Topics.logs, messages(5)).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(503);
    expect((refused as ApiError).headers).toEqual({ 'Retry-After': '1' });
    dropWithoutClosing(bus);

    const again = journaledBus();
    const next = recorder();
    await again.subscribe(Topics.logs, GROUP, next.handler);
    await again.replayJournal();
    expect(next.received.flatMap((batch) => batch.values)).toEqual([1, 2, 3, 4]);
  });

  it('cuts off a torn last entry and appends after the last whole one', async () => {
    const first = journaledBus({ commitWaitMs: 5 });
    await first.subscribe<number>(Topics.logs, GROUP, never);
    await first.publish(Topics.logs, messages(1));
    await first.publish(Topics.logs, messages(2));
    dropWithoutClosing(first);
    const logDir = path.join(dir, Topics.logs);
    const [file] = readdirSync(logDir);
    const whole = statSync(path.join(logDir, file!)).size;
    // A write the crash cut short: a header announcing more bytes than follow.
    appendFileSync(path.join(logDir, file!), Buffer.from([200, 0, 0, 0, 1, 2, 3]));

    const second = journaledBus({ commitWaitMs: 5 });
    await second.subscribe<number>(Topics.logs, GROUP, never);
    expect(statSync(path.join(logDir, file!)).size).toBe(whole);
    await second.publish(Topics.logs, messages(3));
    dropWithoutClosing(second);

    const third = journaledBus();
    const next = recorder();
    await third.subscribe(Topics.logs, GROUP, next.handler);
    expect(await third.replayJournal()).toBe(3);
    expect(next.received.flatMap((batch) => batch.values)).toEqual([1, 2, 3]);
  });

  it('answers after the commit wait while the disk holds the fdatasync, with the entry in its file for the next start', async () => {
    const disk = heldDisk();
    const first = journaledBus({ commitWaitMs: 20, datasync: disk.datasync });
    const received = recorder();
    await first.subscribe(Topics.logs, GROUP, received.handler);
    await first.publish(Topics.logs, messages(1, 2));
    await first.publish(Topics.logs, messages(3));
    // Both answered and delivered while the first sync is still held; the second entry did not wait for it to be written.
    expect(disk.started()).toBe(1);
    expect(received.received.map((batch) => batch.values)).toEqual([[1, 2], [3]]);
    // The process stops with the sync still held: what it wrote is in the file (the page cache outlives the process).
    dropWithoutClosing(first);

    const second = journaledBus();
    const again = recorder();
    await second.subscribe(Topics.logs, { group: 'another-writer' }, again.handler);
    await second.replayJournal();
    expect(again.received.flatMap((batch) => batch.values)).toEqual([1, 2, 3]);
    disk.release();
  });

  it('with JOURNAL_SYNC=always, answers only once the fdatasync ends, however long the disk takes', async () => {
    const disk = heldDisk();
    const bus = journaledBus({ commitWaitMs: 20, datasync: disk.datasync, journalSync: 'always' });
    const received = recorder();
    await bus.subscribe(Topics.logs, GROUP, received.handler);
    const publish = bus.publish(Topics.logs, messages(1));
    await sleep(100);
    expect(await pending(publish)).toBe(true);
    // Delivered meanwhile: the commit does not wait for the sync either.
    expect(received.received).toHaveLength(1);
    disk.release();
    await publish;
    expect(await pending(publish)).toBe(false);
  });

  it('with JOURNAL_SYNC=bounded, waits for a quick fdatasync: the answer follows both the commit and the sync', async () => {
    const disk = heldDisk();
    const bus = journaledBus({ commitWaitMs: 5_000, datasync: disk.datasync });
    await bus.subscribe(Topics.logs, GROUP, recorder().handler);
    const publish = bus.publish(Topics.logs, messages(1));
    await sleep(50);
    expect(await pending(publish)).toBe(true);
    disk.release();
    await publish;
  });

  it('fails a publish whose fdatasync fails before the answer', async () => {
    const disk = heldDisk(new Error('EIO: i/o error, fdatasync'));
    const bus = journaledBus({ commitWaitMs: 5_000, datasync: disk.datasync });
    await bus.subscribe(Topics.logs, GROUP, recorder().handler);
    const publish = bus.publish(Topics.logs, messages(1));
    disk.release();
    await expect(publish).rejects.toThrow('EIO: i/o error, fdatasync');
  });

  it('begins a new file while the last writes of the full one wait for their sync, and closes the full one after it', async () => {
    const disk = heldDisk();
    const bus = journaledBus({ commitWaitMs: 10, segmentBytes: 64, datasync: disk.datasync });
    await bus.subscribe<string>(Topics.logs, { group: 'slow-writer' }, never);
    for (let n = 0; n < 3; n++) await bus.publish(Topics.logs, [{ key: 'p', value: `${n}`.repeat(100) }]);
    // Each entry fills a file; all three written while the first sync is held, and all three still open.
    const logDir = path.join(dir, Topics.logs);
    expect(readdirSync(logDir)).toHaveLength(3);
    expect(openFilesIn(logDir)).toHaveLength(3);
    disk.release();
    // Once synced, the full files are closed; the one being appended to stays open.
    await until(() => openFilesIn(logDir).length === 1, 'the full files to be closed');
    expect(openFilesIn(logDir)).toEqual([path.join(logDir, readdirSync(logDir).sort().at(-1)!)]);
    dropWithoutClosing(bus);

    const again = journaledBus();
    const next = recorder();
    await again.subscribe(Topics.logs, { group: 'slow-writer' }, next.handler);
    expect(await again.replayJournal()).toBe(3);
    expect(next.received.flatMap((batch) => batch.values)).toEqual(['0'.repeat(100), '1'.repeat(100), '2'.repeat(100)]);
  });

  it('syncs the writes that reached a full file during its last sync before it closes it', async () => {
    const disk = heldDisk();
    // Entries of about 120 bytes: two fit a file of 200, the third begins a new one.
    const bus = journaledBus({ commitWaitMs: 10, segmentBytes: 200, datasync: disk.datasync, journalSync: 'always' });
    await bus.subscribe<string>(Topics.logs, GROUP, async () => undefined);
    const written = () => readdirSync(path.join(dir, Topics.logs)).reduce((bytes, file) => bytes + statSync(path.join(dir, Topics.logs, file)).size, 0);
    const publishes: Promise<void>[] = [];
    for (let n = 0; n < 3; n++) {
      const before = written();
      publishes.push(bus.publish(Topics.logs, [{ key: 'p', value: `${n}`.repeat(100) }]));
      await until(() => written() > before, `entry ${n} to be written`);
    }
    // The first sync is still held; the second entry reached the first file after it began, the third a new file.
    expect(disk.started()).toBe(1);
    expect(readdirSync(path.join(dir, Topics.logs))).toHaveLength(2);
    disk.release();
    await Promise.all(publishes);
    await until(() => openFilesIn(path.join(dir, Topics.logs)).length === 1, 'the full file to be closed');
  });

  it('removes the files every group has read past', async () => {
    const bus = journaledBus({ commitWaitMs: 1_000, segmentBytes: 64 });
    await bus.subscribe<string>(Topics.logs, GROUP, async () => undefined);
    for (let n = 0; n < 5; n++) await bus.publish(Topics.logs, [{ key: 'p', value: 'x'.repeat(100) }]);
    await sleep(250);
    // Each entry fills a file; all but the one being appended to are read past.
    expect(readdirSync(path.join(dir, Topics.logs))).toHaveLength(1);
  });
});
