import { Type } from '@sinclair/typebox';

export * from './migrate';
export * from './pglite';
export * from './postgres';
export * from './store';
export * from './tables';

export const postgresConfig = {
  DATABASE_URL: Type.String({ description: 'Postgres connection string of the metadata store, e.g. postgres://tlm@postgres:5432/tlm.' }),
  DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, default: 10, description: 'Connections this service keeps to Postgres.' }),
};
