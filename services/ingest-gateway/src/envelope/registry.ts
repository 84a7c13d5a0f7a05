import { analyticsEventItem } from './events';
import { clientReportItem } from './clientReports';
import { DEFAULT_ITEM_LIMIT_BYTES, type ItemKind } from './items';
import { logItem } from './logs';

/**
 * Every envelope item type the service understands (DECISIONS.md `POST /v1/envelope`) and its size limit. Types not
 * listed are skipped and counted, never fatal.
 */
export const ENVELOPE_ITEM_KINDS: Record<string, ItemKind> = {
  log: { handle: logItem, limitBytes: DEFAULT_ITEM_LIMIT_BYTES },
  analytics_event: { handle: analyticsEventItem, limitBytes: DEFAULT_ITEM_LIMIT_BYTES },
  client_report: { handle: clientReportItem, limitBytes: DEFAULT_ITEM_LIMIT_BYTES },
  // Release-health sessions are acknowledged but not stored; the issue trackers' views come from errors.
  session: { handle: () => ({ skipped: 'session items are not stored' }), limitBytes: DEFAULT_ITEM_LIMIT_BYTES },
  sessions: { handle: () => ({ skipped: 'session items are not stored' }), limitBytes: DEFAULT_ITEM_LIMIT_BYTES },
};
