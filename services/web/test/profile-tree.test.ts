import { callTree, describeFrame, profileThreads, readSentryProfile, sampledDurationMs, topFunctions, type CallTreeNode, type SentryProfileChunk } from '../src/pages/profiles/profileTree';

/**
 * A checkout's main thread sampled every 10 ms, as @sentry/browser writes it: stacks innermost first. `main` runs
 * `pay` → `chargeCard` → `hash` (twice), `pay` → `chargeCard` (once), `render` (once), idles once; a worker runs
 * `crunch` twice.
 */
const T0 = 1_764_000_000;
const chunk: SentryProfileChunk = {
  version: '2',
  profiler_id: 'a'.repeat(32),
  chunk_id: 'b'.repeat(32),
  platform: 'javascript',
  release: 'shop@1.0.0',
  environment: 'production',
  profile: {
    frames: [
      { function: 'pay', abs_path: 'https://shop.example/app.js', lineno: 10 },
      { function: 'chargeCard', abs_path: 'https://shop.example/app.js', lineno: 3 },
      { function: 'hash', abs_path: 'https://shop.example/node_modules/crypto-lib/index.js', lineno: 1 },
      { function: 'render', abs_path: 'https://shop.example/app.js', lineno: 20 },
      { function: 'crunch', filename: 'worker.js', in_app: false },
    ],
    stacks: [[2, 1, 0], [1, 0], [3], [], [4]],
    samples: [
      { stack_id: 0, thread_id: '0', timestamp: T0 },
      { stack_id: 0, thread_id: '0', timestamp: T0 + 0.01 },
      { stack_id: 1, thread_id: '0', timestamp: T0 + 0.02 },
      { stack_id: 2, thread_id: '0', timestamp: T0 + 0.03 },
      { stack_id: 3, thread_id: '0', timestamp: T0 + 0.04 },
      { stack_id: 4, thread_id: 7, timestamp: T0 + 0.005 },
      { stack_id: 4, thread_id: 7, timestamp: T0 + 0.025 },
    ],
    thread_metadata: { '0': { name: 'main' } },
  },
};

/** name(value) with children in brackets, for a readable comparison of a whole tree. */
const shape = (node: CallTreeNode): string => `${node.name}(${node.value})${node.children.length ? `[${node.children.map(shape).join(' ')}]` : ''}`;

describe('reading a profile chunk', () => {
  it('accepts sample format v2 and refuses other bodies with the reason', () => {
    expect(readSentryProfile(chunk)).toEqual({ ok: true, chunk });
    expect(readSentryProfile({ ...chunk, version: 2 }).ok).toBe(true);
    expect(readSentryProfile({ version: '1', profile: chunk.profile })).toEqual({ ok: false, reason: 'the body is format version "1", not Sentry\'s sample format v2' });
    expect(readSentryProfile({ samples: [] })).toEqual({ ok: false, reason: 'the body names no format version' });
    expect(readSentryProfile({ version: '2', profile: { samples: [], frames: [] } })).toEqual({ ok: false, reason: 'profile.stacks is not a list' });
    expect(readSentryProfile([1, 2])).toEqual({ ok: false, reason: 'the body is not a JSON object' });
    expect(readSentryProfile(undefined)).toEqual({ ok: false, reason: 'the body is not a JSON object' });
  });

  it('lists the threads with samples, the busiest first, named from thread_metadata', () => {
    expect(profileThreads(chunk)).toEqual([
      { id: '0', name: 'main', samples: 5 },
      { id: '7', name: 'thread 7', samples: 2 },
    ]);
  });

  it('measures the chunk from its first sample to its last', () => {
    expect(sampledDurationMs(chunk)).toBeCloseTo(40, 3);
    expect(sampledDurationMs({ ...chunk, profile: { ...chunk.profile, samples: chunk.profile.samples.slice(0, 1) } })).toBeNull();
  });
});

describe('the call tree of a thread', () => {
  it('puts the outermost frame under the thread and counts samples down to the running frame; idle samples count for the thread alone', () => {
    expect(shape(callTree(chunk, '0'))).toBe('main(5)[pay(3)[chargeCard(3)[hash(2)]] render(1)]');
  });

  it('draws one thread at a time', () => {
    expect(shape(callTree(chunk, '7'))).toBe('thread 7(2)[crunch(2)]');
  });

  it('weighs each sample by the time to the thread\'s next one, the last by the median interval', () => {
    const tree = callTree(chunk, '0');
    expect(tree.durationMs).toBe(50);
    expect(tree.children[0]!.durationMs).toBe(30);
    expect(callTree(chunk, '7').durationMs).toBe(40);
  });

  it('marks frames the SDK calls in-app, and otherwise frames with a source file outside node_modules', () => {
    const [pay] = callTree(chunk, '0').children;
    expect(pay).toMatchObject({ name: 'pay', file: 'https://shop.example/app.js', line: 10, inApp: true });
    expect(pay!.children[0]!.children[0]).toMatchObject({ name: 'hash', inApp: false });
    expect(callTree(chunk, '7').children[0]).toMatchObject({ name: 'crunch', inApp: false });
    expect(describeFrame({ function: 'run', module: 'app.jobs', in_app: true }, 0)).toEqual({ name: 'run', file: 'app.jobs', line: null, inApp: true });
    expect(describeFrame({ lineno: 4 }, 0)).toEqual({ name: '(anonymous)', file: null, line: 4, inApp: false });
  });

  it('keeps samples whose frames or stack the body lacks, as unknown frames', () => {
    const broken: SentryProfileChunk = {
      version: '2',
      profile: {
        frames: [{ function: 'main', filename: 'main.py', in_app: true }],
        stacks: [[9, 0]],
        samples: [
          { stack_id: 0, thread_id: '1', timestamp: T0 },
          { stack_id: 5, thread_id: '1', timestamp: T0 + 0.01 },
        ],
      },
    };
    expect(shape(callTree(broken, '1'))).toBe('thread 1(2)[main(1)[(unknown frame 9)(1)] (unknown stack)(1)]');
    expect(topFunctions(broken, '1').map((entry) => entry.name)).toEqual(['(unknown frame 9)']);
  });

  it('merges calls of the same function from the same caller, whatever line they were sampled at', () => {
    const lines: SentryProfileChunk = {
      version: '2',
      profile: {
        frames: [
          { function: 'handle', filename: 'app.py', lineno: 5, in_app: true },
          { function: 'handle', filename: 'app.py', lineno: 6, in_app: true },
        ],
        stacks: [[0], [1]],
        samples: [
          { stack_id: 0, thread_id: '1', timestamp: T0 },
          { stack_id: 1, thread_id: '1', timestamp: T0 + 0.01 },
        ],
      },
    };
    expect(shape(callTree(lines, '1'))).toBe('thread 1(2)[handle(2)]');
  });
});

describe('the top functions by self time', () => {
  it('ranks the functions by the time they were the running frame, with the time they were anywhere on the stack', () => {
    const top = topFunctions(chunk, '0');
    expect(top.map(({ name, selfSamples, totalSamples }) => ({ name, selfSamples, totalSamples }))).toEqual([
      { name: 'hash', selfSamples: 2, totalSamples: 2 },
      { name: 'chargeCard', selfSamples: 1, totalSamples: 3 },
      { name: 'render', selfSamples: 1, totalSamples: 1 },
    ]);
    expect(top[0]!.selfMs).toBe(20);
    expect(top[1]!.totalMs).toBe(30);
    // `pay` never ran itself, so it is not listed.
    expect(top.some((entry) => entry.name === 'pay')).toBe(false);
  });

  it('counts a recursive function once per sample in its total time', () => {
    const recursive: SentryProfileChunk = {
      version: '2',
      profile: {
        frames: [{ function: 'walk', filename: 'tree.js' }],
        stacks: [[0, 0, 0]],
        samples: [{ stack_id: 0, thread_id: '0', timestamp: T0 }],
      },
    };
    expect(topFunctions(recursive, '0')).toEqual([{ name: 'walk', file: 'tree.js', line: null, inApp: true, selfSamples: 1, selfMs: 0, totalSamples: 1, totalMs: 0 }]);
  });

  it('keeps at most `limit` functions', () => {
    expect(topFunctions(chunk, '0', 2).map((entry) => entry.name)).toEqual(['hash', 'chargeCard']);
  });
});
