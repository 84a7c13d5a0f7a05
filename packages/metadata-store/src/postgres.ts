import pg from 'pg';
import { storableParams, type MetadataStore, type SqlClient, type SqlParams } from './store';

const INT8_OID = 20;

/** Counts and ids fit in a double; parsing int8 as number keeps rows identical to PGlite's. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

export class PostgresStore implements MetadataStore {
  readonly kind = 'postgres';

  private constructor(private readonly pool: pg.Pool) {}

  static async connect(connectionString: string, maxConnections = 10): Promise<PostgresStore> {
    const pool = new pg.Pool({ connectionString, max: maxConnections, types });
    // An idle connection that Postgres ends (restart, failover, idle timeout) is emitted here and dropped by the pool;
    // unheard, the 'error' event killed the process. The next query connects anew, and /readyz reports an outage.
    pool.on('error', () => undefined);
    const store = new PostgresStore(pool);
    await store.ping();
    return store;
  }

  async query<Row extends object>(text: string, params: SqlParams = []): Promise<Row[]> {
    return (await this.pool.query(text, storableParams(params))).rows as Row[];
  }

  async transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('begin');
      const result = await work({
        query: async <Row extends object>(text: string, params: SqlParams = []) =>
          (await client.query(text, storableParams(params))).rows as Row[],
      });
      await client.query('commit');
      return result;
    } catch (error) {
      await client.query('rollback');
      throw error;
    } finally {
      client.release();
    }
  }

  async ping(): Promise<void> {
    await this.pool.query('select 1');
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
