import type { TableDefinition } from '../store';
import { alertEventsTable } from './alertEvents';
import { alertsTable } from './alerts';
import { attachmentsTable } from './attachments';
import { errorsTable } from './errors';
import { eventsTable } from './events';
import { issuesTable } from './issues';
import { logsTable } from './logs';
import { profileChunksTable } from './profileChunks';
import { replayChunksTable } from './replayChunks';
import { replaySessionsTable } from './replaySessions';
import { sessionsTable } from './sessions';
import { spansTable } from './spans';
import { stacksTable } from './stacks';
import { vitalsTable } from './vitals';

export * from './alertEvents';
export * from './alerts';
export * from './attachments';
export * from './errors';
export * from './events';
export * from './issues';
export * from './logs';
export * from './profileChunks';
export * from './replayChunks';
export * from './replaySessions';
export * from './sessions';
export * from './spans';
export * from './stacks';
export * from './stream';
export * from './vitals';

/** Every table the analytics store holds, in creation order. */
export const ANALYTICS_TABLES: readonly TableDefinition<object>[] = [
  logsTable,
  eventsTable,
  errorsTable,
  stacksTable,
  issuesTable,
  alertsTable,
  alertEventsTable,
  spansTable,
  vitalsTable,
  replaySessionsTable,
  replayChunksTable,
  profileChunksTable,
  sessionsTable,
  attachmentsTable,
] as readonly TableDefinition<never>[] as readonly TableDefinition<object>[];
