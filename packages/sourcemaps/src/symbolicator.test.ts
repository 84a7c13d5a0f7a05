import { randomUUID } from 'node:crypto';
import vm from 'node:vm';
import { upsertArtifact, type MetadataStore } from '@tlm/metadata-store';
import { openMigratedPGlite } from '@tlm/testkit/metadata';
import { stackFrame, type ErrorRecord, type StackFrame } from '@tlm/signals';
import { minifySync } from '@swc/core';
import { SourceMapGenerator } from 'source-map';
import { Symbolicator } from './symbolicator';

const CART_SOURCE = `function handleClick(event) {
  const payload = JSON.parse(event.body);
  return computeTotal(payload.items);
}
function computeTotal(items) {
  if (!items.length) throw new TypeError("no items");
  return items.reduce((a, b) => a + b, 0);
}
globalThis.handleClick = handleClick;
`;
const CART_URL = 'https://shop.example.com/static/js/cart.min.js';

/**
 * Minifies the cart with swc (mangled names, one line) and runs it, returning the real V8 frames of its crash. The
 * frames come from V8's call sites, since Jest rewrites printed stacks through its own source maps.
 */
function crashMinifiedCart(): { map: string; frames: StackFrame[] } {
  // swc takes a {file name: source} object to name the source in the map; its typings only list a string.
  const named = { 'src/cart.js': CART_SOURCE } as unknown as string;
  const minified = minifySync(named, { sourceMap: true, compress: false, mangle: { topLevel: true }, toplevel: true, inlineSourcesContent: true });
  const context = vm.createContext({});
  vm.runInContext(minified.code, context, { filename: CART_URL });
  // The crash happens in the context's realm, whose Error formats its stacks.
  vm.runInContext('Error.prepareStackTrace = (error, callSites) => callSites', context);
  let callSites: NodeJS.CallSite[] = [];
  try {
    vm.runInContext(`handleClick({ body: '{"items": []}' })`, context, { filename: 'https://shop.example.com/checkout' });
  } catch (error) {
    callSites = (error as { stack: NodeJS.CallSite[] }).stack;
  }
  const frames = callSites.slice(0, 3).map(
    (site): StackFrame => ({
      function: site.getFunctionName(),
      filename: site.getFileName() ?? null,
      abs_path: site.getFileName() ?? null,
      module: null,
      lineno: site.getLineNumber(),
      colno: site.getColumnNumber(),
      in_app: true,
      context_line: null,
    }),
  );
  // V8 lists the innermost frame first; errors keep it last.
  return { map: minified.map!, frames: frames.reverse() };
}

/** A hand-made map of `app.min.js`: line 1 holds two calls, column 10 (`r()` → `render`) and column 30 (`q()` → `query`). */
function handMadeMap(): string {
  const generator = new SourceMapGenerator({ file: 'app.min.js' });
  generator.addMapping({ generated: { line: 1, column: 10 }, original: { line: 12, column: 4 }, source: 'webpack://shop/./src/view.js', name: 'render' });
  generator.addMapping({ generated: { line: 1, column: 30 }, original: { line: 3, column: 8 }, source: 'webpack://shop/./src/api.js', name: 'query' });
  generator.addMapping({ generated: { line: 2, column: 0 }, original: { line: 40, column: 2 }, source: 'webpack://shop/./node_modules/lodash/lodash.js' });
  generator.setSourceContent('webpack://shop/./src/api.js', 'import { get } from "./http";\n\nexport const query = (q) => get(q).then(\n  (r) => r.json());\n');
  return generator.toString();
}

let metadata: MetadataStore;
let projectId: string;

let disposeMetadata: () => Promise<void>;

beforeAll(async () => {
  ({ store: metadata, dispose: disposeMetadata } = await openMigratedPGlite());
});
afterAll(() => disposeMetadata());

beforeEach(async () => {
  const orgId = randomUUID();
  projectId = randomUUID();
  await metadata.query(`insert into organizations (id, name, region) values ($1, 'Shop', 'us')`, [orgId]);
  await metadata.query(`insert into projects (id, org_id, name) values ($1, $2, 'web')`, [projectId, orgId]);
});

const upload = (release: string, name: string, content: string, dist = '') =>
  upsertArtifact(metadata, { id: randomUUID(), projectId, release, dist, name, content });

const frame = (fields: Partial<StackFrame>): StackFrame => stackFrame({ in_app: true, ...fields });

describe('Symbolicator.symbolicate', () => {
  it('maps a real swc-minified crash back to the original lines, names and source, keeping the minified position', async () => {
    const { map, frames } = crashMinifiedCart();
    await upload('shop@1.0.0', '~/static/js/cart.min.js.map', map);
    const mapped = await new Symbolicator(metadata).symbolicate(projectId, 'shop@1.0.0', null, frames);

    const [entry, inner] = mapped.slice(-2);
    expect(inner).toEqual({
      function: 'computeTotal',
      filename: 'src/cart.js',
      abs_path: 'src/cart.js',
      module: null,
      lineno: 6,
      colno: 28,
      in_app: true,
      context_line: 'if (!items.length) throw new TypeError("no items");',
      // The lines around it from the map's sources, indented relative to it.
      pre_context: ['function handleClick(event) {', 'const payload = JSON.parse(event.body);', 'return computeTotal(payload.items);', '}', 'function computeTotal(items) {'],
      post_context: ['return items.reduce((a, b) => a + b, 0);', '}', 'globalThis.handleClick = handleClick;', ''],
      minified: { filename: CART_URL, function: 'n', lineno: 1, colno: 93 },
    });
    expect(inner!.minified!.function).not.toBe('computeTotal');
    // The outermost bundle frame is called from a file with no map, so its name stays the minified one.
    expect(entry).toMatchObject({ filename: 'src/cart.js', lineno: 3, context_line: 'return computeTotal(payload.items);' });
    expect(entry!.function).toBe(entry!.minified!.function);
    // The caller outside the bundle has no map: returned as it came.
    expect(mapped[0]).toEqual(frames[0]);
  });

  it('names a frame after the token at its caller, shows webpack sources as paths and marks node_modules not in-app', async () => {
    await upload('shop@2.0.0', '~/static/app.min.js', handMadeMap());
    const mapped = await new Symbolicator(metadata).symbolicate(projectId, 'shop@2.0.0', null, [
      frame({ function: 'x', filename: 'https://shop.example.com/static/app.min.js', lineno: 1, colno: 11 }),
      frame({ function: 'y', filename: 'https://shop.example.com/static/app.min.js', lineno: 1, colno: 35 }),
      frame({ function: 'z', filename: 'https://shop.example.com/static/app.min.js', lineno: 2, colno: 5 }),
    ]);
    expect(mapped.map((mappedFrame) => [mappedFrame.function, mappedFrame.filename, mappedFrame.lineno, mappedFrame.colno, mappedFrame.in_app])).toEqual([
      ['x', 'src/view.js', 12, 5, true],
      ['render', 'src/api.js', 3, 9, true],
      ['query', 'node_modules/lodash/lodash.js', 40, 3, false],
    ]);
    expect(mapped[0]!.abs_path).toBe('webpack://shop/src/view.js');
    expect(mapped[1]!.context_line).toBe('export const query = (q) => get(q).then(');
    expect(mapped[0]!.context_line).toBeNull();
  });

  it('returns frames of another release, of files without a map and without a position unchanged', async () => {
    await upload('shop@3.0.0', '~/static/app.min.js', handMadeMap());
    const symbolicator = new Symbolicator(metadata);
    const frames = [
      frame({ filename: 'https://shop.example.com/static/other.js', lineno: 1, colno: 11 }),
      frame({ filename: 'https://shop.example.com/static/app.min.js' }),
    ];
    expect(await symbolicator.symbolicate(projectId, 'shop@3.0.0', null, frames)).toEqual(frames);
    const elsewhere = [frame({ filename: 'https://shop.example.com/static/app.min.js', lineno: 1, colno: 11 })];
    expect(await symbolicator.symbolicate(projectId, 'shop@9.9.9', null, elsewhere)).toEqual(elsewhere);
  });

  it('leaves a frame minified when its stored map fails on the lookup, instead of failing the errors', async () => {
    // Stored directly: a map the upload check now refuses (its second segment names a source it does not list).
    await upload('shop@broken', '~/static/b.js', JSON.stringify({ version: 3, sources: ['a.js'], names: [], mappings: 'AAAA,KCAA' }));
    const frames = [frame({ filename: 'https://shop.example.com/static/b.js', lineno: 1, colno: 6 })];
    expect(await new Symbolicator(metadata).symbolicate(projectId, 'shop@broken', null, frames)).toEqual(frames);
  });

  it('uses only the given dist, and without one prefers the map uploaded without a dist', async () => {
    const other = new SourceMapGenerator({ file: 'app.min.js' });
    other.addMapping({ generated: { line: 1, column: 10 }, original: { line: 99, column: 0 }, source: 'src/ios.js' });
    await upload('shop@4.0.0', '~/static/app.min.js', other.toString(), 'ios');
    await upload('shop@4.0.0', '~/static/app.min.js', handMadeMap());
    const symbolicator = new Symbolicator(metadata);
    const at = [frame({ filename: 'https://shop.example.com/static/app.min.js', lineno: 1, colno: 11 })];
    expect((await symbolicator.symbolicate(projectId, 'shop@4.0.0', 'ios', at))[0]!.filename).toBe('src/ios.js');
    expect((await symbolicator.symbolicate(projectId, 'shop@4.0.0', null, at))[0]!.filename).toBe('src/view.js');
    expect((await symbolicator.symbolicate(projectId, 'shop@4.0.0', 'android', at))[0]).toEqual(at[0]);
  });

  it('uses a replaced map at once after forgetRelease, and keeps working when the cache is too small for two maps', async () => {
    const symbolicator = new Symbolicator(metadata, { maxCachedBytes: 10 });
    const at = [frame({ filename: 'https://shop.example.com/static/app.min.js', lineno: 1, colno: 11 })];
    const first = new SourceMapGenerator({ file: 'app.min.js' });
    first.addMapping({ generated: { line: 1, column: 10 }, original: { line: 1, column: 0 }, source: 'src/first.js' });
    await upload('shop@5.0.0', '~/static/app.min.js', first.toString());
    expect((await symbolicator.symbolicate(projectId, 'shop@5.0.0', null, at))[0]!.filename).toBe('src/first.js');

    await upload('shop@5.0.0', '~/static/app.min.js', handMadeMap());
    symbolicator.forgetRelease(projectId, 'shop@5.0.0');
    const [again, second] = await Promise.all([
      symbolicator.symbolicate(projectId, 'shop@5.0.0', null, at),
      symbolicator.symbolicate(projectId, 'shop@5.0.0', null, at),
    ]);
    expect([again![0]!.filename, second![0]!.filename]).toEqual(['src/view.js', 'src/view.js']);
  });
});

describe('Symbolicator.enrich', () => {
  const record = (fields: Partial<ErrorRecord>): ErrorRecord => ({
    id: randomUUID(),
    projectId,
    timestamp: Date.now(),
    receivedAt: Date.now(),
    type: 'TypeError',
    value: 'no items',
    level: 'error',
    release: 'shop@6.0.0',
    environment: null,
    platform: 'javascript',
    source: null,
    traceId: null,
    spanId: null,
    user: {},
    tags: {},
    extra: {},
    frames: [],
    breadcrumbs: [],
    fingerprint: null,
    retentionDays: 3,
    ...fields,
  });

  it('symbolicates errors of a release with maps and returns the others as they came', async () => {
    await upload('shop@6.0.0', '~/static/app.min.js', handMadeMap());
    const minified = [frame({ function: 'y', filename: 'https://shop.example.com/static/app.min.js', lineno: 1, colno: 35 })];
    const covered = record({ frames: minified });
    const otherRelease = record({ release: 'shop@0.1.0', frames: minified });
    const noRelease = record({ release: null, frames: minified });
    const noFrames = record({});
    const enriched = await new Symbolicator(metadata).enrich([covered, otherRelease, noRelease, noFrames]);
    expect(enriched[0]!.frames[0]).toMatchObject({ filename: 'src/api.js', lineno: 3, minified: { function: 'y', lineno: 1, colno: 35 } });
    expect(enriched[0]).toMatchObject({ id: covered.id, type: 'TypeError', value: 'no items' });
    expect(enriched.slice(1)).toEqual([otherRelease, noRelease, noFrames]);
    expect(enriched[1]).toBe(otherRelease);
  });

  it('answers a batch no map covers as it came, without a copy', async () => {
    const minified = [frame({ function: 'y', filename: 'https://shop.example.com/static/app.min.js', lineno: 1, colno: 35 })];
    const batch = [record({ release: 'shop@0.2.0', frames: minified }), record({ release: null, frames: minified }), record({})];
    expect(await new Symbolicator(metadata).enrich(batch)).toBe(batch);
  });
});
