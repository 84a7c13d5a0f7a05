/**
 * Sentry's continuous-profiling sample format v2 (a `profile_chunk` envelope item) read into what the profile page
 * draws: the call tree of one thread for the flame graph, and the functions that spent the most time themselves.
 * A stack lists frame indexes innermost first (the JS SDK walks from the sampled frame up through its parents), so a
 * tree is built from the end of each stack towards its start.
 */

export interface SentryFrame {
  function?: string;
  module?: string;
  filename?: string;
  abs_path?: string;
  lineno?: number;
  colno?: number;
  in_app?: boolean;
}

export interface SentrySample {
  stack_id: number;
  thread_id: string | number;
  /** Seconds since the epoch. */
  timestamp: number;
}

export interface SentryProfileChunk {
  version: '2';
  profiler_id?: string;
  chunk_id?: string;
  platform?: string;
  release?: string;
  environment?: string;
  client_sdk?: { name?: string; version?: string };
  profile: {
    samples: SentrySample[];
    /** Frame indexes, innermost first. */
    stacks: number[][];
    frames: SentryFrame[];
    thread_metadata?: Record<string, { name?: string } | undefined>;
  };
}

export type ReadProfile = { ok: true; chunk: SentryProfileChunk } | { ok: false; reason: string };

/** Accepts a body the page can draw: a JSON object of sample format v2 with samples, stacks and frames. */
export function readSentryProfile(body: unknown): ReadProfile {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { ok: false, reason: 'the body is not a JSON object' };
  const { version, profile } = body as { version?: unknown; profile?: unknown };
  if (String(version) !== '2') {
    return { ok: false, reason: version === undefined ? 'the body names no format version' : `the body is format version ${JSON.stringify(version)}, not Sentry's sample format v2` };
  }
  if (profile === null || typeof profile !== 'object') return { ok: false, reason: 'the body has no profile object' };
  for (const field of ['samples', 'stacks', 'frames'] as const) {
    if (!Array.isArray((profile as Record<string, unknown>)[field])) return { ok: false, reason: `profile.${field} is not a list` };
  }
  return { ok: true, chunk: body as SentryProfileChunk };
}

export interface ProfileThread {
  id: string;
  /** The name in `thread_metadata`, else `thread <id>`. */
  name: string;
  samples: number;
}

/** The threads that have samples, the busiest first (ties by id). */
export function profileThreads(chunk: SentryProfileChunk): ProfileThread[] {
  const counts = new Map<string, number>();
  for (const sample of chunk.profile.samples) {
    const id = String(sample.thread_id);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return [...counts]
    .map(([id, samples]) => ({ id, name: chunk.profile.thread_metadata?.[id]?.name || `thread ${id}`, samples }))
    .sort((a, b) => b.samples - a.samples || a.id.localeCompare(b.id, 'en', { numeric: true }));
}

/** A function as the page names it: the frame's function (or `(anonymous)`) and where it is. */
export interface FunctionFrame {
  name: string;
  /** `filename`, else `abs_path`, else `module`; null for frames that name none (the engine's own). */
  file: string | null;
  line: number | null;
  inApp: boolean;
}

/**
 * `in_app` as the SDK set it; the JS SDK sets none, so then a frame is the app's when it has a source file outside
 * `node_modules` (the engine's own frames, such as garbage collection, have none).
 */
export function describeFrame(frame: SentryFrame | undefined, index: number): FunctionFrame {
  if (!frame) return { name: `(unknown frame ${index})`, file: null, line: null, inApp: false };
  const file = frame.filename || frame.abs_path || frame.module || null;
  const inApp = typeof frame.in_app === 'boolean' ? frame.in_app : file !== null && !/[\\/]node_modules[\\/]/.test(file);
  return { name: frame.function || '(anonymous)', file, line: typeof frame.lineno === 'number' ? frame.lineno : null, inApp };
}

const functionKey = (frame: FunctionFrame) => `${frame.name}\u0000${frame.file ?? ''}`;

interface WeightedSample {
  /** Frame indexes, innermost first; null when the sample's stack is not in `stacks`. */
  stack: number[] | null;
  /** Milliseconds until the thread's next sample (to the microsecond); the last sample weighs the thread's median interval. */
  weightMs: number;
}

function threadSamples(chunk: SentryProfileChunk, threadId: string): WeightedSample[] {
  const samples = chunk.profile.samples.filter((sample) => String(sample.thread_id) === threadId).sort((a, b) => a.timestamp - b.timestamp);
  // Whole microseconds: epoch seconds as doubles carry noise below that, which would reorder equal times.
  const gaps = samples.slice(1).map((sample, index) => Math.round((sample.timestamp - samples[index]!.timestamp) * 1_000_000) / 1000);
  const median = gaps.length ? [...gaps].sort((a, b) => a - b)[Math.floor(gaps.length / 2)]! : 0;
  return samples.map((sample, index) => ({
    stack: Array.isArray(chunk.profile.stacks[sample.stack_id]) ? chunk.profile.stacks[sample.stack_id]! : null,
    weightMs: gaps[index] ?? median,
  }));
}

/** A node of the call tree in the shape d3-flame-graph reads: `value` counts the node's samples and its callees'. */
export interface CallTreeNode extends FunctionFrame {
  value: number;
  /** The samples' time, by their weights. */
  durationMs: number;
  children: CallTreeNode[];
}

/**
 * The call tree of one thread: the root is the thread, its children the outermost frames, down to the frames that
 * were running. Samples with an empty stack (idle) count for the root alone; a stack id or frame index the body does
 * not hold becomes an `(unknown …)` frame, so every sample is counted somewhere.
 */
export function callTree(chunk: SentryProfileChunk, threadId: string): CallTreeNode {
  const thread = profileThreads(chunk).find((candidate) => candidate.id === threadId);
  const root: CallTreeNode = { name: thread?.name ?? `thread ${threadId}`, file: null, line: null, inApp: false, value: 0, durationMs: 0, children: [] };
  const index = new Map<CallTreeNode, Map<string, CallTreeNode>>();
  const childOf = (parent: CallTreeNode, frame: FunctionFrame) => {
    let children = index.get(parent);
    if (!children) index.set(parent, (children = new Map()));
    const key = functionKey(frame);
    let child = children.get(key);
    if (!child) {
      child = { ...frame, value: 0, durationMs: 0, children: [] };
      children.set(key, child);
      parent.children.push(child);
    }
    return child;
  };
  for (const sample of threadSamples(chunk, threadId)) {
    const frames = sample.stack === null ? [{ name: '(unknown stack)', file: null, line: null, inApp: false }] : outermostFirst(chunk, sample.stack);
    let node = root;
    node.value += 1;
    node.durationMs += sample.weightMs;
    for (const frame of frames) {
      node = childOf(node, frame);
      node.value += 1;
      node.durationMs += sample.weightMs;
    }
  }
  return root;
}

function outermostFirst(chunk: SentryProfileChunk, stack: number[]): FunctionFrame[] {
  const frames: FunctionFrame[] = [];
  for (let position = stack.length - 1; position >= 0; position--) frames.push(describeFrame(chunk.profile.frames[stack[position]!], stack[position]!));
  return frames;
}

export interface FunctionTime extends FunctionFrame {
  /** Samples in which the function itself was running (the innermost frame). */
  selfSamples: number;
  selfMs: number;
  /** Samples in which the function was anywhere on the stack (once per sample, recursion or not). */
  totalSamples: number;
  totalMs: number;
}

/** The functions of one thread by the time they ran themselves, most first, at most `limit` of them. */
export function topFunctions(chunk: SentryProfileChunk, threadId: string, limit = 25): FunctionTime[] {
  const functions = new Map<string, FunctionTime>();
  for (const sample of threadSamples(chunk, threadId)) {
    if (sample.stack === null || sample.stack.length === 0) continue;
    const seen = new Set<string>();
    sample.stack.forEach((frameIndex, position) => {
      const frame = describeFrame(chunk.profile.frames[frameIndex], frameIndex);
      const key = functionKey(frame);
      let entry = functions.get(key);
      if (!entry) functions.set(key, (entry = { ...frame, selfSamples: 0, selfMs: 0, totalSamples: 0, totalMs: 0 }));
      if (position === 0) {
        entry.selfSamples += 1;
        entry.selfMs += sample.weightMs;
      }
      if (!seen.has(key)) {
        seen.add(key);
        entry.totalSamples += 1;
        entry.totalMs += sample.weightMs;
      }
    });
  }
  return [...functions.values()]
    .filter((entry) => entry.selfSamples > 0)
    .sort((a, b) => b.selfMs - a.selfMs || b.selfSamples - a.selfSamples || a.name.localeCompare(b.name))
    .slice(0, limit);
}

/** Milliseconds from the first sample to the last of the whole chunk, or null without two timed samples. */
export function sampledDurationMs(chunk: SentryProfileChunk): number | null {
  let first = Infinity;
  let last = -Infinity;
  let timed = 0;
  for (const { timestamp } of chunk.profile.samples) {
    if (typeof timestamp !== 'number' || !Number.isFinite(timestamp)) continue;
    timed += 1;
    first = Math.min(first, timestamp);
    last = Math.max(last, timestamp);
  }
  return timed < 2 ? null : (last - first) * 1000;
}
