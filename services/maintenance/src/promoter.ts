import { Type } from '@sinclair/typebox';
import { eventsTable, logsTable, promotedKey, type AnalyticsStore, type TableDefinition } from '@tlm/analytics-store';
import { metrics, type Logger } from '@tlm/core';
import { busiestProperties, type MetadataStore, type SchemaSignal } from '@tlm/metadata-store';

export const promoterConfig = {
  PROMOTE_PROPERTIES: Type.String({
    default: '',
    description:
      'Property keys kept as columns of their own from the start, comma-separated as signal:key (logs:route, events:plan); ' +
      'the busiest keys are promoted without being named (docs/performance.md "Promoted properties").',
  }),
  PROMOTE_MIN_ROWS: Type.Integer({
    minimum: 1,
    default: 100_000,
    description: 'Rows (over all projects) that must carry a property key before it is promoted to a column of its own.',
  }),
  PROMOTE_MAX_COLUMNS: Type.Integer({
    minimum: 0,
    maximum: 64,
    default: 16,
    description: 'Promoted keys per signal at most, the busiest first; 0 promotes only PROMOTE_PROPERTIES.',
  }),
  PROMOTE_INTERVAL_MS: Type.Integer({
    minimum: 0,
    default: 60_000,
    description: 'How often the schema registry is read for keys to promote; 0 promotes only PROMOTE_PROPERTIES, at start.',
  }),
};

export interface PromoterOptions {
  /** `signal:key` pairs promoted whatever their volume. */
  named: string;
  minRows: number;
  maxColumns: number;
  intervalMs: number;
}

/** The promoter's options from its settings (promoterConfig). */
export function promoterOptions(config: { PROMOTE_PROPERTIES: string; PROMOTE_MIN_ROWS: number; PROMOTE_MAX_COLUMNS: number; PROMOTE_INTERVAL_MS: number }): PromoterOptions {
  return {
    named: config.PROMOTE_PROPERTIES,
    minRows: config.PROMOTE_MIN_ROWS,
    maxColumns: config.PROMOTE_MAX_COLUMNS,
    intervalMs: config.PROMOTE_INTERVAL_MS,
  };
}

const TABLES: Record<SchemaSignal, TableDefinition<object>> = {
  logs: logsTable as unknown as TableDefinition<object>,
  events: eventsTable as unknown as TableDefinition<object>,
};

interface Candidate {
  signal: SchemaSignal;
  key: string;
  numeric: boolean;
}

/** `logs:route, events:plan` as candidates; anything else is a configuration error, said at start. */
export function namedPromotions(list: string): Candidate[] {
  return list
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .map((item) => {
      const at = item.indexOf(':');
      const signal = item.slice(0, at);
      const key = item.slice(at + 1);
      if (at < 0 || !(signal in TABLES) || key === '') throw new Error(`PROMOTE_PROPERTIES: "${item}" is not logs:<key> or events:<key>`);
      // A named key gets its number column too, whatever the registry knows of it yet: a column of a text key reads
      // as no number in every row, which costs next to nothing to store.
      return { signal: signal as SchemaSignal, key, numeric: true };
    });
}

export interface Promoter {
  /** Promotes what is due now: the named keys, then the busiest ones; answers the keys promoted by this pass. */
  runOnce(): Promise<string[]>;
  stop(): Promise<void>;
}

/**
 * Keeps the busiest property keys of logs and events as columns of their own in a store that can (DuckDB and
 * ClickHouse both can): the schema registry counts each key's rows, and a key past PROMOTE_MIN_ROWS is promoted, up to
 * PROMOTE_MAX_COLUMNS per signal. One key at a time, in the background; queries read a key's column once it is filled for every stored row.
 */
export function startPromoter(deps: { metadata: MetadataStore; analytics: AnalyticsStore; logger: Logger }, options: PromoterOptions): Promoter {
  const named = namedPromotions(options.named);
  const { analytics, logger } = deps;
  let stopped = false;
  let running: Promise<string[]> | undefined;
  let timer: NodeJS.Timeout | undefined;

  const due = async (): Promise<Candidate[]> => {
    const busiest = options.maxColumns > 0 ? await busiestProperties(deps.metadata, options.minRows, options.maxColumns) : [];
    const promoted = (signal: SchemaSignal) => analytics.promotedColumns?.(TABLES[signal].name) ?? new Map();
    // Promotions are kept for good: once a signal has PROMOTE_MAX_COLUMNS, keys that grow busy later are not added.
    const room = busiest.filter((item) => promoted(item.signal).size < options.maxColumns);
    return [...named, ...room].filter((item) => !promoted(item.signal).has(promotedKey('properties', item.key)));
  };

  const count = () => {
    for (const table of Object.values(TABLES)) metrics.promotedProperties.set({ table: table.name }, analytics.promotedColumns?.(table.name).size ?? 0);
  };

  const pass = async (): Promise<string[]> => {
    if (!analytics.promote) return [];
    count();
    const promoted: string[] = [];
    for (const candidate of await due()) {
      if (stopped) break;
      const started = performance.now();
      const promotion = await analytics.promote(TABLES[candidate.signal], 'properties', candidate.key, candidate.numeric);
      promoted.push(`${candidate.signal}:${candidate.key}`);
      count();
      logger.info(
        { table: promotion.table, key: promotion.key, column: promotion.column, number_column: promotion.numberColumn, ms: Math.round(performance.now() - started) },
        'property promoted to a column of its own',
      );
    }
    return promoted;
  };

  const runOnce = (): Promise<string[]> => {
    running ??= pass().finally(() => {
      running = undefined;
    });
    return running;
  };

  const tick = () => {
    runOnce()
      .catch((error: unknown) => {
        // A fill cut short by the store closing resumes on the next start.
        if (!stopped) logger.warn({ err: error }, 'property promotion failed; it is tried again on the next pass');
      })
      .finally(() => {
        if (!stopped && options.intervalMs > 0) timer = setTimeout(tick, options.intervalMs).unref();
      });
  };
  if (analytics.promote && (named.length > 0 || options.intervalMs > 0)) timer = setTimeout(tick, 0).unref();

  return {
    runOnce,
    // Does not wait for a fill in progress: closing the store ends it between two of its statements.
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
