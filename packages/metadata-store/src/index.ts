import { Type } from '@sinclair/typebox';

export * from './migrate';
export * from './pglite';
export * from './postgres';
export * from './store';
export * from './tables';

/** A node-postgres connection string: a postgres:// or postgresql:// URL, or socket:/path. */
export const POSTGRES_URL_PATTERN = '^(postgres(ql)?://|socket:)';

export const postgresConfig = {
  DATABASE_URL: Type.String({ pattern: POSTGRES_URL_PATTERN, secret: true, description: 'Postgres connection string of the metadata store, e.g. postgres://tlm@postgres:5432/tlm.' }),
  DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, default: 10, description: 'Connections this service keeps to Postgres.' }),
};
