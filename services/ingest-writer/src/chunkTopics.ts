import {
  attachmentRow,
  attachmentsTable,
  profileChunkRow,
  profileChunksTable,
  replayChunkRow,
  replayChunksTable,
  replaySessionRow,
  replaySessionsTable,
  type AnalyticsStore,
} from '@tlm/analytics-store';
import { Topics, type Bus, type SubscribeOptions, type Subscription } from '@tlm/bus';
import type { AttachmentRecord, ProfileChunkRecord, ReplayChunkRecord, ReplayRecord, ReplaySessionRecord } from '@tlm/signals';

/**
 * Replay, profile and attachment metadata: the gateway stored each body in the blob store before publishing its row,
 * so these rows only ever name bodies that exist. Rows replace earlier ones of the same session, chunk or attachment,
 * so a redelivered batch writes nothing new.
 */
export async function subscribeChunkTopics(bus: Bus, analytics: AnalyticsStore, group: SubscribeOptions): Promise<Subscription[]> {
  return [
    await bus.subscribe<ReplayRecord>(Topics.replays, group, async (records) => {
      const sessions = records.filter((record): record is ReplaySessionRecord => record.kind === 'session');
      const chunks = records.filter((record): record is ReplayChunkRecord => record.kind === 'chunk');
      await analytics.insert(replaySessionsTable, sessions.map(replaySessionRow));
      await analytics.insert(replayChunksTable, chunks.map(replayChunkRow));
    }),
    await bus.subscribe<ProfileChunkRecord>(Topics.profiles, group, async (records) => {
      await analytics.insert(profileChunksTable, records.map(profileChunkRow));
    }),
    await bus.subscribe<AttachmentRecord>(Topics.attachments, group, async (records) => {
      await analytics.insert(attachmentsTable, records.map(attachmentRow));
    }),
  ];
}
