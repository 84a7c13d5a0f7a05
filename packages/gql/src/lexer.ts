import moo from 'moo';

/** Characters that end an unquoted word or value: whitespace, quotes, brackets, separators and operators. */
const BOUNDARY = String.raw`(?![^\s"'()\[\],|:=!<>])`;

/**
 * Words that have a meaning in the grammar; matched case-insensitively. Control keywords (from, last, since, until,
 * limit, top, sort, fields, where) cannot be field names; the others can (`count:5`, `desc:x`).
 */
export const KEYWORDS = [
  'from', 'where', 'last', 'since', 'until', 'limit', 'top', 'sort', 'fields',
  'and', 'or', 'not', 'in', 'by', 'time', 'asc', 'desc',
  'count', 'count_distinct', 'sum', 'avg', 'min', 'max', 'p50', 'p75', 'p90', 'p95', 'p99',
] as const;

const keywordTypes = new Map<string, string>(KEYWORDS.map((keyword) => [keyword, `kw_${keyword}`]));

const unescape = (quoted: string): string =>
  quoted.slice(1, -1).replace(/\\([\s\S])/g, (_, char: string) => (char === 'n' ? '\n' : char === 't' ? '\t' : char));

const rules = moo.compile({
  ws: { match: /\s+/, lineBreaks: true },
  string: [
    { match: /"(?:[^"\\]|\\[\s\S])*"/, lineBreaks: true, value: unescape },
    { match: /'(?:[^'\\]|\\[\s\S])*'/, lineBreaks: true, value: unescape },
  ],
  unterminated: { match: /["'][\s\S]*/, lineBreaks: true },
  pipe: '|',
  lparen: '(',
  rparen: ')',
  lbracket: '[',
  rbracket: ']',
  comma: ',',
  colon: ':',
  neq: '!=',
  gte: '>=',
  lte: '<=',
  eq: '=',
  gt: '>',
  lt: '<',
  datetime: new RegExp(String.raw`\d{4}-\d{2}-\d{2}(?:[Tt]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})?)?` + BOUNDARY),
  duration: new RegExp(String.raw`\d+[smhdwSMHDW]` + BOUNDARY),
  number: new RegExp(String.raw`-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?` + BOUNDARY),
  minus: '-',
  word: {
    match: /[^\s"'()[\],|:=!<>-][^\s"'()[\],|:=!<>]*/,
    type: (text: string) => keywordTypes.get(text.toLowerCase()) ?? 'word',
  },
  error: moo.error,
});

/** One token of a query; `offset` counts UTF-16 code units from the start, `line` and `col` are 1-based. */
export interface Token {
  type: string;
  /** The unescaped content of a string; the text otherwise. */
  value: string;
  text: string;
  offset: number;
  line: number;
  col: number;
}

/** Splits a query into tokens, whitespace dropped. Never throws: unknown characters become an `error` token. */
export function tokenize(text: string): Token[] {
  rules.reset(text);
  const tokens: Token[] = [];
  for (let token = rules.next(); token; token = rules.next()) {
    if (token.type === 'ws') continue;
    tokens.push({
      type: token.type ?? 'error',
      value: token.value,
      text: token.text,
      offset: token.offset,
      line: token.line,
      col: token.col,
    });
    if (token.type === 'error' || token.type === 'unterminated') break;
  }
  return tokens;
}

const TOKEN_TYPES = new Set([
  'string', 'unterminated', 'pipe', 'lparen', 'rparen', 'lbracket', 'rbracket', 'comma', 'colon',
  'neq', 'gte', 'lte', 'eq', 'gt', 'lt', 'datetime', 'duration', 'number', 'minus', 'word', 'error',
  ...keywordTypes.values(),
]);

/**
 * The lexer nearley drives: it replays tokens prepared by `tokenize`, so a parse can stop at any token (autocomplete
 * feeds the tokens before the cursor) and error messages can name the tokens around a failure.
 */
class TokenStream {
  private tokens: Token[] = [];
  private index = 0;

  load(tokens: Token[]): void {
    this.tokens = tokens;
    this.index = 0;
  }

  reset(): void {
    this.index = 0;
  }

  next(): Token | undefined {
    return this.tokens[this.index++];
  }

  save(): Record<string, never> {
    return {};
  }

  formatError(token: Token): string {
    return `unexpected ${token.text}`;
  }

  has(type: string): boolean {
    return TOKEN_TYPES.has(type);
  }
}

export const lexer = new TokenStream();
