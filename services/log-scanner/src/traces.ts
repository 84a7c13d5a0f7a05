import { stackFrame, type StackFrame } from '@tlm/signals';

/**
 * Best-effort parsing of the stack traces people log (SPEC.md "States and transitions": the log scanner): Python
 * tracebacks with their `During handling…` / `The above exception…` chains, and V8 stacks (`Error.stack`, and
 * Node's `util.inspect` output with its `[cause]:` blocks). Anything else is not a trace, and says so with null.
 */

export interface ParsedException {
  type: string;
  value: string;
  /** Python's dotted module of the exception type (`requests.exceptions`), when printed. */
  module: string | null;
  /** Innermost last, as in ErrorRecord. */
  frames: StackFrame[];
}

/** How a chained exception led to the one after it: Python's `__cause__` and `__context__`. */
export type ChainRelation = 'cause' | 'context';

export interface ChainedException extends ParsedException {
  relation: ChainRelation;
  /** A Python exception group's member: its number (the raised group is 0) and its group's, as Sentry numbers them. */
  exceptionId?: number;
  parentId?: number;
}

export interface ParsedTrace {
  platform: 'python' | 'javascript';
  /** The exception that ended the program or the request: Python's last block, V8's outermost error. */
  exception: ParsedException;
  /**
   * The exceptions that led to it, nearest first (as `extra.chain` of SDK errors); each one's `relation` says how it
   * is attached to the exception before it in this list (or to `exception` for the first).
   */
  chain: ChainedException[];
  /** Text the log line carried before the trace (`logger.exception("charge failed")`), or null. */
  prefix: string | null;
}

/** Chained exceptions kept, the ones nearest the main exception. */
export const MAX_CHAIN = 10;

export function parseTrace(message: string): ParsedTrace | null {
  const lines = message.replace(/\r\n?/g, '\n').split('\n');
  return parsePython(lines) ?? parseV8(lines);
}


function prefixOf(lines: string[], end: number): string | null {
  const text = lines.slice(0, end).join('\n').trim();
  return text.length > 0 ? text : null;
}

// ---------------------------------------------------------------------------------------------------------------
// Python

/** `Traceback …`, and `Exception Group Traceback …` as a group nested in another one prints it. */
const PY_HEADER = /^\s*(?:Exception Group )?Traceback \(most recent call last\):\s*$/;
/** A group at the top (Python 3.11+): every line of it, its members' included, framed by `  + ` / `  | `. */
const PY_FRAMED_GROUP = /^(\s*)\+ Exception Group Traceback \(most recent call last\):\s*$/;
/** After a group's exception line, once unframed: `+-+---- 1 ----` opens its members. */
const PY_MEMBERS = /^\+-\+-/;
/** Between members (`  +---- 2 ----`, `  +---- ... ----` before "and N more exceptions") and after the last one. */
const PY_MEMBER_SEPARATOR = /^ {2}\+-+(?: (?:\d+|\.\.\.) -+)?$/;
const PY_FRAME = /^\s+File "(.+)", line (\d+)(?:, in (.+))?$/;
/**
 * PY_FRAME and V8_FRAME read lines without their trailing whitespace, trimmed beforehand: a `\s*$` after a lazy
 * group retried the rest of a run of spaces at every character of it (a 60 KB line took 4 to 8 seconds).
 */
const pyFrame = (line: string): RegExpExecArray | null => PY_FRAME.exec(line.trimEnd());
const PY_REPEATED = /^\s+\[Previous line repeated \d+ more times?\]\s*$/;
/** `ValueError: bad`, `requests.exceptions.ConnectionError: …`, or a bare `StopIteration`. */
const PY_EXCEPTION = /^((?:[A-Za-z_]\w*\.)*)([A-Za-z_]\w*)(?::(?: (.*))?)?$/;
const PY_CHAIN_MARKERS: Record<string, ChainRelation> = {
  'During handling of the above exception, another exception occurred:': 'context',
  'The above exception was the direct cause of the following exception:': 'cause',
};

/** Library and interpreter code, which Sentry's Python SDK also marks as not in-app. */
const PY_NOT_IN_APP = /[\\/](?:site-packages|dist-packages)[\\/]|[\\/]lib[\\/]python\d(?:\.\d+)?[\\/]|^<frozen /;

/** One exception of a traceback; an exception group's members are exceptions of their own. */
interface PythonException {
  exception: ParsedException;
  members: PythonException[];
}

function parsePython(lines: string[]): ParsedTrace | null {
  const start = lines.findIndex((line) => PY_HEADER.test(line) || PY_FRAMED_GROUP.test(line));
  if (start < 0) return null;
  const { blocks, relations } = pythonChain(lines, start);
  const raised = blocks.pop();
  if (!raised) return null;
  const chain: ChainedException[] = [];
  groupMembers(raised, 0, { next: 1 }, chain);
  // Then what it was raised from or while handling, nearest first.
  for (let position = blocks.length - 1; position >= 0; position -= 1) {
    chain.push({ ...blocks[position]!.exception, relation: relations[position]! });
  }
  return { platform: 'python', exception: raised.exception, chain: chain.slice(0, MAX_CHAIN), prefix: prefixOf(lines, start) };
}

/** Exceptions joined by chain markers from `index` on, in the order printed (the raised one last). */
function pythonChain(lines: string[], index: number): { blocks: PythonException[]; relations: ChainRelation[] } {
  const blocks: PythonException[] = [];
  const relations: ChainRelation[] = [];
  let at = index;
  for (;;) {
    const block = pythonLink(lines, at);
    if (!block) break;
    blocks.push(block);
    at = block.next;
    while (at < lines.length && lines[at]!.trim() === '') at += 1;
    const relation = PY_CHAIN_MARKERS[lines[at]?.trim() ?? ''];
    if (!relation) break;
    at += 1;
    while (at < lines.length && lines[at]!.trim() === '') at += 1;
    relations.push(relation);
  }
  // A marker with nothing parsable after it leaves a relation without a following exception.
  relations.length = Math.max(0, blocks.length - 1);
  return { blocks, relations };
}

/**
 * Sentry's layout of a group's members (its Python SDK sends them so): each gets an `exceptionId`, depth first from 1
 * (the raised group is 0), and the `parentId` of its group.
 */
function groupMembers(group: PythonException, parentId: number, ids: { next: number }, into: ChainedException[]): void {
  for (const member of group.members) {
    const exceptionId = ids.next++;
    into.push({ ...member.exception, relation: 'cause', exceptionId, parentId });
    groupMembers(member, exceptionId, ids, into);
  }
}

/** One exception at `index`, a framed group read as its unframed text. */
function pythonLink(lines: string[], index: number): (PythonException & { next: number }) | null {
  const framed = PY_FRAMED_GROUP.exec(lines[index] ?? '');
  if (!framed) return pythonBlock(lines, index);
  const group = unframed(lines, index, framed[1]!);
  const block = pythonBlock(group.lines, 0);
  return block && { ...block, next: group.next };
}

/** A line of a group drawn behind `| ` (the group's own) without that bar; separators and deeper lines as they are. */
const unbarred = (line: string): string => (line.startsWith('| ') || line === '|' ? line.slice(2) : line);

/** A top-level group's lines without the frame of `indent` + `+ ` / `| ` that CPython draws around it. */
function unframed(lines: string[], index: number, indent: string): { lines: string[]; next: number } {
  const text = ['Exception Group Traceback (most recent call last):'];
  let at = index + 1;
  for (; at < lines.length; at += 1) {
    const line = lines[at]!;
    if (!line.startsWith(indent)) break;
    const rest = line.slice(indent.length);
    if (!/^(?:\| |\|$|\+| {2})/.test(rest)) break;
    text.push(unbarred(rest));
  }
  return { lines: text, next: at };
}

/**
 * One exception starting at `index`: a `Traceback` header with `File` lines and the exception line, or (after a
 * chain marker, or as a member of a group) an exception line alone, for an exception raised without a traceback. A
 * group's members follow its exception line.
 */
function pythonBlock(lines: string[], index: number): (PythonException & { next: number }) | null {
  const frames: StackFrame[] = [];
  let at = index;
  if (PY_HEADER.test(lines[at] ?? '')) {
    at += 1;
    while (at < lines.length) {
      const line = lines[at]!;
      const match = pyFrame(line);
      if (match) {
        const [, path, lineno, fn] = match as unknown as [string, string, string, string | undefined];
        const indent = line.length - line.trimStart().length;
        const next = lines[at + 1];
        // The source line follows, indented deeper; Python 3.11+ adds a line of carets under it.
        const source =
          next !== undefined && !pyFrame(next) && next.length - next.trimStart().length > indent && next.trim() !== ''
            ? next.trim()
            : null;
        frames.push(
          stackFrame({
            function: fn ?? null,
            filename: path,
            abs_path: path,
            lineno: Number(lineno),
            context_line: source,
            in_app: !PY_NOT_IN_APP.test(path),
          }),
        );
        at += source === null ? 1 : 2;
      } else if (PY_REPEATED.test(line) || (/^\s/.test(line) && line.trim() !== '')) {
        at += 1;
      } else break;
    }
    if (frames.length === 0) return null;
  }
  const headline = PY_EXCEPTION.exec(lines[at] ?? '');
  if (!headline) return null;
  const [, modulePath, type, first] = headline as unknown as [string, string, string, string | undefined];
  at += 1;
  // Multi-line messages continue until a blank line, a chain marker, the next traceback or a group's members.
  const valueLines = first === undefined ? [] : [first];
  while (
    at < lines.length &&
    lines[at]!.trim() !== '' &&
    !PY_HEADER.test(lines[at]!) &&
    !PY_CHAIN_MARKERS[lines[at]!.trim()] &&
    !PY_MEMBERS.test(lines[at]!)
  ) {
    valueLines.push(lines[at]!);
    at += 1;
  }
  const members: PythonException[] = [];
  if (PY_MEMBERS.test(lines[at] ?? '')) {
    // Each member is drawn two columns in, behind `| `; a separator ends it.
    let member: string[] = [];
    const close = () => {
      const { blocks } = pythonChain(member, 0);
      const raised = blocks[blocks.length - 1];
      if (raised) members.push(raised);
      member = [];
    };
    for (at += 1; at < lines.length; at += 1) {
      const line = lines[at]!;
      if (PY_MEMBER_SEPARATOR.test(line)) close();
      else if (line.startsWith('  ')) member.push(unbarred(line.slice(2)));
      else break;
    }
    close();
  }
  return {
    exception: {
      type,
      value: valueLines.join('\n').trim(),
      module: modulePath ? modulePath.slice(0, -1) : null,
      frames,
    },
    members,
    next: at,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// V8

/** `    at fn (location)` or `    at location`; Node's inspect output may end the last one with ` {`. */
const V8_FRAME = /^\s+at (.+?)(?: \{)?$/;
const V8_LOCATION = /^(.*):(\d+):(\d+)$/;
/** What a script location looks like: a path, a URL, or an eval'd script. */
const V8_FILE = /[\\/.]|^<anonymous>$|^\[eval\]/;
const V8_SPECIAL_LOCATION = /^(?:native|<anonymous>|index \d+|unknown location)$/;
/** `... 4 lines matching cause stack trace ...` in Node's inspect output. */
const V8_ELIDED = /^\s*\.\.\. \d+ lines? matching cause stack trace \.\.\.\s*$/;
const V8_CAUSE = /^(\s*)\[cause\]: (.*)$/;
/** `TypeError: msg`, `Error [ERR_X]: msg`, `Uncaught TypeError: msg`, or a bare `Error`. */
const V8_HEADLINE = /^(?:Uncaught )?((?:[A-Za-z_$][\w$]*\.)*[A-Za-z_$][\w$]*)(?: \[[^\]]+\])?(?:: ([\s\S]*))?$/;
/**
 * An error type inside prefixed text: `worker crashed: TypeError: …`. The code in brackets is bounded: the search
 * starts at every space or colon, and an unbounded one read to the end from each (a 64 KB log took a second).
 */
const V8_EMBEDDED_HEADLINE = /(?:^|[\s:])([A-Z][\w$]*(?:Error|Exception))(?: \[[^\]\n]{1,100}\])?: ([\s\S]*)$/;

/** Dependencies and the runtime itself, which Sentry's JavaScript SDKs also mark as not in-app. */
const V8_NOT_IN_APP = /[\\/]node_modules[\\/]|^node:|^internal[\\/]|^native$|^<anonymous>$|^index \d+$/;

function v8Frame(line: string): StackFrame | undefined {
  const text = V8_FRAME.exec(line.trimEnd())?.[1];
  if (text === undefined) return undefined;
  let fn: string | null = null;
  let location = text;
  const open = text.indexOf(' (');
  if (text.endsWith(')') && open > 0) {
    fn = text.slice(0, open);
    location = text.slice(open + 2, -1);
  }
  // `eval at outer (file.js:1:1), <anonymous>:1:1`: the position is the one after the last comma.
  if (location.startsWith('eval at ')) location = location.slice(location.lastIndexOf(', ') + 2);
  const position = V8_LOCATION.exec(location);
  // `at 10:30:15` is a time of day, not a file.
  if (position ? !V8_FILE.test(position[1]!) : !V8_SPECIAL_LOCATION.test(location)) return undefined;
  if (fn?.startsWith('async ')) fn = fn.slice('async '.length);
  const path = position ? position[1]! : location;
  return stackFrame({
    function: fn,
    filename: path.startsWith('file://') ? path.slice('file://'.length) : path,
    abs_path: path,
    lineno: position ? Number(position[2]) : null,
    colno: position ? Number(position[3]) : null,
    in_app: !V8_NOT_IN_APP.test(path),
  });
}

function headline(text: string): { type: string; value: string; prefix: string | null } {
  const whole = V8_HEADLINE.exec(text);
  if (whole) return { type: whole[1]!, value: (whole[2] ?? '').trim(), prefix: null };
  const embedded = V8_EMBEDDED_HEADLINE.exec(text);
  if (embedded) {
    // A loop, not /[\s:]+$/: that regex retries a run of spaces from each of its characters.
    let end = embedded.index;
    while (end > 0 && /[\s:]/.test(text[end - 1]!)) end -= 1;
    const prefix = text.slice(0, end);
    return { type: embedded[1]!, value: embedded[2]!.trim(), prefix: prefix || null };
  }
  return { type: 'Error', value: text.trim(), prefix: null };
}

function parseV8(lines: string[]): ParsedTrace | null {
  const first = lines.findIndex((line) => v8Frame(line) !== undefined);
  if (first < 0) return null;
  // The headline is the text before the frames, back to the previous blank line.
  let start = first;
  while (start > 0 && lines[start - 1]!.trim() !== '') start -= 1;
  if (start === first) return null;
  const main = headline(lines.slice(start, first).join('\n').trim());
  const stacks: { type: string; value: string; frames: StackFrame[] }[] = [];
  let current = { type: main.type, value: main.value, frames: [] as StackFrame[] };
  let located = false;
  for (let at = first; at < lines.length; at += 1) {
    const line = lines[at]!;
    const parsed = v8Frame(line);
    if (parsed) {
      current.frames.push(parsed);
      located ||= parsed.lineno !== null;
      continue;
    }
    if (V8_ELIDED.test(line)) continue;
    const cause = V8_CAUSE.exec(line);
    if (cause) {
      stacks.push(current);
      const causeHeadline = headline(cause[2]!.trim());
      current = { type: causeHeadline.type, value: causeHeadline.value, frames: [] };
      continue;
    }
    // Indented lines are Node's `code: 'E…'` properties; anything else (a closing brace, a blank line, more log
    // text) ends the trace.
    if (!/^\s/.test(line)) break;
  }
  stacks.push(current);
  // Without one frame that names a file and line, `at` lines were prose.
  if (!located) return null;
  const [outer, ...causes] = stacks.map((stack) => ({
    type: stack.type,
    value: stack.value,
    module: null,
    // V8 prints the innermost frame first.
    frames: stack.frames.reverse(),
  }));
  const chain = causes.map((cause) => ({ ...cause, relation: 'cause' as const }));
  return { platform: 'javascript', exception: outer!, chain: chain.slice(0, MAX_CHAIN), prefix: prefixOf(lines, start) ?? main.prefix };
}
