import { postgresJson, type SqlClient } from '../store';

export type SchemaSignal = 'logs' | 'events';

/** What one write batch adds to a project's schema document. */
export interface PropertyDelta {
  projectId: string;
  signal: SchemaSignal;
  key: string;
  type: string;
  /** Distinct example values (JSON values), first seen first. */
  examples: unknown[];
  volume: number;
}

export interface EventNameDelta {
  projectId: string;
  name: string;
  volume: number;
}

export const MAX_EXAMPLES = 5;

/**
 * Adds a batch's property and event-name counts to the registry: one statement each, however many rows the
 * batch held. A key seen with two types becomes 'mixed'; examples fill up to five distinct values.
 */
export async function recordSchema(sql: SqlClient, properties: PropertyDelta[], eventNames: EventNameDelta[]): Promise<void> {
  if (properties.length > 0) {
    await sql.query(
      `insert into schema_properties as s (project_id, signal, key, type, examples, volume, last_seen_at)
       select d.project_id, d.signal, d.key, d.type, d.examples::jsonb, d.volume, now()
       from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[])
         as d(project_id, signal, key, type, examples, volume)
       on conflict (project_id, signal, key) do update set
         volume = s.volume + excluded.volume,
         last_seen_at = excluded.last_seen_at,
         type = case when s.type = excluded.type then s.type else 'mixed' end,
         examples = case when jsonb_array_length(s.examples) >= ${MAX_EXAMPLES} then s.examples else (
           select coalesce(jsonb_agg(value), '[]'::jsonb) from (
             select value from (
               select value, min(position) as first from jsonb_array_elements(s.examples || excluded.examples)
                 with ordinality as e(value, position) group by value
             ) distinct_values order by first limit ${MAX_EXAMPLES}
           ) kept
         ) end`,
      [
        properties.map((delta) => delta.projectId),
        properties.map((delta) => delta.signal),
        properties.map((delta) => delta.key),
        properties.map((delta) => delta.type),
        properties.map((delta) => postgresJson(delta.examples.slice(0, MAX_EXAMPLES))),
        properties.map((delta) => delta.volume),
      ],
    );
  }
  if (eventNames.length > 0) {
    await sql.query(
      `insert into schema_event_names as s (project_id, name, volume, last_seen_at)
       select d.project_id, d.name, d.volume, now()
       from unnest($1::uuid[], $2::text[], $3::bigint[]) as d(project_id, name, volume)
       on conflict (project_id, name) do update set volume = s.volume + excluded.volume, last_seen_at = excluded.last_seen_at`,
      [eventNames.map((delta) => delta.projectId), eventNames.map((delta) => delta.name), eventNames.map((delta) => delta.volume)],
    );
  }
}

export interface PropertySchemaRow {
  signal: SchemaSignal;
  key: string;
  type: string;
  examples: unknown[];
  volume: number;
}

/**
 * GDPR erasure: a person's distinct id, kept as an example value of any property of the project's schema, is removed
 * from the examples (a copy of their events as much as the rows are). Answers how many properties held it.
 */
export async function forgetSchemaExample(sql: SqlClient, projectId: string, value: string): Promise<number> {
  const rows = await sql.query<{ key: string }>(
    `update schema_properties set examples = examples - $2::text
     where project_id = $1 and examples @> jsonb_build_array($2::text) returning key`,
    [projectId, value],
  );
  return rows.length;
}

/** A property key across every project: the rows that carried it, and whether every project saw only numbers. */
export interface BusiestProperty {
  signal: SchemaSignal;
  key: string;
  volume: number;
  numeric: boolean;
}

/** Each signal's keys carried by at least `minVolume` rows over all projects, busiest first, at most `perSignal` each. */
export async function busiestProperties(sql: SqlClient, minVolume: number, perSignal: number): Promise<BusiestProperty[]> {
  const rows = await sql.query<{ signal: SchemaSignal; key: string; volume: string | number; numeric: boolean }>(
    `select signal, key, volume, numeric from (
       select signal, key, sum(volume) as volume, bool_and(type = 'number') as numeric,
              row_number() over (partition by signal order by sum(volume) desc, key) as place
       from schema_properties group by signal, key
     ) ranked
     where volume >= $1 and place <= $2 order by signal, place`,
    [minVolume, perSignal],
  );
  return rows.map((row) => ({ signal: row.signal, key: row.key, volume: Number(row.volume), numeric: row.numeric }));
}

export async function readPropertySchema(sql: SqlClient, projectId: string): Promise<PropertySchemaRow[]> {
  return sql.query<PropertySchemaRow>(
    `select signal, key, type, examples, volume from schema_properties where project_id = $1 order by volume desc, key`,
    [projectId],
  );
}

export async function readEventNames(sql: SqlClient, projectId: string): Promise<{ name: string; volume: number }[]> {
  return sql.query<{ name: string; volume: number }>(
    'select name, volume from schema_event_names where project_id = $1 order by volume desc, name',
    [projectId],
  );
}

export interface PropertySchema {
  key: string;
  type: string;
  examples: unknown[];
  volume: number;
}

/** SPEC.md "Schema document", read from the registry the writers keep current; the stored rows are never scanned. */
export interface SchemaDocument {
  log_properties: PropertySchema[];
  event_properties: PropertySchema[];
  event_names: { name: string; volume: number }[];
}

export async function readSchemaDocument(sql: SqlClient, projectId: string): Promise<SchemaDocument> {
  const [properties, eventNames] = await Promise.all([readPropertySchema(sql, projectId), readEventNames(sql, projectId)]);
  const ofSignal = (signal: SchemaSignal) =>
    properties.filter((property) => property.signal === signal).map(({ key, type, examples, volume }) => ({ key, type, examples, volume }));
  return { log_properties: ofSignal('logs'), event_properties: ofSignal('events'), event_names: eventNames };
}
