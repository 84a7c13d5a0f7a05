import { hash } from 'node:crypto';
import type { StackFrame } from '@tlm/signals';
import type { TableDefinition } from '../store';

/**
 * A stack trace stored once per project however many errors share it (docs/decisions.md "Stacks are stored once"):
 * an error row names its stack by `stack_id`, and GQL reads `frames` through it. Frames are most of an error's bytes,
 * and the errors of one issue mostly share their stack.
 */
export interface StackRow {
  project_id: string;
  /** 32 hex digits of the SHA-256 of the frames' JSON as stored. */
  id: string;
  /** Innermost last, without their absent fields. */
  frames: Record<string, unknown>[];
  /** When a processor last wrote the stack (at most once a day per stack): retention cuts on it. */
  updated_at: number;
  retention_days: number;
}

export const stacksTable: TableDefinition<StackRow> = {
  name: 'stacks',
  mode: 'replace',
  timeColumn: 'updated_at',
  columns: [
    { name: 'project_id', type: 'string' },
    { name: 'id', type: 'string' },
    { name: 'frames', type: 'json' },
    { name: 'updated_at', type: 'timestamp' },
    { name: 'retention_days', type: 'uint16' },
  ],
  ddl: {
    duckdb: [
      `CREATE TABLE IF NOT EXISTS stacks (
  project_id VARCHAR NOT NULL,
  id VARCHAR NOT NULL,
  frames JSON NOT NULL,
  updated_at TIMESTAMP NOT NULL,
  retention_days USMALLINT NOT NULL,
  PRIMARY KEY (project_id, id)
)`,
    ],
    clickhouse: [
      `CREATE TABLE IF NOT EXISTS stacks
(
    project_id UUID,
    id String,
    frames String,
    updated_at DateTime64(3, 'UTC'),
    retention_days UInt16
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY (project_id, id)
TTL toDateTime(updated_at) + toIntervalDay(retention_days)`,
    ],
  },
};

/** A stack's stored frames and its id: the JSON that is hashed is the JSON that is stored. */
export interface Stack {
  id: string;
  frames: Record<string, unknown>[];
}

/** Frames without their absent fields, as stored, and the id of that stack. */
export function stackOf(frames: readonly StackFrame[]): Stack {
  const stored = storedFrames(frames);
  // crypto.hash, one call into native code: createHash's object, update and digest cost three times as much here.
  return { id: hash('sha256', JSON.stringify(stored)).slice(0, 32), frames: stored };
}

/** Frames as a stack or an error row stores them, without their absent fields. */
export function storedFrames(frames: readonly StackFrame[]): Record<string, unknown>[] {
  return frames.map(withoutNulls);
}

/**
 * Frames are stored without their absent fields: stacks are mostly frames, and bytes cost. (Breadcrumbs leave them out
 * in the error's record already, signals' Breadcrumb.)
 */
function withoutNulls(value: object): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  // for-in rather than Object.entries: no array of pairs per frame (this runs for every frame of every error).
  for (const key in value) {
    const field = (value as Record<string, unknown>)[key];
    if (field !== null && field !== undefined) kept[key] = field;
  }
  return kept;
}
