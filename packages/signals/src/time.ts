import { accept, reject, type ItemResult } from './result';

/** Client clocks drift; beyond this a timestamp is a bug, and it would hide the row from every "last:" range. */
const MAX_FUTURE_MS = 24 * 60 * 60 * 1000;
const HAS_ZONE = /(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$/;

/** The item's own time (ISO 8601; no zone means UTC) or the server's receive time, as epoch milliseconds. */
export function itemTimestamp(value: string | undefined, receivedAt: number): ItemResult<number> {
  if (value === undefined) return accept(receivedAt);
  const parsed = Date.parse(HAS_ZONE.test(value) ? value : `${value}Z`);
  if (Number.isNaN(parsed)) return reject('timestamp must be an ISO 8601 date-time');
  if (parsed > receivedAt + MAX_FUTURE_MS) return reject('timestamp is more than 24 hours in the future');
  return accept(parsed);
}

/** A time the client gave as epoch milliseconds (spans, vitals): finite, not before 1970, not far ahead. */
export function epochTimestamp(ms: number, receivedAt: number, field = 'timestamp'): ItemResult<number> {
  if (!Number.isFinite(ms) || ms < 0) return reject(`${field} must be a time after 1970`);
  if (ms > receivedAt + MAX_FUTURE_MS) return reject(`${field} is more than 24 hours in the future`);
  return accept(ms);
}
