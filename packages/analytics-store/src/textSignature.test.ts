import { DuckDBStore } from './duckdb';
import type { TableDefinition } from './store';
import { logsTable } from './tables';
import { ALL_TRIGRAMS, phraseMask, textSignature, textSignatureSql } from './textSignature';
import { seededRandom } from '@tlm/testkit/random';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,:/-_=\'"\\%*()[]{}\t\n';

function randomText(next: () => number): string {
  const length = Math.floor(next() * 120);
  let text = '';
  for (let index = 0; index < length; index++) text += ALPHABET[Math.floor(next() * ALPHABET.length)];
  return text;
}

const covers = (signature: number, mask: number) => (BigInt(signature) & BigInt(mask)) === BigInt(mask);

describe('trigram signatures', () => {
  it('are the same computed by the writer (JavaScript) and by SQL, for every kind of text', async () => {
    const next = seededRandom(7);
    const texts = [
      '',
      'a',
      'ab',
      'abc',
      'Payment FAILED for order 42',
      'payment failed for order 42',
      "it's \"quoted\" and back\\slashed\t\n",
      'naïve café',
      'emoji 😀 here',
      'K'.repeat(5),
      'x'.repeat(5_000),
      ...Array.from({ length: 200 }, () => randomText(next)),
    ];
    const store = await DuckDBStore.open(':memory:');
    try {
      await store.migrate([logsTable as unknown as TableDefinition<object>]);
      // Through the writer's own path, so every character arrives as it is.
      await store.insert(
        logsTable,
        texts.map((message, index) => ({
          project_id: 'p',
          timestamp: index,
          id: String(index).padStart(4, '0'),
          severity: 'info',
          message,
          properties: {},
          trace_id: null,
          span_id: null,
          received_at: 0,
          retention_days: 1,
        })),
      );
      const rows = await store.query(`SELECT ${textSignatureSql('message')} AS s FROM logs ORDER BY id`);
      expect(rows.map((row) => row['s'])).toEqual(texts.map(textSignature));
    } finally {
      await store.close();
    }
  });

  it('covers the mask of every phrase a text contains, in any case', () => {
    const next = seededRandom(11);
    let checked = 0;
    for (let round = 0; round < 2_000; round++) {
      const text = randomText(next);
      const start = Math.floor(next() * text.length);
      const phrase = text.slice(start, start + 3 + Math.floor(next() * 20)).toLowerCase();
      const mask = phraseMask(phrase, 1);
      if (mask === null) continue;
      checked += 1;
      expect({ text, phrase, covered: covers(textSignature(text), mask) }).toEqual({ text, phrase, covered: true });
      expect(covers(textSignature(text.toUpperCase()), mask)).toBe(true);
    }
    expect(checked).toBeGreaterThan(1_500);
  });

  it('rules out most texts without the phrase, and gives non-ASCII text every bit', () => {
    const mask = phraseMask('payment failed')!;
    expect(covers(textSignature('Payment failed for order 7'), mask)).toBe(true);
    expect(covers(textSignature('request completed in 12 ms'), mask)).toBe(false);
    expect(covers(textSignature('cache miss for key user:42'), mask)).toBe(false);
    expect(textSignature('Zahlung fehlgeschlagen für Bestellung 7')).toBe(ALL_TRIGRAMS);
    expect(covers(ALL_TRIGRAMS, mask)).toBe(true);
    // A phrase of one or two trigrams, or none made of ASCII, gives no mask.
    expect(phraseMask('ok')).toBeNull();
    expect(phraseMask('oom')).toBeNull();
    expect(phraseMask('échec')).toBeNull();
  });
});
