import { profileChunkKey } from '@tlm/blob-store';
import { Topics } from '@tlm/bus';
import { describeProfile, jsonPayload, profileChunkParams, toProfileChunkRecord, type ChunkQuery } from '@tlm/signals';
import type { EnvelopeItemHandler } from './items';

/**
 * `profile_chunk` (Sentry's continuous profiling, sample format v2): the payload names its profiler, chunk, platform,
 * release and environment, and its samples give the count and the time span. The payload is stored byte for byte.
 */
export const profileChunkItem: EnvelopeItemHandler = async (item, context) => {
  const payload = jsonPayload(item);
  if (!payload.ok) return { rejected: payload.reason };
  const chunk = payload.value;
  const query: ChunkQuery = {};
  for (const name of ['profiler_id', 'chunk_id', 'platform', 'release', 'environment']) {
    const value = chunk[name] ?? (name === 'platform' ? item.header['platform'] : undefined);
    if (typeof value === 'string') query[name] = value;
  }
  const params = profileChunkParams(query, context.ingest.receivedAt);
  if (!params.ok) return { rejected: `profile_chunk item: ${params.reason}` };
  const blobKey = profileChunkKey(context.ingest.projectId, context.ingest.receivedAt, params.value.chunkId);
  const record = toProfileChunkRecord(params.value, describeProfile(chunk), item.payload.length, blobKey, context.ingest);
  if (!record.ok) return { rejected: `profile_chunk item: ${record.reason}` };
  await context.blobs.put(blobKey, item.payload);
  return { routed: [{ topic: Topics.profiles, record: record.value }] };
};
