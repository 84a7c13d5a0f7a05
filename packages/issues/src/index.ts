import type { ErrorRecord } from '@tlm/signals';

export * from './counter';
export * from './fingerprint';
export * from './grouping';
export * from './lifecycle';
export * from './recentEvents';
export * from './recorder';
export * from './snapshots';
export * from './store';

/**
 * A step the issues processor runs over each batch before fingerprinting, e.g. source-map symbolication: it returns
 * the records to store, changed or not. It should return a record unchanged when it cannot improve it; throwing
 * means broken infrastructure, and the batch is delivered again.
 */
export type ErrorEnricher = (records: ErrorRecord[]) => Promise<ErrorRecord[]>;
