import { blobDay, projectBlobPrefix } from './keys';
import type { BlobStore } from './store';

/** Removes every body of a project (permanent project or account removal). */
export function deleteProjectBlobs(blobs: BlobStore, projectId: string): Promise<number> {
  return blobs.deletePrefix(projectBlobPrefix(projectId));
}

/**
 * Removes a project's bodies received before `cutoff`'s day, whole days at a time (the day is the third key segment),
 * the blob-store side of the retention purge.
 */
export async function deleteBlobsBefore(blobs: BlobStore, projectId: string, cutoff: Date): Promise<number> {
  const lastKept = blobDay(cutoff.getTime());
  let removed = 0;
  for (const signal of ['replays', 'profiles', 'attachments', 'exports']) {
    const prefix = `${projectBlobPrefix(projectId)}${signal}/`;
    const days = new Set((await blobs.list(prefix)).map((key) => key.slice(prefix.length).split('/', 1)[0]!));
    for (const day of days) if (day < lastKept) removed += await blobs.deletePrefix(`${prefix}${day}/`);
  }
  return removed;
}
