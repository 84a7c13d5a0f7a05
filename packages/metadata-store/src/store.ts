import { withoutNul } from '@tlm/core';

export type SqlParams = readonly unknown[];

const storable = (value: unknown): unknown => {
  if (typeof value === 'string') return withoutNul(value);
  if (Array.isArray(value) && value.some((item) => typeof item === 'string' && item.includes('\u0000'))) return value.map(storable);
  return value;
};

/** JSON text for a `jsonb` parameter: jsonb refuses the `\u0000` escape that a NUL in a string becomes. */
export function postgresJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => (typeof item === 'string' ? withoutNul(item) : item));
}

/**
 * Parameters as Postgres can store them: its text cannot hold NUL, which telemetry can carry (an error message, a
 * user id, a release from an SDK, a log line the scanner turns into an error), so NUL becomes U+FFFD, as a lone
 * surrogate does at ingest. Without it one such error would fail every count of its batch, again and again.
 */
export function storableParams(params: SqlParams): unknown[] {
  return params.some((param) => typeof param === 'string' || Array.isArray(param)) ? params.map(storable) : (params as unknown[]);
}

/** What repositories need: parameterised SQL returning rows. Both adapters return int8 as number, timestamptz as Date. */
export interface SqlClient {
  query<Row extends object = Record<string, unknown>>(text: string, params?: SqlParams): Promise<Row[]>;
}

export interface MetadataStore extends SqlClient {
  readonly kind: 'pglite' | 'postgres';
  /** Runs `work` in one transaction; it commits when `work` resolves and rolls back when it rejects. */
  transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
