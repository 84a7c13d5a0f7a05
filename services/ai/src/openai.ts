import { SOURCES } from '@tlm/gql';
import type { NlRequest, Translator } from './translator';

/** The conversation's latest turns a model is given (ten questions and their answers). */
export const MAX_MODEL_TURNS = 20;

/**
 * Any OpenAI-compatible chat completions endpoint (AI_BASE_URL, AI_API_KEY, AI_MODEL). The model only proposes
 * text; the caller parses and validates it as GQL before anything runs.
 */
export class OpenAiTranslator implements Translator {
  readonly name = 'openai-compatible';

  constructor(private readonly options: { baseUrl: string; apiKey: string; model: string; timeoutMs: number }) {}

  async translate({ prompt, mode, schema, history = [] }: NlRequest): Promise<string> {
    const properties = [...schema.log_properties, ...schema.event_properties].map((property) => property.key).slice(0, 100);
    const system = [
      'You translate questions about an application\'s telemetry into one GQL query. Answer with the query only. A follow-up question changes the previous query.',
      `Sources: ${SOURCES.map((source) => source.name).join(', ')}. Form: from:<source> field:value "full text" | count by field | last:24h.`,
      'Aggregates: count, count_distinct(f), sum|avg|min|max(f), p50|p75|p90|p95|p99(f), optionally "by a, b" or "by time(5m)"; then top n, sort f desc, limit n.',
      mode === 'alert'
        ? 'Alert mode: an aggregate query WITHOUT a time range and without "by", e.g. from:logs severity:error | count.'
        : 'Explorer mode: end with a time range such as last:24h.',
      `Known property keys: ${properties.join(', ') || 'none yet'}. Event names: ${schema.event_names.map((event) => event.name).slice(0, 50).join(', ') || 'none yet'}.`,
    ].join('\n');
    const response = await fetch(`${this.options.baseUrl.replace(/\/$/, '')}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.options.apiKey}` },
      body: JSON.stringify({
        model: this.options.model,
        temperature: 0,
        messages: [
          { role: 'system', content: system },
          // Earlier turns, the answers as the queries they ran: a follow-up ("and last week?") refers to them.
          ...history.slice(-MAX_MODEL_TURNS).map((turn) => ({ role: turn.role, content: turn.role === 'assistant' && turn.queries.length > 0 ? turn.queries.join('\n') : turn.content })),
          { role: 'user', content: prompt },
        ],
      }),
      signal: AbortSignal.timeout(this.options.timeoutMs),
    });
    if (!response.ok) throw new Error(`the AI provider answered ${response.status}`);
    const reply = (await response.json()) as { choices?: { message?: { content?: unknown } }[] };
    return queryText(String(reply.choices?.[0]?.message?.content ?? ''));
  }
}

/** The query of a model's answer: inside a code fence when there is one, else its first non-empty line. */
export function queryText(content: string): string {
  const fenced = /```(?:\w+)?\s*\n?([\s\S]*?)```/.exec(content);
  const body = (fenced?.[1] ?? content).trim();
  return body.split('\n').map((line) => line.trim()).find((line) => line.length > 0) ?? '';
}
