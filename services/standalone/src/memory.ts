import { readFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { ConfigError } from '@tlm/core';

/**
 * The standalone process's memory budget (`MEMORY_LIMIT`) and its split. DuckDB is the part that grows with the data
 * (its buffer cache of the database file, and the hash tables of grouped queries), so it gets half and a hard limit:
 * past it, it evicts cached blocks and spills operators to `DATA_DIR/duckdb-spill` instead of growing. Node's heap
 * is bounded by V8's own limit, set when the process starts (`--max-old-space-size`); PGlite's share is what its
 * WebAssembly Postgres holds at most with the default settings (it does not shrink). V8 sets its heap limit from the
 * machine's memory, not from this budget; `NODE_OPTIONS=--max-old-space-size=<Node's share in MiB>` holds it there.
 */

export const MEMORY_SHARES = { duckdb: 0.5, node: 0.35, pglite: 0.15 } as const;

/** The budget when MEMORY_LIMIT is unset: a quarter of the machine's (or the container's) memory. */
export const DEFAULT_MEMORY_SHARE = 0.25;
/** No budget below this: DuckDB needs a few hundred MiB for a grouped query over a large table before it spills. */
export const MIN_MEMORY_LIMIT = 1024 ** 3;

const UNITS: Record<string, number> = { B: 1, KB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12, KIB: 1024, MIB: 1024 ** 2, GIB: 1024 ** 3, TIB: 1024 ** 4 };

/** The syntax MEMORY_LIMIT takes: a size with a unit (`4GiB`, `1536MB`) or a share of the machine (`40%`). */
export const MEMORY_LIMIT_PATTERN = '^\\s*[0-9]+(\\.[0-9]+)?\\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB|%)\\s*$';

/**
 * The memory this process may use: the machine's, or less when a cgroup (a container, a systemd unit) limits it.
 * cgroup v2 says `max` for no limit; v1 says a number near 2^63.
 */
export function machineMemory(readFile: (file: string) => string = (file) => readFileSync(file, 'utf8')): number {
  let memory = totalmem();
  for (const file of ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes']) {
    try {
      const limit = Number(readFile(file).trim());
      if (Number.isFinite(limit) && limit > 0 && limit < memory) memory = limit;
    } catch {
      // not in such a cgroup
    }
  }
  return memory;
}

export interface MemoryBudget {
  /** The whole process's, in bytes. */
  limitBytes: number;
  duckdbBytes: number;
  nodeBytes: number;
  pgliteBytes: number;
  /** V8's own heap limit in this process, set at its start. */
  v8HeapLimitBytes: number;
}

/** MEMORY_LIMIT read against the machine's memory; `undefined` takes the default share. */
export function memoryBudget(configured: string | undefined, machine = machineMemory(), v8HeapLimitBytes = getHeapStatistics().heap_size_limit): MemoryBudget {
  const limitBytes = Math.round(configured === undefined ? Math.max(MIN_MEMORY_LIMIT, machine * DEFAULT_MEMORY_SHARE) : parseMemoryLimit(configured, machine));
  return {
    limitBytes,
    duckdbBytes: Math.round(limitBytes * MEMORY_SHARES.duckdb),
    nodeBytes: Math.round(limitBytes * MEMORY_SHARES.node),
    pgliteBytes: Math.round(limitBytes * MEMORY_SHARES.pglite),
    v8HeapLimitBytes,
  };
}

/** `4GiB`, `1536MB`, `40%` (of `machine`) in bytes; anything else, or less than 1 GiB, is an error naming the value. */
export function parseMemoryLimit(text: string, machine: number): number {
  const match = new RegExp(MEMORY_LIMIT_PATTERN, 'i').exec(text);
  if (!match) throw new ConfigError(`MEMORY_LIMIT ${JSON.stringify(text)} is not a size such as 4GiB or 1536MB, or a share of the machine such as 40%`);
  const amount = Number.parseFloat(text);
  const unit = match[2]!.toUpperCase();
  const bytes = unit === '%' ? (machine * amount) / 100 : amount * UNITS[unit]!;
  if (bytes < MIN_MEMORY_LIMIT) throw new ConfigError(`MEMORY_LIMIT ${text} is below the least this server runs in, 1GiB`);
  return bytes;
}

/** A size as DuckDB's `memory_limit` takes it: whole MiB. */
export const duckdbSize = (bytes: number): string => `${Math.max(1, Math.floor(bytes / 1024 ** 2))}MiB`;

/** The startup log's account of the budget, in MiB. */
export function describeBudget(budget: MemoryBudget): Record<string, string> {
  const mib = (bytes: number) => `${Math.round(bytes / 1024 ** 2)}MiB`;
  return {
    memory_limit: mib(budget.limitBytes),
    duckdb_memory_limit: mib(budget.duckdbBytes),
    node_share: mib(budget.nodeBytes),
    pglite_share: mib(budget.pgliteBytes),
    v8_heap_limit: mib(budget.v8HeapLimitBytes),
  };
}
