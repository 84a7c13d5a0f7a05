import type { TableDefinition } from '../store';
import { alertEventsTable } from './alertEvents';
import { alertsTable } from './alerts';
import { errorsTable } from './errors';
import { eventsTable } from './events';
import { issuesTable } from './issues';
import { logsTable } from './logs';

export * from './alertEvents';
export * from './alerts';
export * from './errors';
export * from './events';
export * from './issues';
export * from './logs';

/** Every table the analytics store holds, in creation order. */
export const ANALYTICS_TABLES: readonly TableDefinition<object>[] = [
  logsTable,
  eventsTable,
  errorsTable,
  issuesTable,
  alertsTable,
  alertEventsTable,
] as readonly TableDefinition<never>[] as readonly TableDefinition<object>[];
