import { formatDateTime } from '../../components/formats';

/** The columns of search results, from the rows' own keys: the time first, the message wide, bags last. */

/** Time fields of the sources (docs/gql.md "Sources and fields"), which lead the table. */
const TIME_FIELDS = ['timestamp', 'triggered_at', 'started', 'last_seen', 'first_seen', 'created_at'];
/** Text fields worth the table's spare width. */
const WIDE_FIELDS = new Set(['message', 'value', 'title', 'name', 'event_name', 'rule_name', 'metric', 'culprit']);
/** Fields the expanded row shows but the table leaves out, to keep it readable. */
const DETAIL_ONLY = new Set(['id', 'span_id', 'frames', 'breadcrumbs', 'events']);

export interface ResultColumn {
  key: string;
  /** Width in pixels; the wide column takes what is left. */
  width: number | 'wide';
}

const isBag = (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Columns for rows, from the keys of the first `sample` rows in the order they appear. */
export function resultColumns(rows: readonly Record<string, unknown>[], sample = 200): ResultColumn[] {
  const seen = new Set<string>();
  const bags = new Set<string>();
  for (const row of rows.slice(0, sample)) {
    for (const [key, value] of Object.entries(row)) {
      seen.add(key);
      if (isBag(value)) bags.add(key);
    }
  }
  const keys = [...seen];
  const time = TIME_FIELDS.filter((key) => seen.has(key));
  const plain = keys.filter((key) => !time.includes(key) && !bags.has(key) && !(DETAIL_ONLY.has(key) && keys.length > 4));
  const wide = plain.find((key) => WIDE_FIELDS.has(key)) ?? (plain.length > 0 && bags.size === 0 ? plain[plain.length - 1] : undefined);
  const ordered = [...time, ...plain, ...[...bags].filter((key) => !DETAIL_ONLY.has(key))];
  return ordered.map((key) => ({
    key,
    width: key === wide ? 'wide' : time.includes(key) ? 196 : bags.has(key) ? 240 : 120,
  }));
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

/**
 * A UTC timestamp of a row (`2026-12-01T03:15:08.123Z`) in the browser's time zone, to the millisecond, as the
 * charts and the other pages show times; undefined for any other value.
 */
export function localTime(value: unknown, timeZone?: string): string | undefined {
  if (typeof value !== 'string' || !ISO_TIME.test(value)) return undefined;
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) return undefined;
  return formatDateTime(time, { milliseconds: true, timeZone });
}

/** A cell's text: bags as `key=value` pairs, lists and other objects as JSON, nothing as an em dash. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (isBag(value)) {
    return Object.entries(value as Record<string, unknown>)
      .map(([key, inner]) => `${key}=${typeof inner === 'string' ? inner : JSON.stringify(inner)}`)
      .join('  ');
  }
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Splits a row into its plain fields and its property bags (properties, tags, extra, attributes, contexts…). */
export function rowSections(row: Record<string, unknown>): { fields: [string, unknown][]; bags: [string, Record<string, unknown>][] } {
  const fields: [string, unknown][] = [];
  const bags: [string, Record<string, unknown>][] = [];
  for (const [key, value] of Object.entries(row)) {
    if (isBag(value)) bags.push([key, value as Record<string, unknown>]);
    else fields.push([key, value]);
  }
  return { fields, bags };
}

/** Fields that say what a row is, in the order they are looked for. */
const NAMING_FIELDS = ['message', 'title', 'name', 'event_name', 'type', 'id'];

/**
 * A row in a few words for its controls' names ("Row details: Dec 1, 2026, 17:06:12.227 checkout failed"), so the
 * buttons of a hundred rows do not all read alike: its time, then its message, title or name, cut at 80 characters.
 */
export function rowName(row: Record<string, unknown>, timeZone?: string): string {
  const time = TIME_FIELDS.map((field) => localTime(row[field], timeZone)).find((text) => text !== undefined);
  const named = NAMING_FIELDS.map((field) => row[field]).find((value) => typeof value === 'string' && value !== '') as string | undefined;
  const text = [time, named].filter(Boolean).join(' ') || 'a row';
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}
