export type SqlParams = readonly unknown[];

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
