import { toCompletionResult, wordStart } from '../src/pages/explore/completion';

describe('wordStart', () => {
  it('finds the start of the word at the cursor as the server lexes it', () => {
    expect(wordStart('from:logs sev', 13)).toBe(10);
    expect(wordStart('from:lo', 7)).toBe(5);
    expect(wordStart('properties.rou', 14)).toBe(0);
    expect(wordStart('route:/api/ch', 13)).toBe(6);
  });

  it('takes an unterminated string from its quote', () => {
    expect(wordStart('message:"pay', 12)).toBe(8);
  });

  it('is the cursor after a space, an operator or a pipe', () => {
    expect(wordStart('from:logs ', 10)).toBe(10);
    expect(wordStart('from:', 5)).toBe(5);
    expect(wordStart('a:1 |', 5)).toBe(5);
  });

  it('reads only the text before the cursor', () => {
    expect(wordStart('from:logs severity', 12)).toBe(10);
  });
});

describe('toCompletionResult', () => {
  it('maps suggestions to completions that replace the word, in the server order', () => {
    const result = toCompletionResult('from:logs sev', 13, [
      { text: 'severity', description: 'string column of logs', kind: 'field' },
      { text: 'count', description: 'number of rows', kind: 'function' },
      { text: 'logs', description: 'log entries', kind: 'source' },
      { text: '"order id"', description: 'property', kind: 'field' },
      { text: ':', description: 'equals', kind: 'operator' },
      { text: 'error', description: 'severity value', kind: 'value' },
    ]);
    expect(result).toEqual({
      from: 10,
      to: 13,
      filter: false,
      options: [
        { label: 'severity', apply: 'severity:', detail: 'field', info: 'string column of logs', type: 'property', boost: 99 },
        { label: 'count', detail: 'function', info: 'number of rows', type: 'function', boost: 98 },
        { label: 'logs', detail: 'source', info: 'log entries', type: 'namespace', boost: 97 },
        { label: '"order id"', apply: '"order id":', detail: 'field', info: 'property', type: 'property', boost: 96 },
        { label: ':', detail: 'operator', info: 'equals', type: 'keyword', boost: 95 },
        { label: 'error', detail: 'value', info: 'severity value', type: 'constant', boost: 94 },
      ],
    });
  });

  it('inserts a field with its colon where it starts a condition, and alone where it stands alone', () => {
    const field = [{ text: 'route', description: 'property', kind: 'field' as const }];
    const applied = (text: string, cursor = text.length) => toCompletionResult(text, cursor, field)!.options[0]!.apply;
    expect(applied('from:logs ro')).toBe('route:');
    expect(applied('from:logs severity:error -ro')).toBe('route:');
    expect(applied('from:logs | where ro')).toBe('route:');
    // Not after a pipe: grouped by, summed, sorted or listed, the field is a name.
    expect(applied('from:logs | count by ro')).toBeUndefined();
    expect(applied('from:logs | p95(dur')).toBeUndefined();
    expect(applied('from:logs | sort ro')).toBeUndefined();
    expect(applied('from:logs | fields ro')).toBeUndefined();
    // Nor when an operator follows already (a field renamed in place).
    expect(applied('from:logs ro:/checkout', 12)).toBeUndefined();
    expect(applied('from:logs ro != /checkout', 12)).toBeUndefined();
  });

  it('answers null when there is nothing to suggest', () => {
    expect(toCompletionResult('x', 1, [])).toBeNull();
  });
});
