import { setupProject, startTestServer, type ProjectSetup, type TestServer } from '@tlm/testkit';
import { NO_QUERY, PROMPTS } from './nl-prompts';
import { seedProject } from './nl-seed';

/** The share of the test set the built-in translator must answer right (docs/performance.md "Natural language to GQL"). */
const REQUIRED_ACCURACY = 0.9;

let server: TestServer;
let setup: ProjectSetup;
const now = new Date();

beforeAll(async () => {
  server = await startTestServer();
  setup = await setupProject(server.api);
  await seedProject(server, setup.project.id, setup.secretKey, now.getTime());
});
afterAll(() => server.close());

const day = (offset: number) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - offset)).toISOString().slice(0, 10);
const dated = (gql: string) => gql.replaceAll('{today}', day(0)).replaceAll('{yesterday}', day(1)).replaceAll('{monday}', day((now.getUTCDay() + 6) % 7));

/** The answer of a query, in an order-free form: each row's values (group names may be written differently), sorted. */
async function answerOf(gql: string): Promise<{ status: number; rows: string[] }> {
  const reply = await server.api.post('/v1/gql/query', { token: setup.secretKey, body: { q: gql } });
  if (reply.status !== 200) return { status: reply.status, rows: [] };
  const rows = (reply.body.data.results as Record<string, unknown>[]).map((row) =>
    JSON.stringify(
      Object.values(row)
        .map((value) => JSON.stringify(value))
        .sort(),
    ),
  );
  return { status: 200, rows: rows.sort() };
}

describe('the built-in translator on the natural-language test set', () => {
  it(`answers at least ${REQUIRED_ACCURACY * 100}% of the prompts right: its query's answer equals the reference's on the seeded project`, async () => {
    const failures: string[] = [];
    let empty = 0;
    // Eight prompts at a time: the server answers while the next request is on its way.
    for (let start = 0; start < PROMPTS.length; start += 8) {
      await Promise.all(
        PROMPTS.slice(start, start + 8).map(async ({ prompt, reference, mode }) => {
          const expected = await answerOf(dated(reference));
          // A reference that does not run is a defect of the test set, not of the translator.
          expect({ reference, status: expected.status }).toEqual({ reference, status: 200 });
          if (expected.rows.length === 0) empty += 1;
          const translation = await server.api.post('/v1/gql/nl', { token: setup.secretKey, body: { prompt, ...(mode ? { mode } : {}) } });
          const produced = translation.body.valid ? await answerOf(translation.body.gql) : { status: 0, rows: [] };
          if (produced.status !== 200 || JSON.stringify(produced.rows) !== JSON.stringify(expected.rows)) {
            failures.push(`${JSON.stringify(prompt)} → ${translation.body.gql || `(none: ${translation.body.reason})`}   expected ${dated(reference)}`);
          }
        }),
      );
    }
    const accuracy = (PROMPTS.length - failures.length) / PROMPTS.length;
    console.log(
      `natural language to GQL: ${PROMPTS.length - failures.length} of ${PROMPTS.length} prompts right (${(accuracy * 100).toFixed(1)}%)` +
        (failures.length > 0 ? `; wrong:\n${failures.join('\n')}` : ''),
    );
    expect(PROMPTS.length).toBeGreaterThanOrEqual(150);
    // Most references find rows: a test set of empty answers would pass any translator that runs.
    expect(empty).toBeLessThan(PROMPTS.length / 20);
    expect(accuracy).toBeGreaterThanOrEqual(REQUIRED_ACCURACY);
  });

  it('produces no query for prompts that ask nothing about the data: valid false with the reason and suggestions', async () => {
    const answered: string[] = [];
    for (const prompt of NO_QUERY) {
      const reply = await server.api.post('/v1/gql/nl', { token: setup.secretKey, body: { prompt } });
      expect(reply.status).toBe(200);
      if (reply.body.valid || reply.body.gql !== '' || typeof reply.body.reason !== 'string' || !(reply.body.suggestions?.length > 0)) {
        answered.push(`${JSON.stringify(prompt)} → ${JSON.stringify(reply.body)}`);
      }
    }
    expect(answered).toEqual([]);
  });

  it('answers "hello, who are you?" in chat with what it can do, running no query', async () => {
    const reply = await server.api.post('/v1/ai/chat', { token: setup.secretKey, body: { message: 'hello, who are you?' } });
    expect(reply.status).toBe(200);
    expect(reply.body.queries).toEqual([]);
    expect(reply.body.reply).toContain("I answer questions about this project's data");
    const stream = await server.api.post('/v1/ai/chat/stream', { token: setup.secretKey, body: { message: 'what can you do?' } });
    expect(stream.text).not.toContain('event: query');
    expect(stream.text).toContain('event: done');
  });
});
