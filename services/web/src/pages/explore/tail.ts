/** The rows of a live tail: newest first, at most a cap of them on screen. */

export const TAIL_MAX_ROWS = 1_000;
/** How often rows that arrived are put on screen: one render per flush, however many rows came. */
export const TAIL_FLUSH_MS = 250;

/**
 * The rows on screen after some batches arrived. Each batch holds rows newest first and later batches are newer,
 * so the last batch goes on top; the oldest rows beyond `cap` are dropped.
 */
export function mergeTail<Row>(onScreen: readonly Row[], batches: readonly (readonly Row[])[], cap = TAIL_MAX_ROWS): Row[] {
  const merged: Row[] = [];
  for (let index = batches.length - 1; index >= 0 && merged.length < cap; index -= 1) {
    const batch = batches[index]!;
    for (let row = 0; row < batch.length && merged.length < cap; row += 1) merged.push(batch[row]!);
  }
  for (let row = 0; row < onScreen.length && merged.length < cap; row += 1) merged.push(onScreen[row]!);
  return merged;
}

/** What a server-sent `rows` or `error` event holds, or why it could not be read. */
export type TailMessage = { kind: 'rows'; rows: Record<string, unknown>[] } | { kind: 'error'; code: string; message: string };

export function readTailEvent(type: 'rows' | 'error', data: string): TailMessage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return { kind: 'error', code: 'INTERNAL_ERROR', message: `the live tail sent an unreadable ${type} event` };
  }
  if (type === 'rows') {
    const results = (parsed as { results?: unknown })?.results;
    return Array.isArray(results) ? { kind: 'rows', rows: results as Record<string, unknown>[] } : { kind: 'rows', rows: [] };
  }
  const error = (parsed as { error?: { code?: string; message?: string } })?.error;
  return { kind: 'error', code: error?.code ?? 'INTERNAL_ERROR', message: error?.message ?? 'the live tail stopped' };
}
