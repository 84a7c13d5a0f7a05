import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { open, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { metrics, waiter, type Waiter } from '@tlm/core';
import type { Topic } from './topics';

/** A journal file is closed and a new one begun once it holds this many bytes; closed files go once every group read past them. */
export const JOURNAL_SEGMENT_BYTES = 64 * 1024 * 1024;
/** Bytes before each entry's payload: payload length, its CRC-32, the first offset (64-bit) and the message count. */
const HEADER_BYTES = 4 + 4 + 8 + 4;
const ACKED_FILE = 'acked.json';

/** Where a publish landed in its topic's journal: offsets `first` to `first + count - 1`. */
export interface JournalEntry {
  topic: Topic;
  first: number;
  count: number;
}

/** An entry read back on start, with the values it holds. */
export interface JournaledBatch<T> extends JournalEntry {
  values: T[];
  /** The values as the JSON array the entry holds them in. */
  payload: Buffer;
}

interface Segment {
  file: string;
  /** Offset of its first entry. */
  first: number;
  /** Offset after its last entry. */
  end: number;
}

/** An entry appended: where it lands, and when it reaches the file and the disk. */
export interface JournalAppend {
  entry: JournalEntry;
  /** The values as the JSON array the entry holds them in (UTF-8), for a consumer that hands them on as they are. */
  payload: Buffer;
  /**
   * Resolves once the entry is written to its file: from then on it is in the operating system's page cache and
   * survives a crash of the process, which the next start reads it back from.
   */
  written: Promise<void>;
  /** Resolves once an fdatasync after the write has ended: the entry survives a crash of the machine too. */
  synced: Promise<void>;
}

interface PendingWrite {
  bytes: Buffer;
  written: Waiter;
  synced: Waiter;
}

/** A write that reached its file and waits for the next fdatasync of that file. */
interface UnsyncedWrite {
  handle: FileHandle;
  synced: Waiter;
}

export interface JournalOptions {
  /** Bytes after which a file is closed and a new one begun; JOURNAL_SEGMENT_BYTES by default. */
  segmentBytes?: number;
  /** Flushes a file's written data to the disk; fdatasync by default (tests hold it to stand for a busy disk). */
  datasync?: (handle: FileHandle) => Promise<void>;
}

const fdatasync = (handle: FileHandle): Promise<void> => handle.datasync();

/**
 * One topic's journal: its files, the file being appended to, and the writes waiting for the next write or fdatasync.
 * Writes and fdatasyncs run side by side: a write waits only for the write before it, never for a sync, so a sync that
 * waits behind other writes to the disk (a DuckDB checkpoint on the same device) holds no later entry out of the file.
 */
class TopicJournal {
  readonly segments: Segment[] = [];
  nextOffset = 0;
  private handle: FileHandle | undefined;
  private handleSize = 0;
  private waiting: PendingWrite[] = [];
  private flushing = false;
  private unsynced: UnsyncedWrite[] = [];
  private syncing = false;
  /** Files a new one replaced, left for the sync loop to close once their last writes are synced. */
  private readonly retired = new Set<FileHandle>();

  constructor(
    readonly topic: Topic,
    readonly dir: string,
    private readonly segmentBytes: number,
    private readonly datasync: (handle: FileHandle) => Promise<void>,
  ) {}

  /** Numbers the values, and writes and then fdatasyncs their entry with whatever else waits. */
  append(values: readonly unknown[]): JournalAppend {
    const entry: JournalEntry = { topic: this.topic, first: this.nextOffset, count: values.length };
    this.nextOffset += values.length;
    // The text is encoded straight into the entry, after its header: no buffer of its own to copy from.
    const text = JSON.stringify(values);
    const length = Buffer.byteLength(text);
    const bytes = Buffer.allocUnsafe(HEADER_BYTES + length);
    bytes.write(text, HEADER_BYTES, 'utf8');
    const payload = bytes.subarray(HEADER_BYTES);
    bytes.writeUInt32LE(length, 0);
    bytes.writeUInt32LE(crc32(payload), 4);
    bytes.writeBigUInt64LE(BigInt(entry.first), 8);
    bytes.writeUInt32LE(entry.count, 16);
    const written = waiter();
    const synced = waiter();
    this.waiting.push({ bytes, written, synced });
    void this.flush();
    return { entry, payload, written: written.promise, synced: synced.promise };
  }

  /** Group write: every entry appended while one write runs goes out together in the next one. */
  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0);
        try {
          const handle = await this.writable(batch[0]!.bytes.readBigUInt64LE(8));
          const bytes = batch.length === 1 ? batch[0]!.bytes : Buffer.concat(batch.map((write) => write.bytes));
          const stopTimer = metrics.journalWriteDuration.startTimer({ topic: this.topic });
          await handle.write(bytes, 0, bytes.length);
          stopTimer();
          this.handleSize += bytes.length;
          this.segments.at(-1)!.end = Number(batch.at(-1)!.bytes.readBigUInt64LE(8)) + batch.at(-1)!.bytes.readUInt32LE(16);
          for (const write of batch) {
            write.written.resolve();
            this.unsynced.push({ handle, synced: write.synced });
          }
          void this.sync();
        } catch (error) {
          for (const write of batch) {
            write.written.reject(error);
            write.synced.reject(error);
          }
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  /** Group sync: every write that reached the file while one fdatasync ran is covered by the next one. */
  private async sync(): Promise<void> {
    if (this.syncing) return;
    this.syncing = true;
    try {
      while (this.unsynced.length > 0) {
        const batch = this.unsynced.splice(0);
        // One file's writes, or two when a new file was begun meanwhile: the older first.
        for (const handle of new Set(batch.map((write) => write.handle))) {
          const writes = batch.filter((write) => write.handle === handle);
          try {
            const stopTimer = metrics.journalSyncDuration.startTimer({ topic: this.topic });
            await this.datasync(handle);
            stopTimer();
            for (const write of writes) write.synced.resolve();
          } catch (error) {
            for (const write of writes) write.synced.reject(error);
          }
          // A replaced file is closed after the sync that covers its last write: writes that reached it while this
          // sync ran are still waiting for the next one.
          if (this.retired.has(handle) && !this.unsynced.some((write) => write.handle === handle)) {
            this.retired.delete(handle);
            await handle.close().catch(() => undefined);
          }
        }
      }
    } finally {
      this.syncing = false;
    }
  }

  /** The file to append to: the current one, or a new one named by its first offset once the current one is full. */
  private async writable(firstOffset: bigint): Promise<FileHandle> {
    if (this.handle && this.handleSize < this.segmentBytes) return this.handle;
    const full = this.handle;
    this.handle = undefined;
    // A file whose last writes wait for their sync is closed by the sync loop after it: writes go on meanwhile.
    if (full && this.syncing) this.retired.add(full);
    else await full?.close();
    const first = Number(firstOffset);
    const file = path.join(this.dir, `${String(first).padStart(16, '0')}.log`);
    this.handle = await open(file, 'a');
    this.handleSize = 0;
    this.segments.push({ file, first, end: first });
    // The new file's name must survive a crash too, or its entries would be unreachable.
    syncDirectory(this.dir);
    return this.handle;
  }

  /** Takes the closed files every group has read past off the list, for the caller to remove. */
  takeBefore(offset: number): string[] {
    const files: string[] = [];
    while (this.segments.length > 1 && this.segments[0]!.end <= offset) files.push(this.segments.shift()!.file);
    return files;
  }

  async close(): Promise<void> {
    while (this.flushing || this.waiting.length > 0 || this.syncing) await new Promise((resolve) => setTimeout(resolve, 5));
    await this.handle?.close();
    this.handle = undefined;
  }
}

function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * The ingest journal of the standalone server: every publish to a journaled topic is appended to an append-only file
 * per topic before it is answered, and flushed to disk right after, so a 202 is durable without waiting for the
 * analytics store to commit (its checkpoints hold commits for seconds). Each consumer group's progress is the offset below which it has
 * processed every entry; it is written to `acked.json` shortly after it moves, and on start every entry above it is
 * delivered again. Files every group has read past are removed.
 */
export class IngestJournal {
  private readonly topics = new Map<Topic, TopicJournal>();
  /** Per topic and group: the offset below which every entry is processed, and the entries processed above it. */
  private readonly acked = new Map<Topic, Map<string, { through: number; done: Map<number, number> }>>();
  private ackedChanged = false;
  /** The progress being written by persistInBackground. */
  private persisting: Promise<void> | undefined;

  private constructor(readonly dir: string) {}

  /** Opens (or creates) the journal in `dir`: reads the groups' progress and cuts a torn last entry off each topic's file. */
  static open(dir: string, topics: readonly Topic[], options: JournalOptions = {}): IngestJournal {
    mkdirSync(dir, { recursive: true });
    const journal = new IngestJournal(dir);
    const ackedPath = path.join(dir, ACKED_FILE);
    const stored = existsSync(ackedPath) ? (JSON.parse(readFileSync(ackedPath, 'utf8')) as Record<string, Record<string, number>>) : {};
    for (const topic of topics) {
      const topicDir = path.join(dir, topic);
      mkdirSync(topicDir, { recursive: true });
      const topicJournal = new TopicJournal(topic, topicDir, options.segmentBytes ?? JOURNAL_SEGMENT_BYTES, options.datasync ?? fdatasync);
      const groups = new Map<string, { through: number; done: Map<number, number> }>();
      for (const [group, through] of Object.entries(stored[topic] ?? {})) groups.set(group, { through, done: new Map() });
      journal.acked.set(topic, groups);
      for (const name of readdirSync(topicDir).filter((file) => file.endsWith('.log')).sort()) {
        const file = path.join(topicDir, name);
        const first = Number(name.slice(0, -4));
        const end = scanSegment(file, first);
        // An empty file holds nothing to deliver, and the next append would start a file of the same name.
        if (end === first) rmSync(file);
        else topicJournal.segments.push({ file, first, end });
      }
      const through = Math.max(0, ...[...groups.values()].map((group) => group.through));
      topicJournal.nextOffset = Math.max(topicJournal.segments.at(-1)?.end ?? 0, through);
      journal.topics.set(topic, topicJournal);
    }
    return journal;
  }

  journals(topic: Topic): boolean {
    return this.topics.has(topic);
  }

  append(topic: Topic, values: readonly unknown[]): JournalAppend {
    return this.topicJournal(topic).append(values);
  }

  /**
   * The entries of `topic` that `group` has not processed, oldest first, read from disk (on start, before anything new
   * is published). A group the journal has never seen starts at the oldest entry kept.
   */
  *unprocessed<T>(topic: Topic, group: string): Generator<JournaledBatch<T>> {
    const through = this.groupProgress(topic, group).through;
    for (const segment of this.topicJournal(topic).segments) {
      if (segment.end <= through) continue;
      for (const batch of readSegment<T>(segment.file, topic)) {
        if (batch.first + batch.count > through) yield batch;
      }
    }
  }

  /** Records that `group` has processed an entry; its progress moves once every entry below is processed too. */
  processed(entry: JournalEntry, group: string): void {
    const progress = this.groupProgress(entry.topic, group);
    if (entry.first + entry.count <= progress.through) return;
    progress.done.set(entry.first, entry.first + entry.count);
    let next = progress.done.get(progress.through);
    while (next !== undefined) {
      progress.done.delete(progress.through);
      progress.through = next;
      next = progress.done.get(progress.through);
    }
    this.ackedChanged = true;
  }

  /** Offsets published to `topic` and not yet processed by `group`. */
  behind(topic: Topic, group: string): number {
    return this.topicJournal(topic).nextOffset - this.groupProgress(topic, group).through;
  }

  /**
   * Writes the groups' progress (atomically, by rename) when it moved, and removes the files that every group of
   * `groups` has read past. Synchronous: for start-up and close, when nothing else waits on the event loop.
   */
  persist(groups: ReadonlyMap<Topic, readonly string[]>): void {
    const progress = this.takeProgress();
    if (progress === undefined) return;
    writeFileSync(progress.temporary, progress.text);
    renameSync(progress.temporary, progress.target);
    for (const file of this.readPast(groups)) rmSync(file, { force: true });
  }

  /**
   * `persist` on the thread pool, for the running server: a synchronous write and rename every 100 ms would hold the
   * event loop (and every request with it) for as long as the disk takes, which is longest while DuckDB checkpoints.
   * One at a time; a call while one runs does nothing (the next call writes what moved meanwhile).
   */
  async persistInBackground(groups: ReadonlyMap<Topic, readonly string[]>): Promise<void> {
    if (this.persisting) return;
    const progress = this.takeProgress();
    if (progress === undefined) return;
    this.persisting = (async () => {
      try {
        await writeFile(progress.temporary, progress.text);
        await rename(progress.temporary, progress.target);
        await Promise.all(this.readPast(groups).map((file) => rm(file, { force: true })));
      } catch (error) {
        // Written again by the next call.
        this.ackedChanged = true;
        throw error;
      } finally {
        this.persisting = undefined;
      }
    })();
    return this.persisting;
  }

  /** The groups' progress as acked.json's text, when it moved since it was last taken. */
  private takeProgress(): { temporary: string; target: string; text: string } | undefined {
    if (!this.ackedChanged) return undefined;
    this.ackedChanged = false;
    const stored: Record<string, Record<string, number>> = {};
    for (const [topic, progress] of this.acked) {
      stored[topic] = Object.fromEntries([...progress].map(([group, { through }]) => [group, through]));
    }
    return { temporary: path.join(this.dir, `${ACKED_FILE}.tmp`), target: path.join(this.dir, ACKED_FILE), text: JSON.stringify(stored) };
  }

  /** Takes the closed files that every group of `groups` has read past off the journal's list; the caller removes them. */
  private readPast(groups: ReadonlyMap<Topic, readonly string[]>): string[] {
    const files: string[] = [];
    for (const [topic, names] of groups) {
      if (names.length === 0) continue;
      files.push(...this.topicJournal(topic).takeBefore(Math.min(...names.map((name) => this.groupProgress(topic, name).through))));
    }
    return files;
  }

  /** Resolves once a write begun by persistInBackground has ended (whether or not it succeeded). */
  async backgroundPersistEnded(): Promise<void> {
    await this.persisting?.catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.backgroundPersistEnded();
    for (const topic of this.topics.values()) await topic.close();
  }

  private topicJournal(topic: Topic): TopicJournal {
    const found = this.topics.get(topic);
    if (!found) throw new Error(`${topic} is not journaled`);
    return found;
  }

  private groupProgress(topic: Topic, group: string): { through: number; done: Map<number, number> } {
    const groups = this.acked.get(topic)!;
    let progress = groups.get(group);
    if (!progress) {
      progress = { through: this.topicJournal(topic).segments[0]?.first ?? this.topicJournal(topic).nextOffset, done: new Map() };
      groups.set(group, progress);
    }
    return progress;
  }
}

interface WholeEntry {
  first: number;
  count: number;
  payload: Buffer;
  /** Byte position after the entry. */
  next: number;
}

/** A segment's whole entries in order; stops at the first incomplete or damaged one (a write a crash cut short). */
function* wholeEntries(bytes: Buffer): Generator<WholeEntry> {
  let at = 0;
  while (at + HEADER_BYTES <= bytes.length) {
    const length = bytes.readUInt32LE(at);
    const next = at + HEADER_BYTES + length;
    if (next > bytes.length) return;
    const payload = bytes.subarray(at + HEADER_BYTES, next);
    if (crc32(payload) !== bytes.readUInt32LE(at + 4)) return;
    yield { first: Number(bytes.readBigUInt64LE(at + 8)), count: bytes.readUInt32LE(at + 16), payload, next };
    at = next;
  }
}

function* readSegment<T>(file: string, topic: Topic): Generator<JournaledBatch<T>> {
  for (const entry of wholeEntries(readFileSync(file))) {
    // A copy: a slice would hold the whole segment's buffer until its last entry is processed.
    yield { topic, first: entry.first, count: entry.count, values: JSON.parse(entry.payload.toString('utf8')) as T[], payload: Buffer.from(entry.payload) };
  }
}

/**
 * The offset after a segment's last whole entry. A torn entry at the end was never answered (its publish waits for the
 * flush), so it is cut off and appends continue after the last whole one.
 */
function scanSegment(file: string, first: number): number {
  let end = first;
  let size = 0;
  for (const entry of wholeEntries(readFileSync(file))) {
    end = entry.first + entry.count;
    size = entry.next;
  }
  if (size < statSync(file).size) truncateSync(file, size);
  return end;
}
