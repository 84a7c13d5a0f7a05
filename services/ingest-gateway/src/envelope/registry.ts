import { attachmentItem } from './attachments';
import { analyticsEventItem } from './events';
import { clientReportItem } from './clientReports';
import { errorEventItem } from './errors';
import { DEFAULT_ITEM_LIMIT_BYTES, LARGE_ITEM_LIMIT_BYTES, type ItemKind } from './items';
import { logItem } from './logs';
import { profileChunkItem } from './profiles';
import { replayEventItem, replayRecordingItem } from './replay';
import { sessionAggregatesItem, sessionItem } from './sessions';
import { spanItem, transactionItem } from './spans';
import { webVitalItem } from './vitals';

/**
 * Every envelope item type the service understands (DECISIONS.md `POST /v1/envelope`) and its size limit. Types not
 * listed are skipped and counted, never fatal.
 */
const ENVELOPE_ITEM_KINDS: Record<string, ItemKind> = {
  event: { handle: errorEventItem, limitBytes: DEFAULT_ITEM_LIMIT_BYTES },
  log: { handle: logItem, limitBytes: DEFAULT_ITEM_LIMIT_BYTES },
  analytics_event: { handle: analyticsEventItem, limitBytes: DEFAULT_ITEM_LIMIT_BYTES },
  transaction: { handle: transactionItem, limitBytes: DEFAULT_ITEM_LIMIT_BYTES },
  span: { handle: spanItem, limitBytes: DEFAULT_ITEM_LIMIT_BYTES },
  web_vital: { handle: webVitalItem, limitBytes: DEFAULT_ITEM_LIMIT_BYTES },
  replay_event: { handle: replayEventItem, limitBytes: DEFAULT_ITEM_LIMIT_BYTES },
  replay_recording: { handle: replayRecordingItem, limitBytes: LARGE_ITEM_LIMIT_BYTES, blob: true },
  profile_chunk: { handle: profileChunkItem, limitBytes: LARGE_ITEM_LIMIT_BYTES, blob: true },
  attachment: { handle: attachmentItem, limitBytes: LARGE_ITEM_LIMIT_BYTES, unparsed: true, blob: true },
  client_report: { handle: clientReportItem, limitBytes: DEFAULT_ITEM_LIMIT_BYTES },
  session: { handle: sessionItem, limitBytes: DEFAULT_ITEM_LIMIT_BYTES },
  sessions: { handle: sessionAggregatesItem, limitBytes: DEFAULT_ITEM_LIMIT_BYTES },
};

/** The kind of an item type, or undefined for a type nobody stores (and for names of Object's own, like `constructor`). */
export function envelopeItemKind(type: string): ItemKind | undefined {
  return Object.hasOwn(ENVELOPE_ITEM_KINDS, type) ? ENVELOPE_ITEM_KINDS[type] : undefined;
}
