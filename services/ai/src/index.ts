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
import { PLANS, isUuid, jsonBody, newId, notFound, parseBody, quotaExceeded, upgradesAllowing, validationError, type Logger, type PlanLimits, type PlanName } from '@tlm/core';
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
  type SqlClient,
} from '@tlm/metadata-store';
import { Router, type RequestHandler, type Response } from 'express';
import { isTimeZone } from './calendar';
import { composeReply } from './compose';
import { answerIssueQuestion, issueQuestion, type RanQuery } from './issues';
import { estimateTokens } from './openai';
import type { NlAnswer, NlMode, NlTurn, TokenUsage, Translator } from './translator';
import { queryProblem } from './validate';
import { Vocabulary } from './vocabulary';

export { OpenAiTranslator, estimateTokens, queryText } from './openai';
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
  /** What a model spent on the translation, as its server reported it. */
  usage?: TokenUsage;
}

/**
 * The plan's AI allowances (docs/decisions.md "AI"): a dashboard conversion spends one AI query, a chat message the
 * tokens it read and wrote. Both are the organization's, over all its projects, per calendar month (UTC).
 */
const ALLOWANCES = {
  queries: { signals: ['ai_queries'], what: 'AI queries', limitOf: (limits: PlanLimits) => limits.aiQueriesPerMonth },
  tokens: { signals: ['ai_prompt_tokens', 'ai_completion_tokens'], what: 'AI chat tokens', limitOf: (limits: PlanLimits) => limits.aiTokensPerMonth },
} as const;

/** Refuses with 402 QUOTA_EXCEEDED (limit, used, plan, upgrade) when the organization has used the month's allowance. */
async function requireAllowance(sql: SqlClient, organization: { id: string; plan: PlanName }, allowance: keyof typeof ALLOWANCES, month: string): Promise<void> {
  const { signals, what, limitOf } = ALLOWANCES[allowance];
  let used = 0;
  for (const signal of signals) used += await countOrganizationUsage(sql, organization.id, signal, month);
  const limit = limitOf(PLANS[organization.plan]);
  if (used >= limit) {
    throw quotaExceeded(`the ${organization.plan} plan includes ${limit.toLocaleString('en-US')} ${what} a month`, {
      limit,
      used,
      plan: organization.plan,
      upgrade: upgradesAllowing(organization.plan, used + 1, limitOf),
    });
  }
}

/**
 * The latest turns of a conversation given to the translator: the built-in one folds every answered question of them
 * into the current one, so a long run of follow-ups keeps its first question; a model is given the last 20.
 */
const MAX_HISTORY_TURNS = 400;

/** What the chat says to small talk and "what can you do": what it answers, without running anything. */
const HELP =
  "I answer questions about this project's data: logs, product events, errors and issues, spans, web vitals, sessions and alerts. Ask in plain words and I turn the question into a GQL query, run it and tell you what it found, with the query. I also explain an issue by its number (\"why is issue 12 happening?\") and what changed in a release (\"what changed in release 1.2?\").";

const quoted = (suggestions: readonly string[]) => suggestions.map((suggestion) => `"${suggestion}"`).join(', ');

/** A body's `time_zone`, when it has one, must name a zone the platform knows: 400 VALIDATION_ERROR before anything is spent. */
function withKnownTimeZone<T extends { time_zone?: string }>(input: T): T {
  if (input.time_zone !== undefined && !isTimeZone(input.time_zone)) {
    throw validationError(`request body: time_zone: ${JSON.stringify(input.time_zone)} is no IANA time zone (e.g. Europe/Berlin, America/New_York, UTC)`);
  }
  return input;
}

const nlBody = (body: unknown): NlBody => withKnownTimeZone(parseBody(NlBody, body));
const chatBody = (body: unknown): ChatBody => withKnownTimeZone(parseBody(ChatBody, body));

/** Who asks in a chat: the project, the organization whose allowance the tokens count against, and whether the answers may read data. */
interface Chatter {
  projectId: string;
  organization: { id: string; plan: PlanName };
  retentionDays: number;
  reads: boolean;
}

export function aiRoutes(deps: AiDeps): Router {
  const router = Router();
  const vocabulary = new Vocabulary(deps.analytics);
  const body = jsonBody();
  const member = [requireUser(deps.tokens, deps.metadata, deps.limiter), requireMember(deps.metadata, deps.limiter), requireProject(deps.metadata)];

  /** The translator proposes; only text that parses and plans as GQL is valid (DECISIONS.md "AI"). */
  async function translateValidated(
    project: { id: string; retentionDays: number },
    prompt: string,
    mode: NlMode,
    timeZone: string | undefined,
    history: readonly NlTurn[] = [],
  ): Promise<Translation> {
    const schema = await readSchemaDocument(deps.metadata, project.id);
    const values = await vocabulary.read(project.id, project.retentionDays, schema);
    let answer: NlAnswer;
    try {
      answer = await deps.translator.translate({ prompt, mode, schema, values, history, ...(timeZone === undefined ? {} : { timeZone }) });
    } catch (error) {
      deps.logger.warn({ err: error, translator: deps.translator.name }, 'the AI provider failed');
      return { gql: '', valid: false, parsed: null, reason: 'the translator failed; try again' };
    }
    const usage = answer.usage ? { usage: answer.usage } : {};
    if (answer.gql === null) {
      return { gql: '', valid: false, parsed: null, reason: answer.reason, suggestions: answer.suggestions, ...(answer.smallTalk ? { smallTalk: true } : {}), ...usage };
    }
    const problem = queryProblem(answer.gql, mode);
    if (problem) return { gql: answer.gql, valid: false, parsed: null, reason: problem, ...usage };
    return { gql: answer.gql, valid: true, parsed: compileQuery(answer.gql).query, ...usage };
  }

  /** The answer of the translation routes: the query and whether it is valid, or why there is none. */
  const nlAnswer = ({ gql, valid, parsed, reason, suggestions }: Translation) => ({ gql, valid, parsed, ...(reason ? { reason } : {}), ...(suggestions ? { suggestions } : {}) });

  router.post('/v1/gql/nl', ...keyGuards(deps, 'data:read'), body, async (req, res) => {
    const input = nlBody(req.body);
    const key = requestKey(res);
    res.json(nlAnswer(await translateValidated({ id: key.projectId, retentionDays: key.retentionDays }, input.prompt, input.mode ?? 'explorer', input.time_zone)));
  });

  // SPEC.md Limits: each conversion through the dashboard endpoint uses one AI query of the plan's quota.
  router.post('/api/orgs/:org/projects/:project/gql/nl', ...member, body, async (req, res) => {
    const input = nlBody(req.body);
    const { organization } = requestMembership(res);
    const project = requestProject(res);
    const month = monthOf(Date.now());
    await deps.metadata.transaction(async (tx) => {
      // Serialises the count and the use per account, so simultaneous conversions cannot both take the last query.
      await lockOrganization(tx, organization.id);
      await requireAllowance(tx, organization, 'queries', month);
      await recordUsage(tx, [{ projectId: project.id, signal: 'ai_queries', month, items: 1 }]);
    });
    const retentionDays = PLANS[organization.plan].retentionDays;
    res.json(nlAnswer(await translateValidated({ id: project.id, retentionDays }, input.prompt, input.mode ?? 'explorer', input.time_zone)));
  });

  /**
   * Answers a chat message and keeps both turns in the conversation: a question about an issue or a release from the
   * stored errors, anything else by translating it and running the query when it is valid.
   */
  async function chat(caller: Chatter, input: ChatBody) {
    const month = monthOf(Date.now());
    let sessionId = input.session_id;
    if (sessionId !== undefined && !(isUuid(sessionId) && (await findConversation(deps.metadata, caller.projectId, sessionId)))) {
      throw notFound('no conversation with this session_id');
    }
    // Refused before anything is asked, stored or counted. A message begun within the allowance is answered and counted
    // whole, so a month can end a message's tokens over it (docs/decisions.md "AI").
    await requireAllowance(deps.metadata, caller.organization, 'tokens', month);
    const { reads } = caller;
    const guard: Guard = { projectId: caller.projectId, retentionDays: caller.retentionDays, now: new Date() };
    let reply: string;
    let queries: string[] = [];
    let ran: RanQuery[] = [];
    let spent: TokenUsage | undefined;
    const question = issueQuestion(input.message);
    if (question && !reads) {
      reply = 'This key may chat but not read data (it lacks the data:read scope), so I cannot look at the issue.';
    } else if (question) {
      ({ reply, ran } = await answerIssueQuestion(deps.analytics, guard, question, input.time_zone));
      queries = ran.map((query) => query.gql);
    } else {
      // SPEC.md: a session_id continues the conversation; its turns let the translator read a follow-up. Questions
      // about an issue or a release are answered apart and are no question a follow-up builds on.
      const turns = sessionId === undefined ? [] : await listMessages(deps.metadata, sessionId, MAX_HISTORY_TURNS);
      const history = turns.filter((turn, index) => !issueQuestion((turn.role === 'user' ? turn : turns[index - 1])?.content ?? ''));
      const translation = await translateValidated({ id: caller.projectId, retentionDays: caller.retentionDays }, input.message, 'explorer', input.time_zone, history);
      spent = translation.usage;
      if (translation.valid && !reads) {
        reply = `This key may chat but not read data (it lacks the data:read scope), so I did not run the query: ${translation.gql}`;
      } else if (translation.valid) {
        const { query, plan } = compileQuery(translation.gql);
        const answer = await runPlan(deps.analytics, query, plan, guard);
        ran = [{ gql: translation.gql, data: answer.data }];
        reply = composeReply(translation.gql, answer, input.time_zone);
      } else if (translation.smallTalk) {
        reply = `${HELP} For example: ${quoted(translation.suggestions ?? [])}.`;
      } else {
        const why = translation.reason ? ` (${translation.reason})` : '';
        reply = `I could not turn that into a query${why}. Try naming what to look at and when, e.g. ${quoted(translation.suggestions ?? ['how many error logs in the last hour?'])}.`;
      }
      if (translation.valid) queries = [translation.gql];
    }
    if (!sessionId) {
      sessionId = newId();
      await insertConversation(deps.metadata, sessionId, caller.projectId);
    }
    await appendMessages(deps.metadata, sessionId, [
      { id: newId(), role: 'user', content: input.message, queries: [] },
      { id: newId(), role: 'assistant', content: reply, queries },
    ]);
    // SPEC.md: AI chat is billed by tokens. A model's are what its server reported (the query sent back included);
    // without a model the message is the prompt and the reply the completion, about four characters a token.
    const tokens = spent ?? { promptTokens: estimateTokens(input.message), completionTokens: estimateTokens(reply) };
    await recordUsage(deps.metadata, [
      { projectId: caller.projectId, signal: 'ai_prompt_tokens', month, items: tokens.promptTokens },
      { projectId: caller.projectId, signal: 'ai_completion_tokens', month, items: tokens.completionTokens },
    ]);
    return { reply, sessionId, queries, ran };
  }

  /** The chat and its stream for one door: API keys with `ai:chat` at /v1, the project's members under /api. */
  function chatRoutes(prefix: string, guards: RequestHandler[], callerOf: (res: Response) => Chatter) {
    router.post(`${prefix}/ai/chat`, ...guards, body, async (req, res) => {
      const result = await chat(callerOf(res), chatBody(req.body));
      res.json({ reply: result.reply, session_id: result.sessionId, queries: result.queries });
    });

    // DECISIONS.md: event: delta {text}, event: query {gql, data}, and a final event: done {session_id}.
    router.post(`${prefix}/ai/chat/stream`, ...guards, body, async (req, res) => {
      const result = await chat(callerOf(res), chatBody(req.body));
      res.status(200).set({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      for (const query of result.ran) send('query', query);
      for (const piece of result.reply.match(/\S+\s*/g) ?? []) send('delta', { text: piece });
      send('done', { session_id: result.sessionId });
      res.end();
    });
  }

  chatRoutes('/v1', keyGuards(deps, 'ai:chat'), (res) => {
    const key = requestKey(res);
    // ai:chat is the chat; reading the data behind an answer takes data:read as every other read does (SPEC.md
    // recommends both for tooling that reads and chats). Without it the answer is the query, not run.
    return { projectId: key.projectId, organization: { id: key.orgId, plan: key.plan }, retentionDays: key.retentionDays, reads: grantsAny(key.scopes, ['data:read']) };
  });
  // The web app's chat: a member reads every source of the project, so answers are always run. Tokens count against
  // the organization as a key's do.
  chatRoutes('/api/orgs/:org/projects/:project', member, (res) => {
    const { organization } = requestMembership(res);
    return { projectId: requestProject(res).id, organization, retentionDays: PLANS[organization.plan].retentionDays, reads: true };
  });

  return router;
}
export { aiProviderConfig } from './config';
export { translatorFromConfig } from './provider';
