import { asked, EMPTY, ended, forgetConversations, kept, MAX_KEPT_TURNS, parseConversation, settled, shownReply, SHOWN_ROWS, singleValue, streamed, type Conversation } from '../src/pages/ask/conversation';

/** How the chat's stream fills a conversation, and what a tab keeps of it. */
describe('a conversation with the assistant', () => {
  const data = { mode: 'aggregate' as const, table: 'logs', results: [{ value: 3 }], total_groups: 1 };

  it('fills the last answer from the stream: its queries, its text piece by piece, then the session', () => {
    let conversation = asked(EMPTY, 'how many error logs?');
    conversation = streamed(conversation, 'query', { gql: 'from:logs severity:error | count', data });
    conversation = streamed(conversation, 'delta', { text: 'The answer ' });
    conversation = streamed(conversation, 'delta', { text: 'is 3.' });
    expect(conversation.turns[1]).toEqual({ role: 'assistant', text: 'The answer is 3.', queries: [{ gql: 'from:logs severity:error | count', data }], done: false });
    conversation = streamed(conversation, 'done', { session_id: 's-1' });
    expect(conversation).toEqual({
      sessionId: 's-1',
      turns: [
        { role: 'user', text: 'how many error logs?' },
        { role: 'assistant', text: 'The answer is 3.', queries: [{ gql: 'from:logs severity:error | count', data }], done: true },
      ],
    });
    // Events it does not know, or malformed ones, change nothing.
    expect(streamed(conversation, 'ping', {})).toBe(conversation);
    expect(streamed(asked(EMPTY, 'x'), 'delta', { text: 4 })).toEqual(asked(EMPTY, 'x'));
  });

  it('ends an answer with the error the server gave, keeping the session it had', () => {
    const before: Conversation = { sessionId: 's-1', turns: [] };
    const refused = ended(asked(before, 'and today?'), { status: 402, code: 'QUOTA_EXCEEDED', message: 'the free plan includes 100,000 AI chat tokens a month' });
    expect(refused.sessionId).toBe('s-1');
    expect(refused.turns[1]).toMatchObject({ done: true, error: { status: 402, code: 'QUOTA_EXCEEDED' } });
    // An answer that finished is left as it is.
    const done = streamed(asked(EMPTY, 'x'), 'done', { session_id: 's-2' });
    expect(ended(done)).toBe(done);
  });

  it('keeps finished turns only, the newest ones from a question on, and reads back what it kept', () => {
    let conversation: Conversation = EMPTY;
    for (let n = 0; n < MAX_KEPT_TURNS; n += 1) conversation = streamed(asked(conversation, `question ${n}`), 'done', { session_id: 's' });
    conversation = asked(conversation, 'unanswered');
    const stored = kept(conversation);
    expect(stored.turns).toHaveLength(MAX_KEPT_TURNS);
    expect(stored.turns[0]).toEqual({ role: 'user', text: `question ${MAX_KEPT_TURNS / 2}` });
    expect(stored.turns.at(-1)).toMatchObject({ role: 'assistant', done: true });
    expect(parseConversation(JSON.stringify(stored))).toEqual(stored);
    for (const text of [null, '', 'not json', '{"turns": 3}', '[]']) expect(parseConversation(text)).toEqual(EMPTY);
    expect(parseConversation('{"sessionId": 7, "turns": [{"role": "user", "text": "hi"}, {"role": "robot", "text": "?"}]}')).toEqual({ sessionId: null, turns: [{ role: 'user', text: 'hi' }] });
  });

  it('keeps the rows shown of an answer with how many it had, and is stored only once every answer has finished', () => {
    const rows = Array.from({ length: 500 }, (_, n) => ({ route: `/r${n}`, value: n }));
    let conversation = streamed(asked(EMPTY, 'by route'), 'query', { gql: 'from:logs | count by route', data: { mode: 'aggregate', table: 'logs', results: rows, total_groups: 500 } });
    expect(settled(conversation)).toBe(false);
    conversation = streamed(conversation, 'done', { session_id: 's' });
    expect(settled(conversation)).toBe(true);
    const stored = kept(conversation).turns[1]!;
    expect(stored.role === 'assistant' && stored.queries[0]!.data).toEqual({ mode: 'aggregate', table: 'logs', results: rows.slice(0, SHOWN_ROWS), total_groups: 500 });
  });

  it("forgets every project's conversation of the tab, and nothing else", () => {
    // As sessionStorage does, the stored items are the object's own keys and removeItem is inherited.
    const fake: Record<string, string> = Object.create({
      removeItem(this: Record<string, string>, key: string) {
        delete this[key];
      },
    });
    Object.assign(fake, { 'tlm.ask.p1': '{}', 'tlm.ask.p2': '{}', 'tlm.explore.history.p1': '[]' });
    forgetConversations(fake as unknown as Storage);
    expect(Object.keys(fake)).toEqual(['tlm.explore.history.p1']);
  });

  it('shows a lone number on its own, and groups or rows as rows', () => {
    expect(singleValue(data)).toBe(3);
    expect(singleValue({ ...data, results: [{ route: '/a', value: 3 }] })).toBeUndefined();
    expect(singleValue({ ...data, results: [{ value: 1 }, { value: 2 }] })).toBeUndefined();
    expect(singleValue({ ...data, mode: 'search', results: [{ value: 1 }] })).toBeUndefined();
    expect(singleValue(null)).toBeUndefined();
  });

  it('shows a reply without the queries it ends with, which the page shows above it', () => {
    expect(shownReply('The answer is 3 (from:logs | count).', ['from:logs | count'])).toBe('The answer is 3.');
    expect(shownReply('Issue 4 is unresolved. (a; b)', ['a', 'b'])).toBe('Issue 4 is unresolved.');
    // A reply that does not end with them, or ran none, stays whole.
    expect(shownReply('I could not turn that into a query.', [])).toBe('I could not turn that into a query.');
    expect(shownReply('Nothing matched (from:logs | count).', ['from:events | count'])).toBe('Nothing matched (from:logs | count).');
  });
});
