import { backoff, DataError, FailingMessages, failureKind, processNarrowing, type DeadLetterPolicy } from './deadLetter';

const POLICY: DeadLetterPolicy = { attempts: 3, backoffMs: 100, maxBackoffMs: 1_000 };
const withCode = (message: string, code: string, name = 'Error') => Object.assign(new Error(message), { code, name });

describe('failureKind', () => {
  it('names a refused or broken connection, a timeout and a full disk transient, also as the cause of another error', () => {
    expect(failureKind(withCode('connect ECONNREFUSED 127.0.0.1:8123', 'ECONNREFUSED'))).toBe('transient');
    expect(failureKind(withCode('socket hang up', 'ECONNRESET'))).toBe('transient');
    expect(failureKind(withCode('no space left on device', 'ENOSPC'))).toBe('transient');
    expect(failureKind(new TypeError('fetch failed', { cause: withCode('connect ECONNREFUSED', 'ECONNREFUSED') }))).toBe('transient');
    expect(failureKind(withCode('The operation was aborted due to timeout', '23', 'TimeoutError'))).toBe('transient');
    expect(failureKind(Object.assign(new Error('broker gone'), { name: 'KafkaJSConnectionError' }))).toBe('transient');
  });

  it("names DuckDB's errors about the store transient and those about a value data", () => {
    expect(failureKind(new Error('IO Error: Could not write file "analytics.duckdb.wal": No space left on device'))).toBe('transient');
    expect(failureKind(new Error('Conversion Error: Could not convert string "abc" to INT64'))).toBe('data');
    expect(failureKind(new Error('Constraint Error: NOT NULL constraint failed: logs.project_id'))).toBe('data');
    expect(failureKind(new Error('Invalid Input Error: Malformed JSON'))).toBe('data');
  });

  it("names PostgreSQL's connection and resource classes transient, and its data and constraint classes data", () => {
    expect(failureKind(withCode('terminating connection due to administrator command', '57P01'))).toBe('transient');
    expect(failureKind(withCode('too many connections', '53300'))).toBe('transient');
    expect(failureKind(withCode('invalid input syntax for type uuid', '22P02'))).toBe('data');
    expect(failureKind(withCode('duplicate key value violates unique constraint', '23505'))).toBe('data');
  });

  it("names ClickHouse's parse and type errors data and its overload errors transient", () => {
    expect(failureKind(withCode('Cannot parse input: expected \'"\' before: ...', '27'))).toBe('data');
    expect(failureKind(withCode('Too many parts (300). Merges are processing significantly slower than inserts', '252'))).toBe('transient');
  });

  it('names a DataError data, and anything else (a TypeError in a consumer, a plain Error, a thrown string) unknown', () => {
    expect(failureKind(new DataError('not a log'))).toBe('data');
    expect(failureKind(new TypeError("Cannot read properties of undefined (reading 'message')"))).toBe('unknown');
    expect(failureKind(new Error('the analytics store went away'))).toBe('unknown');
    expect(failureKind('boom')).toBe('unknown');
  });
});

describe('FailingMessages', () => {
  it('sets a message aside after its attempts when it fails alone with a data error, waiting longer after each attempt', () => {
    const failing = new FailingMessages(POLICY);
    const error = new DataError('not a log');
    expect(failing.failed('0:7', error, true)).toEqual({ deadLetter: false, attempts: 1, kind: 'data', retryInMs: 100 });
    expect(failing.failed('0:7', error, true)).toEqual({ deadLetter: false, attempts: 2, kind: 'data', retryInMs: 200 });
    expect(failing.failed('0:7', error, true)).toEqual({ deadLetter: true, attempts: 3, kind: 'data' });
  });

  it('keeps retrying a message whose error no rule names until another message is processed after its first failure', () => {
    const failing = new FailingMessages(POLICY);
    const error = new Error('something went wrong');
    for (let attempt = 1; attempt <= 6; attempt++) expect(failing.failed('0:7', error, true).deadLetter).toBe(false);
    failing.succeeded(['1:3']);
    expect(failing.failed('0:7', error, true)).toEqual({ deadLetter: true, attempts: 7, kind: 'unknown' });
  });

  it('does not count successes from before the first failure as proof', () => {
    const failing = new FailingMessages(POLICY);
    failing.succeeded();
    const error = new Error('something went wrong');
    for (let attempt = 1; attempt <= 5; attempt++) expect(failing.failed('0:7', error, true).deadLetter).toBe(false);
  });

  it('never sets aside a message after a transient failure, nor one that failed only within a batch', () => {
    const failing = new FailingMessages(POLICY);
    failing.failed('0:1', new DataError('x'), false);
    failing.succeeded();
    const down = withCode('connect ECONNREFUSED', 'ECONNREFUSED');
    for (let attempt = 1; attempt <= 10; attempt++) expect(failing.failed('0:7', down, true).deadLetter).toBe(false);
    for (let attempt = 1; attempt <= 10; attempt++) expect(failing.failed('0:8', new DataError('x'), false).deadLetter).toBe(false);
    expect(failing.failed('0:7', down, true)).toEqual({ deadLetter: false, attempts: 11, kind: 'transient', retryInMs: 1_000 });
  });

  it('starts over for a message that succeeded, and after clear', () => {
    const failing = new FailingMessages(POLICY);
    const error = new DataError('x');
    failing.failed('0:7', error, true);
    failing.failed('0:7', error, true);
    failing.succeeded(['0:7']);
    expect(failing.failed('0:7', error, true).attempts).toBe(1);
    failing.clear();
    expect(failing.failed('0:7', error, true).attempts).toBe(1);
  });
});

describe('backoff', () => {
  it('doubles from backoffMs with each attempt, up to maxBackoffMs', () => {
    expect([1, 2, 3, 4, 5, 50].map((attempts) => backoff(POLICY, attempts))).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });
});

describe('processNarrowing', () => {
  /** A handler that fails any call holding one of `poison`, recording each call. */
  function handlerFailingOn(poison: number[], error: () => unknown = () => new DataError('poison')) {
    const calls: number[][] = [];
    const processed: number[][] = [];
    const values = [0, 1, 2, 3, 4, 5, 6, 7];
    return {
      calls,
      processed,
      run: () =>
        processNarrowing(
          0,
          values.length,
          async (from, to) => {
            calls.push(values.slice(from, to));
            if (values.slice(from, to).some((value) => poison.includes(value))) throw error();
          },
          (from, to) => void processed.push(values.slice(from, to)),
        ),
    };
  }

  it('processes everything in one call when nothing fails', async () => {
    const handler = handlerFailingOn([]);
    expect(await handler.run()).toBeUndefined();
    expect(handler.calls).toEqual([[0, 1, 2, 3, 4, 5, 6, 7]]);
    expect(handler.processed).toEqual([[0, 1, 2, 3, 4, 5, 6, 7]]);
  });

  it('splits a failing batch in halves until the first failing message stands alone, processing those before it in order', async () => {
    const handler = handlerFailingOn([5]);
    expect(await handler.run()).toEqual({ index: 5, error: expect.any(DataError), alone: true });
    expect(handler.processed).toEqual([[0, 1, 2, 3], [4]]);
    expect(handler.calls).toEqual([[0, 1, 2, 3, 4, 5, 6, 7], [0, 1, 2, 3], [4, 5, 6, 7], [4, 5], [4], [5]]);
  });

  it('does not split a batch whose failure is transient: the store is down for all of them', async () => {
    const handler = handlerFailingOn([0, 1, 2, 3, 4, 5, 6, 7], () => withCode('connect ECONNREFUSED', 'ECONNREFUSED'));
    expect(await handler.run()).toEqual({ index: 0, error: expect.any(Error), alone: false });
    expect(handler.calls).toEqual([[0, 1, 2, 3, 4, 5, 6, 7]]);
    expect(handler.processed).toEqual([]);
  });
});
