import { fullFormats } from 'ajv-formats/dist/formats';
import { accept, reject, type ItemResult } from './result';

const dateTimeFormat = fullFormats['iso-date-time'] as { validate: (text: string) => boolean };
const dateFormat = fullFormats.date as { validate: (text: string) => boolean };

/**
 * Whether a text is an ISO 8601 date-time (zone optional, `T` or a space between) or date, with real calendar values:
 * what Date.parse reads beyond that (`May 5 2026`, `x 2026`, `2026-02-30`, which it rolls over) is no time of ours.
 */
export function isIsoTime(text: string): boolean {
  return dateTimeFormat.validate(text) || dateFormat.validate(text);
}

/** Epoch milliseconds of an ISO 8601 text (isIsoTime; no zone means UTC), or undefined for any other text. */
export function isoTimeMs(text: string): number | undefined {
  if (!isIsoTime(text)) return undefined;
  const ms = Date.parse(HAS_ZONE.test(text) ? text : `${text}Z`);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Client clocks drift; beyond this a timestamp is a bug, and it would hide the row from every "last:" range. */
const MAX_FUTURE_MS = 24 * 60 * 60 * 1000;
const HAS_ZONE = /(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$/;

/** The item's own time (ISO 8601; no zone means UTC) or the server's receive time, as epoch milliseconds. */
export function itemTimestamp(value: string | undefined, receivedAt: number): ItemResult<number> {
  if (value === undefined) return accept(receivedAt);
  const parsed = isoTimeMs(value);
  if (parsed === undefined) return reject('timestamp must be an ISO 8601 date-time');
  // Before the epoch is a bug too (year 0000 once stopped the monthly usage counts: Postgres dates start at 4713 BC).
  if (parsed < 0) return reject('timestamp must be a time after 1970');
  if (parsed > receivedAt + MAX_FUTURE_MS) return reject('timestamp is more than 24 hours in the future');
  return accept(parsed);
}

/** A time the client gave as epoch milliseconds (spans, vitals): finite, not before 1970, not far ahead. */
export function epochTimestamp(ms: number, receivedAt: number, field = 'timestamp'): ItemResult<number> {
  if (!Number.isFinite(ms) || ms < 0) return reject(`${field} must be a time after 1970`);
  if (ms > receivedAt + MAX_FUTURE_MS) return reject(`${field} is more than 24 hours in the future`);
  return accept(ms);
}

/** The largest time a Date holds (ECMAScript: 100,000,000 days after the epoch). */
const MAX_DATE_MS = 8.64e15;
/** Seconds whose ISO 8601 text isoTime remembers before the memory is dropped. */
const MAX_REMEMBERED_SECONDS = 1_000;
/** `000Z` to `999Z`: with a remembered second's text, a time is two shared strings joined, nothing else. */
const MILLISECOND_SUFFIXES = Array.from({ length: 1000 }, (_, milliseconds) => `${String(milliseconds).padStart(3, '0')}Z`);
/** Whole seconds since the epoch → their ISO 8601 text up to the fraction's dot (`2026-11-25T01:22:57.`). */
const secondTexts = new Map<number, string>();

/**
 * Epoch milliseconds as ISO 8601 with milliseconds (`2026-11-25T01:22:57.779Z`), as Date's toISOString writes it, or
 * undefined for a time no Date holds. The text of each second is remembered: an event's breadcrumbs and a batch's
 * events mostly fall within a few seconds, and toISOString costs about twenty times the lookup.
 */
export function isoTime(ms: number): string | undefined {
  if (!(Math.abs(ms) <= MAX_DATE_MS)) return undefined;
  // Truncated toward zero, as a Date clips its time value.
  const whole = Math.trunc(ms);
  const second = Math.floor(whole / 1000);
  let text = secondTexts.get(second);
  if (text === undefined) {
    if (secondTexts.size >= MAX_REMEMBERED_SECONDS) secondTexts.clear();
    text = new Date(second * 1000).toISOString().slice(0, -4);
    secondTexts.set(second, text);
  }
  return text + MILLISECOND_SUFFIXES[whole - second * 1000]!;
}
