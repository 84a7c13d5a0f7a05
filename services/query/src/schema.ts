import { readEventNames, readPropertySchema, type SqlClient } from '@tlm/metadata-store';

export interface SchemaDocument {
  log_properties: PropertySchema[];
  event_properties: PropertySchema[];
  event_names: { name: string; volume: number }[];
}

export interface PropertySchema {
  key: string;
  type: string;
  examples: unknown[];
  volume: number;
}

/** SPEC.md "Schema document": read from the registry the writers keep current; no scan of stored rows. */
export async function schemaDocument(sql: SqlClient, projectId: string): Promise<SchemaDocument> {
  const [properties, eventNames] = await Promise.all([readPropertySchema(sql, projectId), readEventNames(sql, projectId)]);
  const ofSignal = (signal: string) =>
    properties
      .filter((property) => property.signal === signal)
      .map(({ key, type, examples, volume }) => ({ key, type, examples, volume }));
  return { log_properties: ofSignal('logs'), event_properties: ofSignal('events'), event_names: eventNames };
}
