import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { keys, projectPath } from '../../api/hooks';

/** One stored profile chunk as `GET …/profiles/chunks` lists it (docs/api.md, Profiles). */
export interface ProfileChunk {
  chunk_id: string;
  profiler_id: string;
  profile_type: string;
  platform: string | null;
  release: string | null;
  environment: string | null;
  sample_count: number;
  started_at: string;
  ended_at: string;
  size_bytes: number;
  received_at: string;
}

export interface ChunkFilters {
  profilerId?: string;
  release?: string;
}

/** The most chunks one list request returns (the API's limit). */
export const MAX_CHUNKS = 1_000;

export const chunksPath = (org: string, project: string) => `${projectPath(org, project)}/profiles/chunks`;
/** The stored body as sent, for the raw link and the page's own read. */
export const chunkBodyPath = (org: string, project: string, chunkId: string) => `${chunksPath(org, project)}/${encodeURIComponent(chunkId)}`;

/** The newest chunks of the project, of one profiler and one release when given. */
export function useProfileChunks(org: string, project: string, filters: ChunkFilters, limit = 100) {
  return useQuery({
    queryKey: [...keys.project(org, project), 'profiles', 'chunks', filters, limit],
    queryFn: ({ signal }): Promise<ProfileChunk[]> =>
      api
        .get<{ chunks: ProfileChunk[] }>(chunksPath(org, project), { signal, query: { profiler_id: filters.profilerId, release: filters.release, limit } })
        .then((answer) => answer.chunks),
    placeholderData: keepPreviousData,
    enabled: Boolean(org && project),
  });
}

/** A chunk's body as stored: any JSON object, read as a profile by ./profileTree. */
export function useProfileBody(org: string, project: string, chunkId: string) {
  return useQuery({
    queryKey: [...keys.project(org, project), 'profiles', 'chunk', chunkId],
    // An empty or unparsable body reads as null, which ./profileTree refuses with its reason.
    queryFn: ({ signal }) => api.get<unknown>(chunkBodyPath(org, project, chunkId), { signal }).then((body) => body ?? null),
    // A chunk is written once; its body does not change while the page is open.
    staleTime: Infinity,
    enabled: Boolean(org && project && chunkId),
  });
}

const count = new Intl.NumberFormat('en-US');
const decimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

/** "912 B", "6.6 KB", "1.2 MB" (powers of 1,024). */
export function formatBytes(bytes: number): string {
  if (bytes < 1_024) return `${count.format(bytes)} B`;
  if (bytes < 1_024 * 1_024) return `${decimal.format(bytes / 1_024)} KB`;
  return `${decimal.format(bytes / (1_024 * 1_024))} MB`;
}

/** The time between a chunk's first and last sample, from its row. */
export const chunkDurationMs = (chunk: Pick<ProfileChunk, 'started_at' | 'ended_at'>) => Math.max(0, Date.parse(chunk.ended_at) - Date.parse(chunk.started_at));

export const formatCount = (value: number) => count.format(value);

/** The first 8 characters of a 32-digit profiler or chunk id, as a label; the whole id goes in a title. */
export const shortId = (id: string) => (id.length > 12 ? `${id.slice(0, 8)}…` : id);
