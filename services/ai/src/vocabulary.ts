import type { AnalyticsStore } from '@tlm/analytics-store';
import { gqlApiError, runQuery, type SchemaDocument } from '@tlm/gql';
import type { ColumnValues } from './translator';

/** Columns whose stored values name things people ask about: "TypeErrors", "in staging", "the checkout service". */
const VALUE_COLUMNS: Record<string, string[]> = {
  errors: ['type', 'environment', 'release', 'platform', 'browser', 'os'],
  issues: ['level'],
  spans: ['service', 'op', 'name', 'environment', 'release'],
  vitals: ['route', 'release'],
  sessions: ['release', 'environment'],
  alerts: ['name'],
  alert_events: ['rule_name'],
};

/** Text properties of logs and events whose values are read, most used first. */
const MAX_PROPERTIES = 12;
/** Values kept per field, most frequent first. */
const MAX_VALUES = 50;
/** How long a project's values are reused: a conversation's questions come seconds apart. */
const CACHE_MS = 30_000;
const MAX_CACHED_PROJECTS = 1_000;

/**
 * The values stored in a project's columns and text properties, read with GQL itself (so within the project and its
 * retention), for the translator's vocabulary. A source with no rows is absent.
 */
export class Vocabulary {
  private readonly cache = new Map<string, { expires: number; values: Promise<ColumnValues> }>();

  constructor(private readonly analytics: AnalyticsStore) {}

  read(projectId: string, retentionDays: number, schema: SchemaDocument): Promise<ColumnValues> {
    const cached = this.cache.get(projectId);
    if (cached && cached.expires > Date.now()) return cached.values;
    if (this.cache.size >= MAX_CACHED_PROJECTS) this.cache.delete(this.cache.keys().next().value!);
    const values = this.load(projectId, retentionDays, schema);
    this.cache.set(projectId, { expires: Date.now() + CACHE_MS, values });
    values.catch(() => this.cache.delete(projectId));
    return values;
  }

  private async load(projectId: string, retentionDays: number, schema: SchemaDocument): Promise<ColumnValues> {
    const wanted: [string, string][] = Object.entries(VALUE_COLUMNS).flatMap(([source, fields]) => fields.map((field) => [source, field] as [string, string]));
    const properties: [string, SchemaDocument['log_properties']][] = [
      ['logs', schema.log_properties],
      ['events', schema.event_properties],
    ];
    for (const [source, list] of properties) {
      const text = list.filter((property) => property.type === 'string' && !property.key.startsWith('$')).sort((a, b) => b.volume - a.volume);
      for (const property of text.slice(0, MAX_PROPERTIES)) wanted.push([source, property.key]);
    }
    const guard = { projectId, retentionDays, now: new Date() };
    const values: ColumnValues = {};
    for (const [source, field] of wanted) {
      let results: Record<string, unknown>[];
      try {
        results = (await runQuery(this.analytics, `from:${source} | count by ${JSON.stringify(field)} | top ${MAX_VALUES}`, guard)).data.results;
      } catch (error) {
        // A property key GQL cannot name is left out of the vocabulary; a store that fails fails the translation.
        if (gqlApiError(error)) continue;
        throw error;
      }
      const seen = results.map((row) => row[field]).filter((value): value is string => typeof value === 'string' && value.length > 0);
      if (results.length > 0) (values[source] ??= {})[field] = seen;
    }
    return values;
  }
}
