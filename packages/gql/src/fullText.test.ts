import { ANALYTICS_TABLES, DuckDBStore, logsTable, phraseMask, textSignature, type LogRow } from '@tlm/analytics-store';
import { decodeResults, emit } from './emit';
import { compileQuery } from './plan';
import { seededRandom } from '@tlm/testkit/random';

const PROJECT = '0190a0e0-0000-7000-8000-00000000000a';
const NOW = Date.parse('2024-05-10T12:00:00.000Z');

const WORDS = ['Payment', 'failed', 'for', 'order', 'card', 'DECLINED', 'timeout', 'upstream', 'cache', 'miss', 'user', 'signed', 'in', 'Straße', 'naïve', '😀', 'a-b_c', '"quoted"', 'x=1', '/api/v1', '42'];

function messages(next: () => number): string[] {
  return Array.from({ length: 400 }, () => {
    const length = 1 + Math.floor(next() * 8);
    return Array.from({ length }, () => WORDS[Math.floor(next() * WORDS.length)]).join(next() < 0.8 ? ' ' : ', ');
  });
}

const row = (message: string, index: number, signed: boolean): LogRow => ({
  project_id: PROJECT,
  timestamp: NOW - index * 1_000,
  id: `0190a0e0-0000-7000-8000-${String(index).padStart(12, '0')}`,
  severity: 'info',
  message,
  properties: {},
  trace_id: null,
  span_id: null,
  received_at: NOW,
  retention_days: 30,
  ...(signed ? { message_trigrams: textSignature(message) } : {}),
});

async function answer(store: DuckDBStore, text: string) {
  const compiled = emit(compileQuery(text).plan, 'duckdb', { projectId: PROJECT, retentionDays: 30, now: new Date(NOW) });
  return { sql: compiled.sql, answer: decodeResults(compiled, await store.query(compiled.sql, compiled.params)) };
}

describe('full-text search with trigram signatures on DuckDB', () => {
  let signed: DuckDBStore;
  let unsigned: DuckDBStore;
  let texts: string[];

  beforeAll(async () => {
    texts = messages(seededRandom(3));
    signed = await DuckDBStore.open(':memory:');
    unsigned = await DuckDBStore.open(':memory:');
    for (const store of [signed, unsigned]) await store.migrate(ANALYTICS_TABLES);
    await signed.insert(logsTable, texts.map((message, index) => row(message, index, true)));
    // Rows without a signature (written before the column, or by SQL) have every bit: the scan alone decides.
    await unsigned.insert(logsTable, texts.map((message, index) => row(message, index, false)));
  });
  afterAll(async () => {
    await signed.close();
    await unsigned.close();
  });

  it('answers every phrase exactly as the scan alone does, and checks the signature for phrases of four trigrams or more', async () => {
    const next = seededRandom(5);
    const phrases = [
      'payment failed',
      'PAYMENT FAILED',
      'card declined',
      'ment fail',
      'ailed, ord',
      'straße',
      'naïve card',
      'never stored anywhere',
      'd x=1 /api',
      ...Array.from({ length: 120 }, () => {
        const text = texts[Math.floor(next() * texts.length)]!;
        const start = Math.floor(next() * text.length);
        return text.slice(start, start + 2 + Math.floor(next() * 18));
      }),
    ].filter((phrase) => phrase.trim() !== '' && !/["\\]/.test(phrase));
    let checked = 0;
    let matched = 0;
    for (const phrase of phrases) {
      for (const query of [`"${phrase}" | count`, `"${phrase}" | sort timestamp desc | limit 5`, `NOT "${phrase}" | count`]) {
        const withSignatures = await answer(signed, query);
        const scanned = await answer(unsigned, query);
        expect({ query, answer: withSignatures.answer }).toEqual({ query, answer: scanned.answer });
        if (!query.startsWith('NOT') && withSignatures.sql.includes('message_trigrams')) checked += 1;
        if (query.endsWith('count') && !query.startsWith('NOT') && (withSignatures.answer.results[0]!['value'] as number) > 0) matched += 1;
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(matched).toBeGreaterThan(100);
  });

  it('lets through only rows that can hold the phrase, and every row that does', async () => {
    const [{ candidates, holding }] = (await signed.query(
      `SELECT count(*) FILTER ((message_trigrams & CAST($mask AS UBIGINT)) = CAST($mask AS UBIGINT)) AS candidates,
              count(*) FILTER (contains(lower(message), 'card declined')) AS holding FROM logs`,
      { mask: phraseMask('card declined')! },
    )) as { candidates: number; holding: number }[];
    expect(holding).toBeGreaterThan(0);
    expect(candidates).toBeGreaterThanOrEqual(holding);
    // Non-ASCII messages are always candidates; the rest are ruled out but for a few collisions.
    expect(candidates).toBeLessThan(texts.length / 2);
  });
});
