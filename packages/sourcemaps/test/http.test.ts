import { randomUUID } from 'node:crypto';
import { createKey, serverWithProject, setupProject } from '@tlm/testkit';
import { SourceMapGenerator } from 'source-map';
import { MAX_SOURCE_MAP_BYTES } from '../src/sourceMap';

/**
 * Source maps over HTTP against a started server (the routes are mounted by the ingest gateway): PUT and GET
 * /v1/artifacts, POST /v1/symbolicate, and symbolication of errors at ingest by the issues processor.
 */
const fixture = serverWithProject();

const APP_URL = 'https://shop.example.com/static/js/app.min.js';

/**
 * A map of `app.min.js` line 1: a call at column 10 to `render` (src/view.js:12:4) and one at column 30 to `query`
 * (src/api.js:3:8), whose source is inlined.
 */
function appMap(): string {
  const generator = new SourceMapGenerator({ file: 'app.min.js' });
  generator.addMapping({ generated: { line: 1, column: 10 }, original: { line: 12, column: 4 }, source: 'src/view.js', name: 'render' });
  generator.addMapping({ generated: { line: 1, column: 30 }, original: { line: 3, column: 8 }, source: 'src/api.js', name: 'query' });
  generator.setSourceContent('src/api.js', 'import { get } from "./http";\n\nexport const query = (q) => get(q).then((r) => r.json());\n');
  return generator.toString();
}

const putJson = (body: unknown, token = fixture.setup.secretKey) => fixture.server.api.put('/v1/artifacts', { token, body });

/** A multipart upload as curl -F and sentry-cli send it. */
async function putMultipart(fields: Record<string, string>, file: { content: string; filename: string } | null, token = fixture.setup.secretKey) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  if (file) form.set('file', new Blob([file.content], { type: 'application/json' }), file.filename);
  const response = await fetch(`${fixture.server.url}/v1/artifacts`, { method: 'PUT', headers: { authorization: `Bearer ${token}` }, body: form });
  return { status: response.status, body: (await response.json()) as any };
}

const listArtifacts = (release: string, token = fixture.setup.secretKey) =>
  fixture.server.api.get(`/v1/artifacts?release=${encodeURIComponent(release)}`, { token });

const symbolicate = (body: unknown, token = fixture.setup.secretKey) => fixture.server.api.post('/v1/symbolicate', { token, body });

describe('PUT /v1/artifacts', () => {
  it('stores a source map sent as JSON and lists it by release', async () => {
    const map = appMap();
    const reply = await putJson({ release: 'shop@1.0.0', name: '~/static/js/app.min.js.map', content: map });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      release: 'shop@1.0.0',
      dist: null,
      name: '~/static/js/app.min.js.map',
      size: Buffer.byteLength(map),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    await putJson({ release: 'shop@0.9.0', name: '~/static/js/old.min.js.map', content: map });

    const listed = await listArtifacts('shop@1.0.0');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ artifacts: [reply.body] });
    const all = await fixture.server.api.get('/v1/artifacts', { token: fixture.setup.secretKey });
    expect(all.body.artifacts.map((artifact: { release: string }) => artifact.release).sort()).toEqual(['shop@0.9.0', 'shop@1.0.0']);
  });

  it('takes the map as a JSON object too, and replaces a map uploaded again under the same name (200, new id)', async () => {
    const first = await putJson({ release: 'shop@1.1.0', dist: 'web', name: '~/app.js.map', content: JSON.parse(appMap()) });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ dist: 'web', name: '~/app.js.map' });
    const again = await putJson({ release: 'shop@1.1.0', dist: 'web', name: '~/app.js.map', content: appMap() });
    expect(again.status).toBe(200);
    expect(again.body.id).not.toBe(first.body.id);
    expect((await listArtifacts('shop@1.1.0')).body.artifacts).toEqual([again.body]);
  });

  it('stores a multipart upload from a public key (ingest:write), naming it after the file unless a name is given', async () => {
    const byFile = await putMultipart({ release: 'shop@1.2.0' }, { content: appMap(), filename: 'app.min.js.map' }, fixture.setup.publicKey);
    expect(byFile.status).toBe(201);
    expect(byFile.body).toMatchObject({ release: 'shop@1.2.0', name: 'app.min.js.map', dist: null });
    const named = await putMultipart({ release: 'shop@1.2.0', dist: 'ios', name: '~/static/vendor.js.map' }, { content: appMap(), filename: 'x.map' }, fixture.setup.publicKey);
    expect(named.status).toBe(201);
    expect(named.body).toMatchObject({ name: '~/static/vendor.js.map', dist: 'ios' });
    const names = (await listArtifacts('shop@1.2.0')).body.artifacts.map((artifact: { name: string }) => artifact.name);
    expect(names.sort()).toEqual(['app.min.js.map', '~/static/vendor.js.map']);
  });

  it('rejects an upload without a release with 400 VALIDATION_ERROR, as JSON and as multipart', async () => {
    const json = await putJson({ name: '~/app.js.map', content: appMap() });
    expect(json.status).toBe(400);
    expect(json.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'request body: release is required' });
    const multipart = await putMultipart({}, { content: appMap(), filename: 'app.js.map' });
    expect(multipart.status).toBe(400);
    expect(multipart.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'multipart body: release is required' });
  });

  it('rejects a multipart upload without a file part, and a release name with a line break', async () => {
    const noFile = await putMultipart({ release: 'shop@1.0.0', name: '~/a.js.map' }, null);
    expect(noFile.status).toBe(400);
    expect(noFile.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'multipart body: the source map file part is required' });
    const badRelease = await putJson({ release: 'shop\n1', name: '~/a.js.map', content: appMap() });
    expect(badRelease.status).toBe(400);
    expect(badRelease.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('rejects a multipart upload with two files, and a listing that names the release twice, with 400 VALIDATION_ERROR', async () => {
    const form = new FormData();
    form.set('release', 'shop@two');
    form.append('file', new Blob([appMap()]), 'a.js.map');
    form.append('file', new Blob([appMap()]), 'b.js.map');
    const response = await fetch(`${fixture.server.url}/v1/artifacts`, { method: 'PUT', headers: { authorization: `Bearer ${fixture.setup.secretKey}` }, body: form });
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error).toEqual({ code: 'VALIDATION_ERROR', message: 'a multipart upload carries one source map' });
    const twice = await fixture.server.api.get('/v1/artifacts?release=a&release=b', { token: fixture.setup.secretKey });
    expect(twice.status).toBe(400);
    expect(twice.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'query parameter release must be given once' });
  });

  it.each([
    ['text that is not JSON', 'console.log("minified code")', 'content is not a source map: it is not JSON'],
    ['JSON that is not an object', '[1, 2]', 'content is not a source map: it is not a JSON object'],
    ['a version 2 map', JSON.stringify({ version: 2, sources: [], mappings: '' }), 'content is not a source map: version must be 3'],
    ['a map without mappings', JSON.stringify({ version: 3, sources: [] }), 'content is not a source map: mappings must be a string'],
    ['a map with broken mappings', JSON.stringify({ version: 3, sources: ['a.js'], names: [], mappings: '!!!!' }), 'content is not a source map: Error parsing mappings (code 4): invalid base 64 character while parsing a VLQ'],
    // Each of these passed a lookup of line 1, column 0 and failed symbolication later, for every error of the release.
    ['a segment naming a source the map lacks', JSON.stringify({ version: 3, sources: ['a.js'], names: [], mappings: 'AAAA,KCAA' }), 'content is not a source map: No element indexed by 1'],
    ['a segment naming a name the map lacks', JSON.stringify({ version: 3, sources: ['a.js'], names: ['x'], mappings: 'AAAAA,KAAAQ' }), 'content is not a source map: No element indexed by 8'],
    ['sourcesContent that is not text', JSON.stringify({ version: 3, sources: ['a.js'], names: [], mappings: 'AAAA', sourcesContent: [5] }), 'content is not a source map: sourcesContent must be an array of strings'],
    [
      'an index map whose second section is broken',
      JSON.stringify({
        version: 3,
        sections: [
          { offset: { line: 0, column: 0 }, map: { version: 3, sources: ['a.js'], names: [], mappings: 'AAAA' } },
          { offset: { line: 10, column: 0 }, map: { version: 3, sources: ['b.js'], names: [], mappings: '!!!!' } },
        ],
      }),
      'content is not a source map: Error parsing mappings (code 4): invalid base 64 character while parsing a VLQ',
    ],
  ])('rejects %s with 400 VALIDATION_ERROR', async (_label, content, message) => {
    const reply = await putJson({ release: 'shop@bad', name: '~/a.js.map', content });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({ code: 'VALIDATION_ERROR', message });
    const multipart = await putMultipart({ release: 'shop@bad' }, { content, filename: 'a.js.map' });
    expect(multipart.status).toBe(400);
    expect(multipart.body.error).toEqual({ code: 'VALIDATION_ERROR', message });
    expect((await listArtifacts('shop@bad')).body.artifacts).toEqual([]);
  });

  describe('over the 10 MiB limit', () => {
    const oversized = `{"version":3,"sources":["a.js"],"names":[],"mappings":"${'A'.repeat(MAX_SOURCE_MAP_BYTES)}"}`;

    it('rejects a JSON upload with 413 PAYLOAD_TOO_LARGE', async () => {
      const reply = await putJson({ release: 'shop@big', name: '~/big.js.map', content: oversized });
      expect(reply.status).toBe(413);
      expect(reply.body.error.code).toBe('PAYLOAD_TOO_LARGE');
      expect(reply.body.error.message).toContain(`at most ${MAX_SOURCE_MAP_BYTES} bytes`);
    });

    it('rejects a multipart upload with 413 PAYLOAD_TOO_LARGE', async () => {
      const reply = await putMultipart({ release: 'shop@big' }, { content: oversized, filename: 'big.js.map' });
      expect(reply.status).toBe(413);
      expect(reply.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    });

    it('rejects a JSON body too large to hold any map with 413 PAYLOAD_TOO_LARGE, before reading it all', async () => {
      const reply = await fixture.server.api.put('/v1/artifacts', {
        token: fixture.setup.secretKey,
        body: JSON.stringify({ release: 'shop@big', name: '~/big.js.map', content: oversized + oversized }),
        headers: { 'content-type': 'application/json' },
      });
      expect(reply.status).toBe(413);
      expect(reply.body.error).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: `the upload is larger than a source map may be (${MAX_SOURCE_MAP_BYTES} bytes, 10 MiB)` });
      expect((await listArtifacts('shop@big')).body.artifacts).toEqual([]);
    });
  });
});

describe('CORS', () => {
  it.each(['/v1/artifacts', '/v1/symbolicate'])('answers a preflight on %s like every ingest path', async (path) => {
    const reply = await fixture.server.api.request('OPTIONS', path, { headers: { origin: 'https://build.example', 'access-control-request-method': 'PUT' } });
    expect(reply.status).toBe(204);
    expect(reply.headers.get('access-control-allow-origin')).toBe('https://build.example');
  });

  it('names the origin on the answer itself', async () => {
    const reply = await fixture.server.api.get('/v1/artifacts?release=none', { token: fixture.setup.secretKey, headers: { origin: 'https://build.example' } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('access-control-allow-origin')).toBe('https://build.example');
  });
});

describe('scopes', () => {
  it('answers 401 UNAUTHORIZED without a key', async () => {
    for (const reply of [
      await fixture.server.api.put('/v1/artifacts', { body: { release: 'x', name: 'a', content: appMap() } }),
      await fixture.server.api.get('/v1/artifacts'),
      await fixture.server.api.post('/v1/symbolicate', { body: { release: 'x', frames: [] } }),
    ]) {
      expect(reply.status).toBe(401);
      expect(reply.body.error.code).toBe('UNAUTHORIZED');
    }
  });

  it('refuses listing and symbolication to a public key (ingest:write only) with 403 FORBIDDEN', async () => {
    const list = await listArtifacts('shop@1.0.0', fixture.setup.publicKey);
    expect(list.status).toBe(403);
    expect(list.body.error).toEqual({ code: 'FORBIDDEN', message: 'this key lacks the data:read scope', details: { required: ['data:read'] } });
    const mapped = await symbolicate({ release: 'shop@1.0.0', frames: [] }, fixture.setup.publicKey);
    expect(mapped.status).toBe(403);
    expect(mapped.body.error.code).toBe('FORBIDDEN');
  });

  it('refuses an upload to a secret key without ingest:write, and serves reads to one with data:read', async () => {
    const reader = await createKey(fixture.server.api, fixture.setup.session, fixture.setup.project.id, { type: 'secret', scopes: ['data:read'] });
    const upload = await putJson({ release: 'shop@scoped', name: '~/a.js.map', content: appMap() }, reader.key);
    expect(upload.status).toBe(403);
    expect(upload.body.error).toMatchObject({ code: 'FORBIDDEN', details: { required: ['ingest:write'] } });
    expect((await listArtifacts('shop@scoped', reader.key)).status).toBe(200);
    expect((await symbolicate({ release: 'shop@scoped', frames: [] }, reader.key)).status).toBe(200);
  });

  it("never lists or uses another project's maps", async () => {
    const other = await setupProject(fixture.server.api);
    await putJson({ release: 'shared@1', name: '~/static/js/app.min.js.map', content: appMap() }, other.secretKey);
    expect((await listArtifacts('shared@1')).body.artifacts).toEqual([]);
    const frame = { filename: APP_URL, lineno: 1, colno: 31, function: 'q' };
    expect((await symbolicate({ release: 'shared@1', frames: [frame] })).body.frames[0]).not.toHaveProperty('minified');
  });
});

describe('POST /v1/symbolicate', () => {
  beforeAll(async () => {
    expect((await putJson({ release: 'shop@2.0.0', name: '~/static/js/app.min.js.map', content: appMap() })).status).toBe(201);
  });

  it('maps frames through the stored map, keeping each minified position beside the original', async () => {
    const reply = await symbolicate({
      release: 'shop@2.0.0',
      frames: [
        { filename: 'https://shop.example.com/checkout', lineno: 4, colno: 2, function: null },
        { filename: `${APP_URL}?v=2`, lineno: 1, colno: 11, function: 'r' },
        { filename: APP_URL, lineno: 1, colno: 33, function: 'q' },
      ],
    });
    expect(reply.status).toBe(200);
    expect(reply.body.frames).toEqual([
      { function: null, filename: 'https://shop.example.com/checkout', abs_path: null, module: null, lineno: 4, colno: 2, in_app: true, context_line: null },
      {
        function: 'r',
        filename: 'src/view.js',
        abs_path: 'src/view.js',
        module: null,
        lineno: 12,
        colno: 5,
        in_app: true,
        context_line: null,
        minified: { filename: `${APP_URL}?v=2`, function: 'r', lineno: 1, colno: 11 },
      },
      {
        // The call site in the frame before names this frame's function.
        function: 'render',
        filename: 'src/api.js',
        abs_path: 'src/api.js',
        module: null,
        lineno: 3,
        colno: 9,
        in_app: true,
        context_line: 'export const query = (q) => get(q).then((r) => r.json());',
        pre_context: ['import { get } from "./http";', ''],
        post_context: [''],
        minified: { filename: APP_URL, function: 'q', lineno: 1, colno: 33 },
      },
    ]);
  });

  it('returns frames unchanged for a release without maps', async () => {
    const frame = { filename: APP_URL, lineno: 1, colno: 11, function: 'r' };
    const reply = await symbolicate({ release: 'shop@0.0.1', frames: [frame] });
    expect(reply.status).toBe(200);
    expect(reply.body.frames).toEqual([{ ...frame, abs_path: null, module: null, in_app: true, context_line: null }]);
  });

  it.each([
    ['no release', { frames: [] }, 'request body: release is required'],
    ['no frames', { release: 'shop@2.0.0' }, 'request body: frames is required'],
    ['a frame without colno', { release: 'shop@2.0.0', frames: [{ filename: APP_URL, lineno: 1 }] }, 'request body: frames.0.colno is required'],
    ['a line number of 0', { release: 'shop@2.0.0', frames: [{ filename: APP_URL, lineno: 0, colno: 1 }] }, 'request body: frames.0.lineno must be >= 1'],
  ])('rejects %s with 400 VALIDATION_ERROR', async (_label, body, message) => {
    const reply = await symbolicate(body);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({ code: 'VALIDATION_ERROR', message });
  });

  it('rejects more than 250 frames with 400 VALIDATION_ERROR', async () => {
    const frames = Array.from({ length: 251 }, () => ({ filename: APP_URL, lineno: 1, colno: 1 }));
    const reply = await symbolicate({ release: 'shop@2.0.0', frames });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('symbolication at ingest', () => {
  /** A Sentry envelope with one error event of `release`, thrown in app.min.js. */
  function errorEnvelope(eventId: string, release: string): Buffer {
    const event = {
      event_id: eventId,
      release,
      platform: 'javascript',
      exception: {
        values: [
          {
            type: 'TypeError',
            value: "Cannot read properties of undefined (reading 'json')",
            stacktrace: {
              frames: [
                { function: 'r', filename: APP_URL, abs_path: APP_URL, lineno: 1, colno: 11, in_app: true },
                { function: 'q', filename: APP_URL, abs_path: APP_URL, lineno: 1, colno: 33, in_app: true },
              ],
            },
          },
        ],
      },
    };
    const payload = JSON.stringify(event);
    return Buffer.from(`${JSON.stringify({ event_id: eventId })}\n${JSON.stringify({ type: 'event', length: Buffer.byteLength(payload) })}\n${payload}\n`);
  }

  async function storedFrames(eventId: string) {
    const reply = await fixture.server.api.post('/v1/gql/query', { token: fixture.setup.secretKey, body: { q: `from:errors id:${eventId} | fields id, frames` } });
    expect(reply.status).toBe(200);
    const [row] = reply.body.data.results as { frames: unknown }[];
    return typeof row!.frames === 'string' ? JSON.parse(row!.frames) : row!.frames;
  }

  it('stores the frames of an error whose release has maps symbolicated, with the minified positions kept', async () => {
    await putJson({ release: 'shop@3.0.0', name: '~/static/js/app.min.js', content: appMap() });
    const eventId = randomUUID();
    const sent = await fixture.server.api.post('/v1/envelope', { token: fixture.setup.publicKey, body: errorEnvelope(eventId.replace(/-/g, ''), 'shop@3.0.0') });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ accepted: 1, rejected: 0 });

    expect(await storedFrames(eventId)).toEqual([
      expect.objectContaining({ function: 'r', filename: 'src/view.js', lineno: 12, colno: 5, minified: { filename: APP_URL, function: 'r', lineno: 1, colno: 11 } }),
      expect.objectContaining({
        function: 'render',
        filename: 'src/api.js',
        lineno: 3,
        colno: 9,
        in_app: true,
        context_line: 'export const query = (q) => get(q).then((r) => r.json());',
        pre_context: ['import { get } from "./http";', ''],
        post_context: [''],
        minified: { filename: APP_URL, function: 'q', lineno: 1, colno: 33 },
      }),
    ]);
  });

  it('stores the frames of an error whose release has no maps as they came', async () => {
    const eventId = randomUUID();
    await fixture.server.api.post('/v1/envelope', { token: fixture.setup.publicKey, body: errorEnvelope(eventId.replace(/-/g, ''), 'shop@3.0.1') });
    const frames = await storedFrames(eventId);
    expect(frames.map((frame: { function: string; lineno: number; colno: number }) => [frame.function, frame.lineno, frame.colno])).toEqual([
      ['r', 1, 11],
      ['q', 1, 33],
    ]);
    expect(frames[0]).not.toHaveProperty('minified');
  });
});
