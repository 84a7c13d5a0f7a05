import { SOURCES, type SchemaDocument } from '@tlm/gql';
import type { ColumnValues, NlAnswer, NlRequest, TokenUsage, Translator } from './translator';
import { calendarOf } from './calendar';
import { queryProblem } from './validate';

/** The conversation's latest turns a model is given (ten questions and their answers). */
export const MAX_MODEL_TURNS = 20;

/** What GQL can say, for a model that has never seen it (docs/gql.md in brief). */
const GRAMMAR = `GQL, the query language. A query names a source, filters rows, and either lists them (search) or aggregates them; segments are separated by |.
Sources: ${SOURCES.map((source) => source.name).join(', ')}.
Conditions: field:value (equals), field != value, field > 10 (>= < <=), field:[a, b] (any of), field:prefix*, -field:value (not), "free text", a OR b, (…). Quote values with spaces or punctuation: country:'New Zealand'.
Properties: a bare name that is not a column reads the source's property bag (on logs, route means properties.route; on errors, browser means tags.browser).
Aggregates, one per query: count, count_distinct(f), sum(f), avg(f), min(f), max(f), p50(f), p75(f), p90(f), p95(f), p99(f); then optionally "by a, b" and/or "by time(1h)" for a series.
After an aggregate: top 5 (the largest groups), sort value asc, limit 5. In a search: sort duration_ms desc, limit 20, fields a, b.
Time: last:1h, last:7d, since:2024-05-01, until:2024-05-02 (units s m h d w). alerts has no time field: never give it a range.
Sessions are summed: sum(quantity), never count. Issues have event_count and user_count per issue: "top issues" is from:issues | sort event_count desc | limit 10.`;

/** Worked examples: a question and the query that answers it. */
const EXAMPLES: [string, string][] = [
  ['how many error logs in the last hour?', 'from:logs severity:error | count | last:1h'],
  ['p95 latency per route', 'from:logs | p95(duration_ms) by route | last:24h'],
  ['slowest 3 routes', 'from:logs | avg(duration_ms) by route | top 3 | last:24h'],
  ['unique users who signed up this week', 'from:events event_name:signup | count_distinct(distinct_id) | last:7d'],
  ['total purchase amount per country', 'from:events event_name:purchase | sum(amount) by country | last:24h'],
  ['how many TypeErrors in staging', 'from:errors type:TypeError environment:staging | count | last:24h'],
  ['top 5 issues by event count', 'from:issues | sort event_count desc | limit 5'],
  ['requests that returned 500', 'from:logs status_code:500 | last:24h'],
  ['p75 LCP by route', 'from:vitals name:lcp | p75(value) by route | last:24h'],
  ['crashed sessions per release', 'from:sessions outcome:crashed | sum(quantity) by release | last:24h'],
  ['alerts that fired today', 'from:alert_events | last:24h'],
  ['error rate of spans by service over time', 'from:spans status:error | count by service, time(1h) | last:24h'],
];

/** The project's vocabulary for the model: sources and columns, properties with example values, event names, stored values. */
function projectSchema(schema: SchemaDocument, values: ColumnValues = {}): string {
  const properties = (list: SchemaDocument['log_properties']) =>
    list
      .slice(0, 60)
      .map((property) => `${property.key} (${property.type}${property.examples.length > 0 ? `: ${property.examples.slice(0, 5).map((example) => JSON.stringify(example)).join(', ')}` : ''})`)
      .join('; ') || 'none yet';
  const lines = SOURCES.map((source) => {
    const columns = [...source.columns.entries()].map(([name, column]) => `${name} ${column.kind}`).join(', ');
    const seen = Object.entries(values[source.name] ?? {})
      .filter(([, list]) => list.length > 0)
      .map(([field, list]) => `${field}: ${list.slice(0, 15).join(', ')}`)
      .join('; ');
    return `- ${source.name}: ${source.description}. Columns: ${columns}.${seen ? ` Values: ${seen}.` : ''}`;
  });
  return [
    'The project:',
    ...lines,
    `Log properties: ${properties(schema.log_properties)}.`,
    `Event properties: ${properties(schema.event_properties)}.`,
    `Event names: ${schema.event_names.map((event) => event.name).slice(0, 50).join(', ') || 'none yet'}.`,
  ].join('\n');
}

type Message = { role: 'system' | 'user' | 'assistant'; content: string };

/**
 * Any OpenAI-compatible chat completions endpoint (AI_BASE_URL, AI_API_KEY, AI_MODEL). The model only proposes
 * text: a query that does not parse or plan goes back once with the error to be fixed, and when the endpoint fails or
 * times out the built-in translator answers instead.
 */
export class OpenAiTranslator implements Translator {
  readonly name = 'openai-compatible';

  constructor(
    private readonly options: { baseUrl: string; apiKey: string; model: string; timeoutMs: number },
    private readonly fallback: Translator,
    private readonly onFailure: (error: unknown) => void = () => {},
  ) {}

  async translate(request: NlRequest): Promise<NlAnswer> {
    const { prompt, mode, schema, values, history = [], now = new Date(), timeZone = 'UTC' } = request;
    const calendar = calendarOf(now, timeZone);
    const system = [
      'You translate questions about an application\'s telemetry into one GQL query. Answer with the query only, or with NONE when the question is not about the data. A follow-up question changes the previous query.',
      GRAMMAR,
      `The asker's time zone is ${timeZone}: "today" there is since:${calendar.dayStart(0)}, "yesterday" since:${calendar.dayStart(1)} until:${calendar.dayStart(0)}.`,
      mode === 'alert'
        ? 'Alert mode: an aggregate query WITHOUT a time range and without "by", e.g. from:logs severity:error | count.'
        : 'Explorer mode: end with a time range such as last:24h (except on alerts).',
      projectSchema(schema, values),
    ].join('\n\n');
    const messages: Message[] = [
      { role: 'system', content: system },
      ...EXAMPLES.flatMap(([question, query]): Message[] => [
        { role: 'user', content: question },
        { role: 'assistant', content: query },
      ]),
      // Earlier turns, the answers as the queries they ran: a follow-up ("and last week?") refers to them.
      ...history.slice(-MAX_MODEL_TURNS).map((turn): Message => ({ role: turn.role, content: turn.role === 'assistant' && turn.queries.length > 0 ? turn.queries.join('\n') : turn.content })),
      { role: 'user', content: prompt },
    ];
    // What every completion of this answer cost, the one sent back included: the chat bills it (docs/ai.md "Usage").
    const usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
    const withUsage = (answer: NlAnswer): NlAnswer => (usage.promptTokens + usage.completionTokens > 0 ? { ...answer, usage } : answer);
    try {
      const first = await this.complete(messages, usage);
      if (/^NONE\b/i.test(first)) return withUsage(await this.fallback.translate(request));
      const problem = queryProblem(first, mode);
      if (!problem) return withUsage({ gql: first });
      const fixed = await this.complete(
        [...messages, { role: 'assistant', content: first }, { role: 'user', content: `That query cannot run: ${problem}. Answer with the corrected query only.` }],
        usage,
      );
      return withUsage({ gql: fixed });
    } catch (error) {
      this.onFailure(error);
      return withUsage(await this.fallback.translate(request));
    }
  }

  /** One completion; adds its `usage` to `spent`, or an estimate from the text when the server reports none. */
  private async complete(messages: Message[], spent: TokenUsage): Promise<string> {
    const response = await fetch(`${this.options.baseUrl.replace(/\/$/, '')}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.options.apiKey}` },
      body: JSON.stringify({ model: this.options.model, temperature: 0, messages }),
      signal: AbortSignal.timeout(this.options.timeoutMs),
    });
    if (!response.ok) throw new Error(`the AI provider answered ${response.status}`);
    const reply = (await response.json()) as { choices?: { message?: { content?: unknown } }[]; usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } };
    const content = reply.choices?.[0]?.message?.content;
    const count = (reported: unknown, text: string) => (typeof reported === 'number' && Number.isFinite(reported) && reported >= 0 ? Math.round(reported) : estimateTokens(text));
    spent.promptTokens += count(reply.usage?.prompt_tokens, messages.map((message) => message.content).join('\n'));
    spent.completionTokens += count(reply.usage?.completion_tokens, typeof content === 'string' ? content : '');
    if (typeof content !== 'string') throw new Error('the AI provider answered without a message');
    return queryText(content);
  }
}

/** Tokens of a text without a model's tokenizer: about four characters each, as OpenAI's guide estimates English. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The query of a model's answer: inside a code fence when there is one, else its first non-empty line. */
export function queryText(content: string): string {
  const fenced = /```(?:\w+)?\s*\n?([\s\S]*?)```/.exec(content);
  const body = (fenced?.[1] ?? content).trim();
  return body.split('\n').map((line) => line.trim()).find((line) => line.length > 0) ?? '';
}
