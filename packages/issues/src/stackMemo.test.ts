import { stackOf } from '@tlm/analytics-store';
import { stackFrame } from '@tlm/signals';
import { StackMemo } from './stackMemo';

const frames = () => [stackFrame({ function: 'charge', filename: 'src/billing.ts', lineno: 3, colno: 9, in_app: true }), stackFrame({ function: 'main', in_app: false })];

describe('StackMemo', () => {
  it('answers the stack of equal frames under one key without computing it again', () => {
    const memo = new StackMemo();
    const first = memo.stackOf('project/fingerprint', frames());
    expect(first).toEqual(stackOf(frames()));
    expect(memo.stackOf('project/fingerprint', frames())).toBe(first);
  });

  it('computes the stack again when any field of any frame differs, and remembers the new one', () => {
    const memo = new StackMemo();
    const first = memo.stackOf('key', frames());
    const variants = [
      [{ ...frames()[0]!, lineno: 4 }, frames()[1]!],
      [{ ...frames()[0]!, in_app: false }, frames()[1]!],
      [{ ...frames()[0]!, context_line: 'charge(card)' }, frames()[1]!],
      [{ ...frames()[0]!, minified: { filename: 'app.min.js', function: 'a', lineno: 1, colno: 2 } }, frames()[1]!],
      [frames()[0]!],
    ];
    for (const variant of variants) {
      const stack = memo.stackOf('key', variant);
      expect(stack).toEqual(stackOf(variant));
      expect(stack.id).not.toBe(first.id);
      expect(memo.stackOf('key', variant)).toBe(stack);
    }
    const mapped = [{ ...frames()[0]!, minified: { filename: 'app.min.js', function: 'a', lineno: 1, colno: 2 } }];
    memo.stackOf('key', mapped);
    expect(memo.stackOf('key', [{ ...mapped[0]!, minified: { ...mapped[0]!.minified, colno: 3 } }]).id).not.toBe(stackOf(mapped).id);
  });
});
