import { serverWithProject } from '@tlm/testkit';

/** Live tail: GET /api/orgs/:org/projects/:project/gql/tail streams new logs of a search over server-sent events. */

const context = serverWithProject();

function tailPath(q: string): string {
  const { session, project } = context.setup;
  return `/api/orgs/${session.organization.id}/projects/${project.id}/gql/tail?q=${encodeURIComponent(q)}`;
}

const sendLogs = (batch: { severity: string; message: string }[]) =>
  context.server.api.post('/v1/logs', { token: context.setup.secretKey, body: { batch } });

interface TailEvent {
  event: string;
  data: any;
}

/** Reads server-sent events until `done` says so or the time runs out; then the stream is closed. */
async function readTail(q: string, done: (events: TailEvent[]) => boolean, options: { afterOpen?: () => Promise<unknown>; timeoutMs?: number } = {}) {
  const controller = new AbortController();
  const response = await fetch(`${context.server.url}${tailPath(q)}`, {
    headers: { authorization: `Bearer ${context.setup.session.token}` },
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  await options.afterOpen?.();
  const events: TailEvent[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const deadline = setTimeout(() => controller.abort(), options.timeoutMs ?? 8_000);
  let buffer = '';
  try {
    while (!done(events)) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const name = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (name && data) events.push({ event: name, data: JSON.parse(data) });
      }
    }
  } catch (error) {
    if ((error as Error).name !== 'AbortError') throw error;
  } finally {
    clearTimeout(deadline);
    controller.abort();
  }
  return events;
}

const messagesOf = (events: TailEvent[]) => events.filter((e) => e.event === 'rows').flatMap((e) => e.data.results.map((row: any) => row.message));

describe('live tail', () => {
  it('sends a log stored after the tail opened, and not the ones stored before', async () => {
    expect((await sendLogs([{ severity: 'error', message: 'tail-before' }])).status).toBe(202);
    const events = await readTail('from:logs severity:error', (seen) => messagesOf(seen).includes('tail-after'), {
      afterOpen: () => sendLogs([{ severity: 'error', message: 'tail-after' }, { severity: 'info', message: 'tail-other-severity' }]),
    });
    expect(messagesOf(events)).toEqual(['tail-after']);
    const row = events.find((e) => e.event === 'rows')!.data.results[0];
    expect(row.severity).toBe('error');
    expect(typeof row.id).toBe('string');
  });

  it('sends each row once across polls', async () => {
    const events = await readTail('from:logs tail-once', (seen) => messagesOf(seen).includes('tail-once-2'), {
      afterOpen: async () => {
        await sendLogs([{ severity: 'info', message: 'tail-once-1' }]);
        await new Promise((resolve) => setTimeout(resolve, 2_500));
        await sendLogs([{ severity: 'info', message: 'tail-once-2' }]);
      },
    });
    expect(messagesOf(events).sort()).toEqual(['tail-once-1', 'tail-once-2']);
  });
});

describe('refusals before the stream opens', () => {
  it.each([
    ['a query that does not parse', 'from:logs | count by', 400],
    ['an aggregate', 'from:logs | count by severity', 400],
    ['another source', 'from:events', 400],
  ])('answers %s with JSON VALIDATION_ERROR', async (_name, q, status) => {
    const reply = await context.server.api.get(tailPath(q), { token: context.setup.session.token });
    expect(reply.status).toBe(status);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('answers 401 UNAUTHORIZED without a session', async () => {
    const reply = await context.server.api.get(tailPath('from:logs'));
    expect(reply.status).toBe(401);
    expect(reply.body.error.code).toBe('UNAUTHORIZED');
  });

  it('answers 404 NOT_FOUND for a project of another organization', async () => {
    const { session } = context.setup;
    const reply = await context.server.api.get(`/api/orgs/${session.organization.id}/projects/00000000-0000-4000-8000-000000000000/gql/tail?q=from%3Alogs`, {
      token: session.token,
    });
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe('NOT_FOUND');
  });
});
