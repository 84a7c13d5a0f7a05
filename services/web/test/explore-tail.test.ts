import { mergeTail, readTailEvent } from '../src/pages/explore/tail';
import { parseHistory, pushHistory } from '../src/pages/explore/history';

describe('mergeTail', () => {
  it('puts the newest batch on top, each batch newest first', () => {
    expect(mergeTail(['c', 'b', 'a'], [['e', 'd'], ['g', 'f']])).toEqual(['g', 'f', 'e', 'd', 'c', 'b', 'a']);
  });

  it('drops the oldest rows beyond the cap', () => {
    expect(mergeTail([3, 2, 1], [[5, 4]], 4)).toEqual([5, 4, 3, 2]);
    expect(mergeTail([1], [[9, 8, 7, 6, 5]], 3)).toEqual([9, 8, 7]);
  });

  it('keeps 1000 rows by default when thousands arrive', () => {
    const batch = Array.from({ length: 1_500 }, (_, index) => 1_500 - index);
    const merged = mergeTail([0], [batch]);
    expect(merged.length).toBe(1_000);
    expect(merged[0]).toBe(1_500);
    expect(merged[999]).toBe(501);
  });
});

describe('readTailEvent', () => {
  it('reads rows and errors', () => {
    expect(readTailEvent('rows', '{"results":[{"message":"a"}]}')).toEqual({ kind: 'rows', rows: [{ message: 'a' }] });
    expect(readTailEvent('error', '{"error":{"code":"VALIDATION_ERROR","message":"bad query"}}')).toEqual({
      kind: 'error',
      code: 'VALIDATION_ERROR',
      message: 'bad query',
    });
  });

  it('turns an unreadable event into an error', () => {
    expect(readTailEvent('rows', 'not json')).toEqual({ kind: 'error', code: 'INTERNAL_ERROR', message: 'the live tail sent an unreadable rows event' });
  });
});

describe('history', () => {
  it('moves a query to the top once and keeps at most 20', () => {
    expect(pushHistory(['b', 'a'], 'a')).toEqual(['a', 'b']);
    expect(pushHistory(['b'], '  c  ')).toEqual(['c', 'b']);
    const full = Array.from({ length: 20 }, (_, index) => `q${index}`);
    const pushed = pushHistory(full, 'new');
    expect(pushed.length).toBe(20);
    expect(pushed[0]).toBe('new');
    expect(pushed[19]).toBe('q18');
  });

  it('reads only lists of strings back', () => {
    expect(parseHistory('["a",1,"b"]')).toEqual(['a', 'b']);
    expect(parseHistory('{"a":1}')).toEqual([]);
    expect(parseHistory('nope')).toEqual([]);
    expect(parseHistory(null)).toEqual([]);
  });
});
