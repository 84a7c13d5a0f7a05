-- AI chat tokens are counted as read (ai_prompt_tokens) and written (ai_completion_tokens), per project and month
-- (docs/api.md "AI usage"). The earlier single counter, ai_tokens, held both without telling them apart: its tokens
-- stay counted against the month's allowance as tokens read, and the counter goes.

insert into usage_counters as u (project_id, signal, month, items)
select project_id, 'ai_prompt_tokens', month, items from usage_counters where signal = 'ai_tokens'
on conflict (project_id, signal, month) do update set items = u.items + excluded.items;

delete from usage_counters where signal = 'ai_tokens';
