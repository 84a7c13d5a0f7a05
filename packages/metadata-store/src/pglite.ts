import { PGlite } from '@electric-sql/pglite';
import { storableParams, type MetadataStore, type SqlClient, type SqlParams } from './store';

/** Real Postgres compiled to WASM, in this process; `dataDir` undefined keeps everything in memory. */
export class PGliteStore implements MetadataStore {
  readonly kind = 'pglite';

  private constructor(private readonly db: PGlite) {}

  static async open(dataDir?: string): Promise<PGliteStore> {
    return new PGliteStore(await PGlite.create(dataDir));
  }

  async query<Row extends object>(text: string, params: SqlParams = []): Promise<Row[]> {
    return (await this.db.query<Row>(text, storableParams(params))).rows;
  }

  transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T> {
    return this.db.transaction((tx) =>
      work({ query: async <Row extends object>(text: string, params: SqlParams = []) => (await tx.query<Row>(text, storableParams(params))).rows }),
    );
  }

  async ping(): Promise<void> {
    await this.db.query('select 1');
  }

  async close(): Promise<void> {
    if (!this.db.closed) await this.db.close();
  }
}
