import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { tokenize } from './lexer';
import { runGrammar } from './parse';

const packageDir = path.resolve(__dirname, '..');

describe('the committed grammar', () => {
  it('is exactly what nearleyc compiles from src/grammar.ne (run `pnpm --filter @tlm/gql run grammar`)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gql-grammar-'));
    try {
      const fresh = path.join(dir, 'grammar.ts');
      execFileSync(path.join(packageDir, 'node_modules/.bin/nearleyc'), [path.join(packageDir, 'src/grammar.ne'), '-o', fresh]);
      expect(readFileSync(path.join(packageDir, 'src/grammar.ts'), 'utf8')).toBe(readFileSync(fresh, 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // Every query has one parse tree: an ambiguous grammar would make meaning depend on nearley's internals.
  it.each([
    'from:logs severity:error | last:24h | top 5',
    'count by message | where severity = "error" | last 1h',
    'a b OR c d',
    'NOT a:1 -b:2 (c OR d) e',
    'count by a, b | sort value desc, a asc | limit 5',
    'p95(duration) by route, time(5m)',
    'sort a desc b',
    'fields a, b c',
    'x in [1, 2] y not in (3) z:[4] w:>=5 v != "q"',
    'from:events event:count count',
    'from logs last 1h since:2024-01-01 until:"2024-02-01T00:00:00Z"',
    '"a":b "payment failed" c:*',
    'where a:1 OR b:2 | count',
  ])('parses %j unambiguously', (query) => {
    const { parser, failedAt } = runGrammar(tokenize(query));
    expect(failedAt).toBeNull();
    expect(parser.results).toHaveLength(1);
  });
});
