import { stackOf, type Stack } from '@tlm/analytics-store';
import { sameLines, type StackFrame } from '@tlm/signals';

/** Fingerprints whose last stack is remembered before the memory is dropped. */
const MAX_FINGERPRINTS = 10_000;

/**
 * The stack of each fingerprint's last error: the errors of one issue nearly always share their frames, and comparing
 * them field by field costs a tenth of stackOf's JSON and SHA-256 (about 4 µs for eight frames). A miss replaces the
 * fingerprint's entry.
 */
export class StackMemo {
  private readonly last = new Map<string, { frames: readonly StackFrame[]; stack: Stack }>();

  /** The stack of `frames`, seen under `key` (project and fingerprint). */
  stackOf(key: string, frames: readonly StackFrame[]): Stack {
    const remembered = this.last.get(key);
    if (remembered && sameFrames(remembered.frames, frames)) return remembered.stack;
    const stack = stackOf(frames);
    if (!remembered && this.last.size >= MAX_FINGERPRINTS) this.last.clear();
    this.last.set(key, { frames, stack });
    return stack;
  }
}

function sameFrames(a: readonly StackFrame[], b: readonly StackFrame[]): boolean {
  // Records with equal frames mostly share them already (signals' framesOf).
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (!sameFrame(a[index]!, b[index]!)) return false;
  return true;
}

/** Every field of a StackFrame, which is every field the frames' makers set (signals, symbolication, the log scanner). */
function sameFrame(a: StackFrame, b: StackFrame): boolean {
  if (
    a.function !== b.function ||
    a.filename !== b.filename ||
    a.lineno !== b.lineno ||
    a.colno !== b.colno ||
    a.in_app !== b.in_app ||
    a.module !== b.module ||
    a.abs_path !== b.abs_path ||
    a.context_line !== b.context_line ||
    !sameLines(a.pre_context, b.pre_context) ||
    !sameLines(a.post_context, b.post_context)
  ) {
    return false;
  }
  if (a.minified === b.minified) return true;
  if (!a.minified || !b.minified) return false;
  return (
    a.minified.filename === b.minified.filename &&
    a.minified.function === b.minified.function &&
    a.minified.lineno === b.minified.lineno &&
    a.minified.colno === b.minified.colno
  );
}
