export * from './clickhouse';
export * from './duckdb';
export * from './store';
export * from './tables';
export * from './purge';
export * from './textSignature';
