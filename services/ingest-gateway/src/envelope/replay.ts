import { replayChunkKey } from '@tlm/blob-store';
import { Topics } from '@tlm/bus';
import { inspectRecording, isChunkId, jsonPayload, toReplayChunkRecord, toReplaySessionRecord } from '@tlm/signals';
import type { EnvelopeItemHandler } from './items';

type Json = Record<string, unknown>;
const objectOf = (value: unknown): Json => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
const seconds = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? Math.round(value * 1000) : undefined);

/** A Sentry `replay_event` (https://develop.sentry.dev/sdk/telemetry/replays/) as the body of POST /v1/replay/sessions. */
function asSessionUpsert(event: Json): Json {
  const user = objectOf(event['user']);
  const request = objectOf(event['request']);
  const headers = objectOf(request['headers']);
  const sdk = objectOf(event['sdk']);
  const urls = Array.isArray(event['urls']) ? event['urls'] : [];
  const fields: Json = {
    session_id: event['replay_id'] ?? event['event_id'],
    distinct_id: user['id'] ?? user['username'] ?? user['email'],
    started_at: seconds(event['replay_start_timestamp']) ?? seconds(event['timestamp']),
    url: typeof urls[0] === 'string' ? urls[0] : request['url'],
    user_agent: headers['User-Agent'] ?? headers['user-agent'],
    properties: {
      replay_type: event['replay_type'],
      release: event['release'],
      environment: event['environment'],
      dist: event['dist'],
      platform: event['platform'],
      sdk_name: sdk['name'],
      sdk_version: sdk['version'],
    },
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined && value !== null));
}

/**
 * `replay_event`: segment 0 opens the replay and upserts its session; later segments repeat what it said and are
 * acknowledged without a row (their recordings carry the new data).
 */
export const replayEventItem: EnvelopeItemHandler = (item, context) => {
  const payload = jsonPayload(item);
  if (!payload.ok) return { rejected: payload.reason };
  const segment = payload.value['segment_id'];
  if (typeof segment === 'number' && segment > 0) return { routed: [] };
  const session = toReplaySessionRecord(asSessionUpsert(payload.value), context.ingest, context.userAgent);
  if (!session.ok) return { rejected: `replay_event item: ${session.reason}` };
  return { routed: [{ topic: Topics.replays, record: session.value }] };
};

/**
 * `replay_recording`: a JSON header line (`{"segment_id": 0}`), a newline, then the rrweb events as gzip, zlib or
 * plain JSON. The replay is the envelope's `event_id`; the segment is the chunk's `seq`. The body is stored as gzip
 * before its row is routed.
 */
export const replayRecordingItem: EnvelopeItemHandler = async (item, context) => {
  const newline = item.payload.indexOf(0x0a);
  let header: Json | undefined;
  try {
    header = newline === -1 ? undefined : objectOf(JSON.parse(item.payload.subarray(0, newline).toString('utf8')));
  } catch {
    header = undefined;
  }
  const seq = header?.['segment_id'];
  if (typeof seq !== 'number' || !Number.isInteger(seq) || seq < 0 || seq > 2_147_483_647) {
    return { rejected: 'replay_recording item: expected a JSON header line with an integer segment_id, then the recording' };
  }
  const sessionId = context.envelope['event_id'];
  if (!isChunkId(sessionId)) return { rejected: 'replay_recording item: the envelope header must name the replay in event_id' };
  const recording = await inspectRecording(item.payload.subarray(newline + 1), 'gzip, zlib or json', context.recordings, context.ingest);
  if (!recording.ok) return { rejected: `replay_recording item: ${recording.reason}` };
  const blobKey = replayChunkKey(context.ingest.projectId, context.ingest.receivedAt, sessionId, seq);
  const chunk = toReplayChunkRecord({ sessionId, seq, startTs: undefined, endTs: undefined, eventCount: undefined }, recording.value, blobKey, context.ingest);
  if (!chunk.ok) return { rejected: `replay_recording item: ${chunk.reason}` };
  await context.blobs.put(blobKey, recording.value.gzipped);
  return { routed: [{ topic: Topics.replays, record: chunk.value }] };
};
