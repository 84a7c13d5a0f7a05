/**
 * GQL highlighting for CodeMirror: a stream tokenizer with the server lexer's rules (packages/gql/src/lexer.ts),
 * telling sources after `from:`, field names before an operator, keywords, strings, numbers and durations apart.
 */
import { defaultHighlightStyle, StreamLanguage, syntaxHighlighting, type StringStream } from '@codemirror/language';

const KEYWORDS = new Set([
  'from', 'where', 'last', 'since', 'until', 'limit', 'top', 'sort', 'fields', 'and', 'or', 'not', 'in', 'by', 'time',
  'asc', 'desc', 'count', 'count_distinct', 'sum', 'avg', 'min', 'max', 'p50', 'p75', 'p90', 'p95', 'p99',
]);
/** Keywords that introduce a list of field names. */
const FIELD_LISTS = new Set(['by', 'sort', 'fields']);

interface GqlState {
  /** The previous token was `from` or `from:`: the next word is a source. */
  expectSource: boolean;
  /** Inside `by a, b`, `sort a`, `fields a, b` or a function's parentheses: words are fields. */
  inFieldList: boolean;
}

const BOUNDARY = String.raw`(?![^\s"'()\[\],|:=!<>])`;
const DATETIME = new RegExp(String.raw`^\d{4}-\d{2}-\d{2}(?:[Tt]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})?)?` + BOUNDARY);
const DURATION = new RegExp(String.raw`^\d+[smhdwSMHDW]` + BOUNDARY);
const NUMBER = new RegExp(String.raw`^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?` + BOUNDARY);
const WORD = /^[^\s"'()[\],|:=!<>-][^\s"'()[\],|:=!<>]*/;
/** What follows a field name in a condition. */
const OPERATOR_AHEAD = /^\s*(?:!=|>=|<=|[:=<>]|in\b|not\s+in\b)/i;

const TOKEN = {
  source: 'typeName',
  field: 'propertyName.definition',
  keyword: 'keyword',
  operator: 'operator',
  string: 'string',
  number: 'number',
  duration: 'atom',
  pipe: 'meta',
  paren: 'paren',
  punctuation: 'punctuation',
  word: 'content',
  invalid: 'invalid',
} as const;

function token(stream: StringStream, state: GqlState): string | null {
  if (stream.eatSpace()) return null;
  if (stream.match(/^"(?:[^"\\]|\\.)*"?/) || stream.match(/^'(?:[^'\\]|\\.)*'?/)) {
    state.expectSource = false;
    return TOKEN.string;
  }
  if (stream.eat('|')) {
    state.inFieldList = false;
    return TOKEN.pipe;
  }
  if (stream.match(/^(?:!=|>=|<=|[:=<>])/)) return TOKEN.operator;
  if (stream.eat('(')) {
    state.inFieldList = true;
    return TOKEN.paren;
  }
  if (stream.eat(')')) return TOKEN.paren;
  if (stream.match(/^[[\],]/)) return TOKEN.punctuation;
  if (stream.match(DATETIME) || stream.match(DURATION)) return TOKEN.duration;
  if (stream.match(NUMBER)) return TOKEN.number;
  if (stream.eat('-')) return TOKEN.operator;
  const word = stream.match(WORD) as RegExpMatchArray | null;
  if (!word) {
    stream.next();
    return TOKEN.invalid;
  }
  const lower = word[0].toLowerCase();
  if (state.expectSource) {
    state.expectSource = false;
    return TOKEN.source;
  }
  if (KEYWORDS.has(lower) && !stream.match(/^\s*[:=!<>]/, false)) {
    if (lower === 'from') state.expectSource = true;
    if (FIELD_LISTS.has(lower)) state.inFieldList = true;
    return TOKEN.keyword;
  }
  if (lower === 'from' || lower === 'last' || lower === 'since' || lower === 'until' || lower === 'limit' || lower === 'top' || lower === 'sort') {
    if (lower === 'from') state.expectSource = true;
    return TOKEN.keyword;
  }
  if (stream.match(OPERATOR_AHEAD, false) || state.inFieldList) return TOKEN.field;
  return TOKEN.word;
}

/**
 * Token names are highlighting tag names (`typeName`, `propertyName.definition`…), which StreamLanguage resolves and
 * CodeMirror's default highlight style colours.
 */
export const gqlLanguage = StreamLanguage.define<GqlState>({
  name: 'gql',
  startState: () => ({ expectSource: false, inFieldList: false }),
  copyState: (state) => ({ ...state }),
  token,
});

export const gqlHighlighting = syntaxHighlighting(defaultHighlightStyle);
