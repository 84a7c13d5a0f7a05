import { Type } from '@sinclair/typebox';
import { ChunkCount, ChunkId } from '@tlm/api-schemas';
import { checkQuery, newId } from '@tlm/core';
import { Instant, chunkSpan, optionalInstant, type ChunkQuery } from './chunks';
import type { IngestContext } from './context';
import { accept, reject, type ItemResult } from './result';

/** `POST /v1/profiles/chunks` query parameters (SPEC.md Endpoints, DECISIONS.md), checked and typed. */
export interface ProfileChunkParams {
  profilerId: string;
  /** Generated (UUIDv7) when the client names none. */
  chunkId: string;
  profileType: string;
  sampleCount: number | undefined;
  startedAt: number | undefined;
  endedAt: number | undefined;
  platform: string | undefined;
  release: string | undefined;
  environment: string | undefined;
}

/** One profile chunk's metadata; its body is in the blob store under `blobKey`. */
export interface ProfileChunkRecord {
  projectId: string;
  chunkId: string;
  profilerId: string;
  profileType: string;
  platform: string | null;
  release: string | null;
  environment: string | null;
  sampleCount: number;
  /** Epoch milliseconds. */
  startedAt: number;
  endedAt: number;
  sizeBytes: number;
  blobKey: string;
  receivedAt: number;
  retentionDays: number;
}

/** SPEC.md: "profile_type (value seen: cpu)"; the default when the client names none. */
export const DEFAULT_PROFILE_TYPE = 'cpu';

/** The parameters as the route is described with them; their values are checked by this schema. */
export const ProfileChunkQuery = Type.Object({
  profiler_id: ChunkId('The profiler session'),
  chunk_id: Type.Optional(ChunkId('Given by the client, or made up')),
  profile_type: Type.Optional(Type.String({ maxLength: 64, description: `${DEFAULT_PROFILE_TYPE} unless given` })),
  sample_count: Type.Optional(ChunkCount('Samples in the chunk; counted from the body unless given')),
  started_at: Type.Optional(Instant('First sample')),
  ended_at: Type.Optional(Instant('Last sample')),
  platform: Type.Optional(Type.String({ maxLength: 256 })),
  release: Type.Optional(Type.String({ maxLength: 256 })),
  environment: Type.Optional(Type.String({ maxLength: 256 })),
});

export function profileChunkParams(query: ChunkQuery, receivedAt: number): ItemResult<ProfileChunkParams> {
  const checked = checkQuery(ProfileChunkQuery, query);
  if (!checked.ok) return checked;
  const startedAt = optionalInstant(checked.value.started_at, receivedAt, 'started_at');
  if (!startedAt.ok) return startedAt;
  const endedAt = optionalInstant(checked.value.ended_at, receivedAt, 'ended_at');
  if (!endedAt.ok) return endedAt;
  const { profiler_id: profilerId, chunk_id: chunkId, profile_type: profileType, sample_count: sampleCount, platform, release, environment } = checked.value;
  return accept({
    profilerId,
    chunkId: chunkId ?? newId(),
    profileType: profileType ?? DEFAULT_PROFILE_TYPE,
    sampleCount,
    startedAt: startedAt.value,
    endedAt: endedAt.value,
    platform,
    release,
    environment,
  });
}

/** What a profile body says about itself, for parameters the client left out. */
export interface InspectedProfile {
  sampleCount: number | null;
  /** Epoch milliseconds of the first and last sample, when the samples carry times. */
  firstTs: number | null;
  lastTs: number | null;
  /** Sentry's chunk names these at its top level; text of at most 256 characters, as the parameters allow. */
  platform: string | null;
  release: string | null;
  environment: string | null;
}

const MAX_NAME_CHARS = 256;
const nameIn = (profile: Record<string, unknown>, key: string): string | null => {
  const value = profile[key];
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_NAME_CHARS ? value : null;
};

/** Checks that a profile body is one JSON object, then reads what it says about itself (`describeProfile`). */
export function inspectProfile(body: Buffer): ItemResult<InspectedProfile> {
  let profile: unknown;
  try {
    profile = JSON.parse(body.toString('utf8'));
  } catch {
    return reject('the body is not valid JSON');
  }
  if (profile === null || typeof profile !== 'object' || Array.isArray(profile)) return reject('the body must be a JSON object');
  return accept(describeProfile(profile as Record<string, unknown>));
}

/**
 * Sentry's sample format v2 gives samples and their times (`profile.samples[].timestamp`, seconds), and its platform,
 * release and environment at the top level; of other formats only a top-level `samples` array is counted. Bodies are
 * stored as they are either way.
 */
export function describeProfile(profile: Record<string, unknown>): InspectedProfile {
  const names = { platform: nameIn(profile, 'platform'), release: nameIn(profile, 'release'), environment: nameIn(profile, 'environment') };
  const nested = (profile['profile'] as { samples?: unknown } | null | undefined)?.samples;
  const samples = Array.isArray(nested) ? nested : profile['samples'];
  if (!Array.isArray(samples)) return { sampleCount: null, firstTs: null, lastTs: null, ...names };
  let firstTs: number | null = null;
  let lastTs: number | null = null;
  for (const sample of Array.isArray(nested) ? nested : []) {
    const seconds = (sample as { timestamp?: unknown } | null)?.timestamp;
    if (typeof seconds !== 'number' || !Number.isFinite(seconds)) continue;
    const ms = Math.round(seconds * 1000);
    if (firstTs === null || ms < firstTs) firstTs = ms;
    if (lastTs === null || ms > lastTs) lastTs = ms;
  }
  return { sampleCount: samples.length, firstTs, lastTs, ...names };
}

export function toProfileChunkRecord(
  params: ProfileChunkParams,
  profile: InspectedProfile,
  sizeBytes: number,
  blobKey: string,
  context: IngestContext,
): ItemResult<ProfileChunkRecord> {
  const span = chunkSpan(
    { start: params.startedAt, end: params.endedAt },
    { first: profile.firstTs, last: profile.lastTs },
    context.receivedAt,
    ['started_at', 'ended_at'],
  );
  if (!span.ok) return span;
  return accept({
    projectId: context.projectId,
    chunkId: params.chunkId,
    profilerId: params.profilerId,
    profileType: params.profileType,
    // The parameters win; what the body names fills those left out (Sentry's chunks name all three).
    platform: params.platform ?? profile.platform,
    release: params.release ?? profile.release,
    environment: params.environment ?? profile.environment,
    sampleCount: params.sampleCount ?? profile.sampleCount ?? 0,
    startedAt: span.value.start,
    endedAt: span.value.end,
    sizeBytes,
    blobKey,
    receivedAt: context.receivedAt,
    retentionDays: context.retentionDays,
  });
}
