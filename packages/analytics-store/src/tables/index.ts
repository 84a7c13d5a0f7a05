import type { TableDefinition } from '../store';
import { eventsTable } from './events';
import { logsTable } from './logs';

export * from './events';
export * from './logs';

/** Every table the analytics store holds, in creation order. */
export const ANALYTICS_TABLES: readonly TableDefinition<object>[] = [
  logsTable as TableDefinition<object>,
  eventsTable as TableDefinition<object>,
];
