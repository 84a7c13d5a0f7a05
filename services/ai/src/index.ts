import type { AnalyticsStore } from '@tlm/analytics-store';
import { ChatBody, NlBody } from '@tlm/api-schemas';
import {
  grantsAny,
  keyGuards,
  requestKey,
  requestMembership,
  requestProject,
  requireMember,
  requireProject,
  requireUser,
  type KeyAccess,
  type TokenIssuer,
} from '@tlm/auth';
import { PLANS, isUuid, jsonBody, newId, notFound, parseBody, quotaExceeded, upgradesAllowing, type Logger } from '@tlm/core';
import { compileQuery, runPlan, type Guard, type QueryAnswer } from '@tlm/gql';
import {
  appendMessages,
  countOrganizationUsage,
  findConversation,
  listMessages,
  insertConversation,
  lockOrganization,
  monthOf,
  readSchemaDocument,
  recordUsage,
  type MetadataStore,
} from '@tlm/metadata-store';
import { Router, type Response } from 'express';
import { composeReply } from './compose';
import { MAX_MODEL_TURNS } from './openai';
import type { NlAnswer, NlMode, NlTurn, Translator } from './translator';
import { queryProblem } from './validate';
import { Vocabulary } from './vocabulary';

export { OpenAiTranslator, queryText } from './openai';
export { RuleTranslator, translate, type NlAnswer, type Translator } from './translator';

export interface AiDeps extends KeyAccess {
  metadata: MetadataStore;
  analytics: AnalyticsStore;
  tokens: TokenIssuer;
  translator: Translator;
  logger: Logger;
}

interface Translation {
  gql: string;
  valid: boolean;
  parsed: unknown;
  /** Why there is no valid query: what the translator could not read, or why the query cannot run. */
  reason?: string;
  /** Questions the project can answer, when the prompt had no meaning the translator could find. */
  suggestions?: string[];
  answer?: QueryAnswer;
  smallTalk?: boolean;
}

/**
 * The latest turns of a conversation given to the translator: the built-in one folds every answered question of them
 * into the current one, so a long run of follow-ups keeps its first question; a model is given the last 20.
 */
const MAX_HISTORY_TURNS = 400;

/** What the chat says to small talk and "what can you do": what it answers, without running anything. */
const HELP =
  "I answer questions about this project's data: logs, product events, errors and issues, spans, web vitals, sessions and alerts. Ask in plain words and I turn the question into a GQL query, run it and tell you what it found, with the query.";

const quoted = (suggestions: readonly string[]) => suggestions.map((suggestion) => `"${suggestion}"`).join(', ');

export function aiRoutes(deps: AiDeps): Router {
  const router = Router();
  const vocabulary = new Vocabulary(deps.analytics);
  const body = jsonBody();
  const member = [requireUser(deps.tokens, deps.metadata, deps.limiter), requireMember(deps.metadata, deps.limiter), requireProject(deps.metadata)];

  /** The translator proposes; only text that parses and plans as GQL is valid (DECISIONS.md "AI"). */
  async function translateValidated(project: { id: string; retentionDays: number }, prompt: string, mode: NlMode, history: readonly NlTurn[] = []): Promise<Translation> {
    const schema = await readSchemaDocument(deps.metadata, project.id);
    const values = await vocabulary.read(project.id, project.retentionDays, schema);
    let answer: NlAnswer;
    try {
      answer = await deps.translator.translate({ prompt, mode, schema, values, history });
    } catch (error) {
      deps.logger.warn({ err: error, translator: deps.translator.name }, 'the AI provider failed');
      return { gql: '', valid: false, parsed: null, reason: 'the translator failed; try again' };
    }
    if (answer.gql === null) {
      return { gql: '', valid: false, parsed: null, reason: answer.reason, suggestions: answer.suggestions, ...(answer.smallTalk ? { smallTalk: true } : {}) };
    }
    const problem = queryProblem(answer.gql, mode);
    if (problem) return { gql: answer.gql, valid: false, parsed: null, reason: problem };
    return { gql: answer.gql, valid: true, parsed: compileQuery(answer.gql).query };
  }

  /** The answer of the translation routes: the query and whether it is valid, or why there is none. */
  const nlAnswer = ({ gql, valid, parsed, reason, suggestions }: Translation) => ({ gql, valid, parsed, ...(reason ? { reason } : {}), ...(suggestions ? { suggestions } : {}) });

  router.post('/v1/gql/nl', ...keyGuards(deps, 'data:read'), body, async (req, res) => {
    const input = parseBody(NlBody, req.body);
    const key = requestKey(res);
    res.json(nlAnswer(await translateValidated({ id: key.projectId, retentionDays: key.retentionDays }, input.prompt, input.mode ?? 'explorer')));
  });

  // SPEC.md Limits: each conversion through the dashboard endpoint uses one AI query of the plan's quota.
  router.post('/api/orgs/:org/projects/:project/gql/nl', ...member, body, async (req, res) => {
    const input = parseBody(NlBody, req.body);
    const { organization } = requestMembership(res);
    const project = requestProject(res);
    const month = monthOf(Date.now());
    await deps.metadata.transaction(async (tx) => {
      // Serialises the count and the use per account, so simultaneous conversions cannot both take the last query.
      await lockOrganization(tx, organization.id);
      const used = await countOrganizationUsage(tx, organization.id, 'ai_queries', month);
      const limit = PLANS[organization.plan].aiQueriesPerMonth;
      if (used >= limit) {
        throw quotaExceeded(`the ${organization.plan} plan includes ${limit} AI queries a month`, {
          limit,
          used,
          plan: organization.plan,
          upgrade: upgradesAllowing(organization.plan, used + 1, (limits) => limits.aiQueriesPerMonth),
        });
      }
      await recordUsage(tx, [{ projectId: project.id, signal: 'ai_queries', month, items: 1 }]);
    });
    const retentionDays = PLANS[organization.plan].retentionDays;
    res.json(nlAnswer(await translateValidated({ id: project.id, retentionDays }, input.prompt, input.mode ?? 'explorer')));
  });

  /** Translates a chat message, runs the query when it is valid, and keeps both turns in the conversation. */
  async function chat(res: Response, input: { message: string; session_id?: string }) {
    const key = requestKey(res);
    let sessionId = input.session_id;
    if (sessionId !== undefined && !(isUuid(sessionId) && (await findConversation(deps.metadata, key.projectId, sessionId)))) {
      throw notFound('no conversation with this session_id');
    }
    // SPEC.md: a session_id continues the conversation; its turns let the translator read a follow-up.
    const history = sessionId === undefined ? [] : await listMessages(deps.metadata, sessionId, MAX_HISTORY_TURNS);
    const translation = await translateValidated({ id: key.projectId, retentionDays: key.retentionDays }, input.message, 'explorer', history);
    let reply: string;
    // ai:chat is the chat; reading the data behind an answer takes data:read as every other read does (SPEC.md
    // recommends both for tooling that reads and chats). Without it the answer is the query, not run.
    const reads = grantsAny(key.scopes, ['data:read']);
    if (translation.valid && !reads) {
      reply = `This key may chat but not read data (it lacks the data:read scope), so I did not run the query: ${translation.gql}`;
    } else if (translation.valid) {
      const guard: Guard = { projectId: key.projectId, retentionDays: key.retentionDays, now: new Date() };
      const { query, plan } = compileQuery(translation.gql);
      translation.answer = await runPlan(deps.analytics, query, plan, guard);
      reply = composeReply(translation.gql, translation.answer);
    } else if (translation.smallTalk) {
      reply = `${HELP} For example: ${quoted(translation.suggestions ?? [])}.`;
    } else {
      const why = translation.reason ? ` (${translation.reason})` : '';
      reply = `I could not turn that into a query${why}. Try naming what to look at and when, e.g. ${quoted(translation.suggestions ?? ['how many error logs in the last hour?'])}.`;
    }
    if (!sessionId) {
      sessionId = newId();
      await insertConversation(deps.metadata, sessionId, key.projectId);
    }
    const queries = translation.valid ? [translation.gql] : [];
    await appendMessages(deps.metadata, sessionId, [
      { id: newId(), role: 'user', content: input.message, queries: [] },
      { id: newId(), role: 'assistant', content: reply, queries },
    ]);
    // SPEC.md: AI chat is billed separately by tokens; about four characters make a token. A model also reads the
    // conversation's latest turns (OpenAiTranslator sends the last MAX_MODEL_TURNS), which count too.
    const modelReads = deps.translator.name === 'built-in' ? 0 : history.slice(-MAX_MODEL_TURNS).reduce((sum, turn) => sum + turn.content.length, 0);
    const tokens = Math.ceil((input.message.length + reply.length + modelReads) / 4);
    await recordUsage(deps.metadata, [{ projectId: key.projectId, signal: 'ai_tokens', month: monthOf(Date.now()), items: tokens }]);
    return { reply, sessionId, queries, translation };
  }

  const chatter = keyGuards(deps, 'ai:chat');

  router.post('/v1/ai/chat', ...chatter, body, async (req, res) => {
    const result = await chat(res, parseBody(ChatBody, req.body));
    res.json({ reply: result.reply, session_id: result.sessionId, queries: result.queries });
  });

  // DECISIONS.md: event: delta {text}, event: query {gql, data}, and a final event: done {session_id}.
  router.post('/v1/ai/chat/stream', ...chatter, body, async (req, res) => {
    const result = await chat(res, parseBody(ChatBody, req.body));
    res.status(200).set({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    if (result.translation.answer) send('query', { gql: result.translation.gql, data: result.translation.answer.data });
    for (const piece of result.reply.match(/\S+\s*/g) ?? []) send('delta', { text: piece });
    send('done', { session_id: result.sessionId });
    res.end();
  });

  return router;
}
export { aiProviderConfig } from './config';
export { translatorFromConfig } from './provider';
