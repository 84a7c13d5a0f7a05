import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { createKey, eventually, serverWithProject, setupProject } from '@tlm/testkit';

/** Envelope `attachment` items (files beside an error event): stored, listed and read back, and their bad inputs. */
const fixture = serverWithProject();

type Item = { header: Record<string, unknown>; payload: Buffer | string };

function envelope(items: Item[], header: Record<string, unknown>): Buffer {
  const parts: Buffer[] = [Buffer.from(`${JSON.stringify(header)}\n`)];
  for (const item of items) {
    const payload = Buffer.isBuffer(item.payload) ? item.payload : Buffer.from(item.payload);
    parts.push(Buffer.from(`${JSON.stringify({ ...item.header, length: payload.length })}\n`), payload, Buffer.from('\n'));
  }
  return Buffer.concat(parts);
}

const sentryAuth = (key: string) => ({ 'x-sentry-auth': `Sentry sentry_key=${key}, sentry_version=7, sentry_client=test/1.0` });
const postSentry = (body: Buffer) =>
  fixture.server.api.post(`/api/${fixture.setup.project.dsn_id}/envelope/`, {
    body,
    headers: { 'content-type': 'application/x-sentry-envelope', ...sentryAuth(fixture.setup.publicKey) },
  });

const eventItem = (value: string): Item => ({ header: { type: 'event' }, payload: JSON.stringify({ exception: { values: [{ type: 'AttachError', value }] } }) });

let counter = 0;
/** A fresh event id (32 hex digits) and its UUID form, as error rows and attachment rows store it. */
function newEventId(): { hex: string; uuid: string } {
  counter += 1;
  const hex = `${process.pid.toString(16).padStart(8, '0')}${counter.toString(16).padStart(24, '0')}`;
  return { hex, uuid: hex.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5') };
}

const listed = async (eventId: string, token = fixture.setup.secretKey) => fixture.server.api.get(`/v1/attachments?event_id=${eventId}`, { token });
const storedBody = (blobKey: string) => readFileSync(path.join(fixture.server.dataDir, 'blobs', blobKey));

describe('Sentry attachment envelope items', () => {
  it("takes a gzipped envelope whose log file is all brackets: an attachment is never parsed, so it costs no JSON budget", async () => {
    const event = newEventId();
    // A heartbeat log as scope.addAttachment sends it: gzip makes 50,000 lines into a few KB holding a million `[`.
    const log = Buffer.from('[WARN] [pool] [db] [retry] [1] [2] [3] [4] [5] [6] [7] [8] [9] [10] [11] [12] [13] [14] [15] [16] [17] [18] [19] [20]\n'.repeat(50_000));
    const body = gzipSync(envelope([eventItem('beside a bracketed log'), { header: { type: 'attachment', filename: 'app.log', content_type: 'text/plain' }, payload: log }], { event_id: event.hex }));
    expect(log.toString('latin1').split('[').length - 1).toBeGreaterThan(32 * body.length);
    const reply = await fixture.server.api.post(`/api/${fixture.setup.project.dsn_id}/envelope/`, {
      body,
      headers: { 'content-type': 'application/x-sentry-envelope', 'content-encoding': 'gzip', ...sentryAuth(fixture.setup.publicKey) },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ accepted: 2, rejected: 0 });
    await eventually(async () => expect((await listed(event.hex)).body.attachments).toHaveLength(1));
  });

  it('stores an attachment beside its event: the bytes as sent, listed by event id and read back with its name and type', async () => {
    const event = newEventId();
    const log = Buffer.from('line 1\nline 2 \u00e9\n\u0000binary\u00ff');
    const reply = await postSentry(
      envelope(
        [
          eventItem('with a log file'),
          { header: { type: 'attachment', filename: 'app.log', content_type: 'text/plain' }, payload: log },
          { header: { type: 'attachment', filename: 'core.dmp', attachment_type: 'event.minidump' }, payload: Buffer.from([0x4d, 0x44, 0x4d, 0x50, 0, 1, 2]) },
          { header: { type: 'attachment', filename: 'page.html', content_type: 'text/html; charset=iso-8859-1' }, payload: '<p>caf\u00e9</p>' },
        ],
        { event_id: event.hex },
      ),
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ accepted: 4, rejected: 0 });

    const answer = await eventually(async () => {
      const found = await listed(event.hex);
      expect(found.body.attachments).toHaveLength(3);
      return found;
    });
    expect(answer.status).toBe(200);
    const byName = Object.fromEntries(answer.body.attachments.map((attachment: { filename: string }) => [attachment.filename, attachment]));
    expect(byName['app.log']).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      event_id: event.uuid,
      filename: 'app.log',
      content_type: 'text/plain',
      attachment_type: 'event.attachment',
      size_bytes: log.length,
      received_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    expect(byName['core.dmp']).toMatchObject({ content_type: 'application/octet-stream', attachment_type: 'event.minidump', size_bytes: 7 });
    expect(byName['page.html']).toMatchObject({ content_type: 'text/html; charset=iso-8859-1' });
    // The UUID form of the event id finds the same attachments.
    expect((await listed(event.uuid)).body.attachments).toHaveLength(3);
    const html = await fetch(`${fixture.server.url}/v1/attachments/${byName['page.html'].id}`, { headers: { authorization: `Bearer ${fixture.setup.secretKey}` } });
    expect(html.headers.get('content-type')).toBe('text/html; charset=iso-8859-1');

    const response = await fetch(`${fixture.server.url}/v1/attachments/${byName['app.log'].id}`, { headers: { authorization: `Bearer ${fixture.setup.secretKey}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename=app.log');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.compare(Buffer.from(await response.arrayBuffer()), log)).toBe(0);

    const [row] = await fixture.server.standalone.analytics.query('SELECT blob_key FROM attachments WHERE project_id = $p AND id = $id', {
      p: fixture.setup.project.id,
      id: byName['app.log'].id,
    });
    expect(row!['blob_key']).toBe(`${fixture.setup.project.id}/attachments/${new Date().toISOString().slice(0, 10)}/${event.uuid}/${byName['app.log'].id}`);
    expect(Buffer.compare(storedBody(String(row!['blob_key'])), log)).toBe(0);
  });

  it('keeps one attachment when an SDK sends its envelope again', async () => {
    const event = newEventId();
    const sent = envelope([{ header: { type: 'attachment', filename: 'retry.txt' }, payload: 'same file' }], { event_id: event.hex });
    for (let attempt = 0; attempt < 2; attempt++) expect((await postSentry(sent)).body).toMatchObject({ accepted: 1, rejected: 0 });
    await eventually(async () => expect((await listed(event.hex)).body.attachments).toHaveLength(1));
    const rows = await fixture.server.standalone.analytics.query('SELECT id FROM attachments WHERE project_id = $p AND event_id = $e', {
      p: fixture.setup.project.id,
      e: event.uuid,
    });
    expect(rows).toHaveLength(1);
  });

  it('takes an attachment larger than the 1 MiB other items may hold, up to 10 MiB', async () => {
    const event = newEventId();
    const big = Buffer.alloc(3 * 1024 * 1024, 0x61);
    const reply = await postSentry(envelope([{ header: { type: 'attachment', filename: 'big.bin' }, payload: big }], { event_id: event.hex }));
    expect(reply.body).toMatchObject({ accepted: 1, rejected: 0 });
    await eventually(async () => expect((await listed(event.hex)).body.attachments).toEqual([expect.objectContaining({ size_bytes: big.length })]));
  });

  it.each([
    ['no event_id in the envelope header', {}, { type: 'attachment', filename: 'a.txt' }, 'attachment item: the envelope header has no event_id (32 hex digits) to attach it to'],
    ['an event_id that is not one', { event_id: 'nope' }, { type: 'attachment', filename: 'a.txt' }, 'attachment item: the envelope header has no event_id (32 hex digits) to attach it to'],
    ['no filename', { event_id: 'fresh' }, { type: 'attachment' }, 'attachment item: filename is required, at most 255 characters'],
    ['a filename of 256 characters', { event_id: 'fresh' }, { type: 'attachment', filename: 'f'.repeat(256) }, 'attachment item: filename is required, at most 255 characters'],
    ['a content_type that is not text', { event_id: 'fresh' }, { type: 'attachment', filename: 'a.txt', content_type: 7 }, 'attachment item: content_type must be text of at most 128 characters'],
    ['a content_type that is not a media type', { event_id: 'fresh' }, { type: 'attachment', filename: 'a.txt', content_type: 'text/plain\r\nSet-Cookie: a=b' }, 'attachment item: content_type must be a media type such as text/plain'],
    ['a content_type beyond ASCII', { event_id: 'fresh' }, { type: 'attachment', filename: 'a.txt', content_type: 'text/\u20ac' }, 'attachment item: content_type must be a media type such as text/plain'],
  ])('rejects an attachment with %s, with a reason, and keeps the event beside it', async (_label, header, itemHeader, reason) => {
    const value = `kept beside ${_label}`;
    // Each case its own event: a second event of one id would be an SDK's retry, skipped.
    const envelopeHeader = (header as Record<string, unknown>)['event_id'] === 'fresh' ? { event_id: newEventId().hex } : header;
    const reply = await postSentry(envelope([eventItem(value), { header: itemHeader, payload: 'never stored' }], envelopeHeader));
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ accepted: 1, rejected: 1, errors: [{ index: 1, message: reason }] });
    const rows = await fixture.server.standalone.analytics.query('SELECT id FROM errors WHERE project_id = $p AND value = $v', { p: fixture.setup.project.id, v: value });
    expect(rows).toHaveLength(1);
  });

  it('rejects an attachment over 10 MiB and keeps its neighbours', async () => {
    const event = newEventId();
    const reply = await postSentry(
      envelope(
        [
          { header: { type: 'attachment', filename: 'huge.bin' }, payload: Buffer.alloc(10 * 1024 * 1024 + 1) },
          { header: { type: 'attachment', filename: 'small.txt' }, payload: 'small' },
        ],
        { event_id: event.hex },
      ),
    );
    expect(reply.body).toMatchObject({ accepted: 1, rejected: 1, errors: [{ index: 0, message: 'attachment item exceeds 10485760 bytes' }] });
    await eventually(async () => expect((await listed(event.hex)).body.attachments.map((a: { filename: string }) => a.filename)).toEqual(['small.txt']));
  });
});

describe('GET /v1/attachments', () => {
  it('answers 400 VALIDATION_ERROR for an event_id that is not one', async () => {
    const reply = await listed('not-an-event');
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'query parameter event_id must be 32 hex digits or a UUID' });
  });

  it('answers 404 NOT_FOUND for an unknown attachment, an id that is not one and an attachment of another project', async () => {
    const event = newEventId();
    await postSentry(envelope([{ header: { type: 'attachment', filename: 'mine.txt' }, payload: 'mine' }], { event_id: event.hex }));
    const [mine] = await eventually(async () => {
      const found = (await listed(event.hex)).body.attachments;
      expect(found).toHaveLength(1);
      return found;
    });
    const other = await setupProject(fixture.server.api);
    for (const [id, token] of [
      ['0b9a8f3e-1111-4222-8333-444455556666', fixture.setup.secretKey],
      ['not-an-id', fixture.setup.secretKey],
      [mine.id, other.secretKey],
    ]) {
      const reply = await fixture.server.api.get(`/v1/attachments/${id}`, { token });
      expect(reply.status).toBe(404);
      expect(reply.body.error.code).toBe('NOT_FOUND');
    }
    expect((await listed(event.hex, other.secretKey)).body.attachments).toEqual([]);
  });

  it('answers 401 without a key and 403 FORBIDDEN for a key without data:read', async () => {
    expect((await fixture.server.api.get('/v1/attachments')).status).toBe(401);
    const ingestOnly = await createKey(fixture.server.api, fixture.setup.session, fixture.setup.project.id, { type: 'secret', scopes: ['ingest:write'] });
    const reply = await fixture.server.api.get('/v1/attachments', { token: ingestOnly.key });
    expect(reply.status).toBe(403);
    expect(reply.body.error.code).toBe('FORBIDDEN');
  });
});
