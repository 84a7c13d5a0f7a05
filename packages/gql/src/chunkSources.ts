import { attachmentsTable, profileChunksTable, replayChunksTable, replaySessionsTable, type TableDefinition } from '@tlm/analytics-store';
import { defineSource } from './sources';

/**
 * Replay, profile and attachment metadata as read sources; not GQL sources (GQL names only what DECISIONS.md lists).
 * The query service's reads and the GDPR export read them with `findRows`, answering with the `*_FIELDS` names.
 */
export const replaySessions = defineSource({ name: 'replay_sessions', description: 'replay sessions', table: replaySessionsTable as TableDefinition<never>, timeColumn: 'started_at' });
export const replayChunks = defineSource({ name: 'replay_chunks', description: 'replay recording chunks', table: replayChunksTable as TableDefinition<never>, timeColumn: 'start_ts' });
export const profileChunks = defineSource({ name: 'profile_chunks', description: 'profile chunks', table: profileChunksTable as TableDefinition<never>, timeColumn: 'started_at' });
export const attachments = defineSource({ name: 'attachments', description: 'error attachments', table: attachmentsTable as TableDefinition<never>, timeColumn: 'updated_at' });

/** A replay session as reads answer it: output key → column or bag. */
export const SESSION_FIELDS = {
  session_id: 'id',
  distinct_id: 'distinct_id',
  started_at: 'started_at',
  url: 'url',
  user_agent: 'user_agent',
  properties: 'properties',
  updated_at: 'updated_at',
};
/** A replay chunk within its session (the session's read names the session once). */
export const CHUNK_FIELDS = { seq: 'seq', start_ts: 'start_ts', end_ts: 'end_ts', event_count: 'event_count', size_bytes: 'size_bytes' };
export const PROFILE_FIELDS = {
  chunk_id: 'id',
  profiler_id: 'profiler_id',
  profile_type: 'profile_type',
  platform: 'platform',
  release: 'release',
  environment: 'environment',
  sample_count: 'sample_count',
  started_at: 'started_at',
  ended_at: 'ended_at',
  size_bytes: 'size_bytes',
  received_at: 'updated_at',
};
export const ATTACHMENT_FIELDS = {
  id: 'id',
  event_id: 'event_id',
  filename: 'filename',
  content_type: 'content_type',
  attachment_type: 'attachment_type',
  size_bytes: 'size_bytes',
  received_at: 'updated_at',
};
