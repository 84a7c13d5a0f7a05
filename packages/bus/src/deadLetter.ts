import { Type } from '@sinclair/typebox';

export const deadLetterConfig = {
  BUS_DEAD_LETTER_ATTEMPTS: Type.Integer({
    minimum: 1,
    default: 5,
    description:
      'Failed attempts at one message, alone, before it is set aside (Kafka: on `<topic>.dead`; standalone: in JOURNAL_DIR (default DATA_DIR/journal) as <topic>.dead.jsonl): only for a data error, or once another message of its topic was processed after it began to fail; a store that is down is retried without end (docs/architecture.md, Dead letters).',
  }),
  BUS_RETRY_BACKOFF_MS: Type.Integer({
    minimum: 1,
    default: 200,
    description: 'Wait before a failed message is tried again; it doubles with each attempt, up to BUS_RETRY_MAX_BACKOFF_MS.',
  }),
  BUS_RETRY_MAX_BACKOFF_MS: Type.Integer({ minimum: 1, default: 30_000, description: 'Longest wait between two attempts at a failing message.' }),
};

export interface DeadLetterPolicy {
  /** Failed attempts at a message on its own before it may be dead-lettered. */
  attempts: number;
  /** First wait before a retry, doubled each attempt up to `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
}

export const DEFAULT_DEAD_LETTER_POLICY: DeadLetterPolicy = { attempts: 5, backoffMs: 200, maxBackoffMs: 30_000 };

export function deadLetterPolicyOf(config: { BUS_DEAD_LETTER_ATTEMPTS: number; BUS_RETRY_BACKOFF_MS: number; BUS_RETRY_MAX_BACKOFF_MS: number }): DeadLetterPolicy {
  return { attempts: config.BUS_DEAD_LETTER_ATTEMPTS, backoffMs: config.BUS_RETRY_BACKOFF_MS, maxBackoffMs: config.BUS_RETRY_MAX_BACKOFF_MS };
}

/**
 * Thrown by a consumer for a message it can never process (a value that fails validation, a row the store's types
 * refuse): the message is dead-lettered after its attempts without waiting for proof that the store works.
 */
export class DataError extends Error {
  override readonly name = 'DataError';
}

/**
 * What a failure says about its message:
 * - `transient`: the infrastructure failed (a connection refused or reset, a timeout, a full disk, a store shutting
 *   down); every message would fail alike, so the message is retried without end and never dead-lettered.
 * - `data`: the store or the consumer refused this message's content (DataError, a conversion, constraint or parse
 *   error of the store); dead-lettered after its attempts.
 * - `unknown`: anything else (a TypeError in a consumer, an error no rule names); dead-lettered after its attempts only
 *   once another message of the subscription was processed after this one began to fail, so the store works.
 */
export type FailureKind = 'transient' | 'data' | 'unknown';

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOSPC',
  'EMFILE',
  'EIO',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
]);
/** DuckDB's error classes that name the store rather than the row. */
const DUCKDB_TRANSIENT = /^(IO|Connection|Interrupt|Out of Memory|Transaction|Fatal) Error\b/;
/** DuckDB's error classes about a value: a cast, a constraint, bad input, a number out of range. */
const DUCKDB_DATA = /^(Conversion|Constraint|Invalid Input|Out of Range) Error\b/;
/** PostgreSQL SQLSTATE classes: 08 connection, 40 rollback, 53 resources, 57 operator intervention, 58 system. */
const POSTGRES_TRANSIENT = /^(08|40|53|57|58)/;
/** PostgreSQL SQLSTATE classes: 22 data exception, 23 integrity constraint violation. */
const POSTGRES_DATA = /^(22|23)/;
/** ClickHouse codes of a value it cannot parse or convert (CANNOT_PARSE_*, TYPE_MISMATCH, INCORRECT_DATA, ...). */
const CLICKHOUSE_DATA = new Set(['6', '26', '27', '38', '41', '53', '69', '70', '72', '117', '131', '321']);
/** ClickHouse codes of a store under strain (TOO_MANY_PARTS, TIMEOUT_EXCEEDED, MEMORY_LIMIT_EXCEEDED, ...). */
const CLICKHOUSE_TRANSIENT = new Set(['159', '164', '202', '203', '209', '210', '241', '252', '285', '425']);

/** Classifies a failure of a consumer's handler (see FailureKind). */
export function failureKind(error: unknown): FailureKind {
  for (let cause: unknown = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return 'transient';
    if (cause.name.startsWith('KafkaJS') || cause.name === 'TimeoutError' || cause.name === 'AbortError') return 'transient';
    if (DUCKDB_TRANSIENT.test(cause.message)) return 'transient';
  }
  if (!(error instanceof Error)) return 'unknown';
  if (error instanceof DataError || DUCKDB_DATA.test(error.message)) return 'data';
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) {
    if (POSTGRES_TRANSIENT.test(code)) return 'transient';
    if (POSTGRES_DATA.test(code)) return 'data';
  }
  if (typeof code === 'string' && /^[0-9]+$/.test(code)) {
    if (CLICKHOUSE_TRANSIENT.has(code)) return 'transient';
    if (CLICKHOUSE_DATA.has(code)) return 'data';
  }
  return 'unknown';
}

/** What to do after a message failed again. */
export type FailureVerdict = { deadLetter: true; attempts: number; kind: FailureKind } | { deadLetter: false; attempts: number; kind: FailureKind; retryInMs: number };

/**
 * The failing messages of one subscription, by id (Kafka: partition and offset), and how many messages it processed:
 * a success after a message began to fail shows that the store works, so the failure is the message's own.
 */
export class FailingMessages {
  private processed = 0;
  private readonly failing = new Map<string, { attempts: number; processedAtFirst: number }>();

  constructor(private readonly policy: DeadLetterPolicy) {}

  /** Records that a call of the handler succeeded, and forgets the failures of the messages it held. */
  succeeded(ids: Iterable<string> = []): void {
    this.processed += 1;
    for (const id of ids) this.failing.delete(id);
  }

  /**
   * Records a failed attempt at a message processed on its own (or, for a transient failure, at the first message of
   * the batch): it is dead-lettered once it failed `attempts` times with a data error, or with an unknown one after
   * another message was processed since its first failure; otherwise it is tried again after a backoff.
   */
  failed(id: string, error: unknown, alone: boolean): FailureVerdict {
    const kind = failureKind(error);
    const entry = this.failing.get(id) ?? { attempts: 0, processedAtFirst: this.processed };
    entry.attempts += 1;
    this.failing.set(id, entry);
    const storeWorks = kind === 'data' || (kind === 'unknown' && this.processed > entry.processedAtFirst);
    if (alone && kind !== 'transient' && entry.attempts >= this.policy.attempts && storeWorks) {
      this.failing.delete(id);
      return { deadLetter: true, attempts: entry.attempts, kind };
    }
    return { deadLetter: false, attempts: entry.attempts, kind, retryInMs: backoff(this.policy, entry.attempts) };
  }

  /** Forgets the failures of a message that was processed after all. */
  forget(id: string): void {
    this.failing.delete(id);
  }

  /** Forgets every failure (a rebalance may hand the messages to another consumer). */
  clear(): void {
    this.failing.clear();
  }
}

/** The wait before attempt `attempts + 1`: `backoffMs` doubled per attempt, at most `maxBackoffMs`. */
export function backoff(policy: DeadLetterPolicy, attempts: number): number {
  return Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** Math.min(30, attempts - 1));
}

/** The first failing message of a run and its error. */
export interface NarrowedFailure {
  index: number;
  error: unknown;
  /** Whether the failing call held that message alone (a transient failure is not narrowed). */
  alone: boolean;
}

/**
 * Processes messages `from` to `to` (exclusive) in order through `call`, narrowing a failure down to its first
 * failing message: a failing range is split in two halves, the first processed before the second, so the messages
 * before the failing one are processed (and `processed` told, in order) and the rest wait. A transient failure is not
 * narrowed: the store is down for all of them.
 */
export async function processNarrowing(
  from: number,
  to: number,
  call: (from: number, to: number) => Promise<void>,
  processed: (from: number, to: number) => Promise<void> | void,
): Promise<NarrowedFailure | undefined> {
  try {
    await call(from, to);
  } catch (error) {
    if (to - from === 1 || failureKind(error) === 'transient') return { index: from, error, alone: to - from === 1 };
    const middle = from + Math.ceil((to - from) / 2);
    return (await processNarrowing(from, middle, call, processed)) ?? (await processNarrowing(middle, to, call, processed));
  }
  await processed(from, to);
  return undefined;
}

/** A short description of an error for a dead letter's header and log line. */
export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 1000) : String(error).slice(0, 1000);
}
