/** Outcome of turning one wire item into a record: a bad item is a value with a reason, never an exception. */
export type ItemResult<T> = { ok: true; value: T } | { ok: false; reason: string };

export const accept = <T>(value: T): ItemResult<T> => ({ ok: true, value });
export const reject = <T = never>(reason: string): ItemResult<T> => ({ ok: false, reason });

export interface ItemError {
  index: number;
  message: string;
}

export interface BatchOutcome<R> {
  records: R[];
  errors: ItemError[];
}

/** Runs every item through `toRecord`; rejected items are reported by index and never affect their neighbours. */
export function processBatch<R>(items: readonly unknown[], toRecord: (item: unknown) => ItemResult<R>): BatchOutcome<R> {
  const records: R[] = [];
  const errors: ItemError[] = [];
  items.forEach((item, index) => {
    const result = toRecord(item);
    if (result.ok) records.push(result.value);
    else errors.push({ index, message: result.reason });
  });
  return { records, errors };
}
