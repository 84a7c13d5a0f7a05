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

/**
 * Removes the bodies of some owners of a project (GDPR erasure) on every day they were received: attachments of
 * error events (`<project>/attachments/<day>/<event>/…`) or chunks of replay sessions (`<project>/replays/<day>/
 * <session>/…`). A body sent again on a later day is stored under that day as well, and each copy goes.
 */
export async function deleteOwnedBlobs(
  blobs: BlobStore,
  projectId: string,
  signal: 'attachments' | 'replays',
  owners: readonly string[],
): Promise<number> {
  if (owners.length === 0) return 0;
  const wanted = new Set(owners);
  const prefix = `${projectBlobPrefix(projectId)}${signal}/`;
  const folders = new Set<string>();
  for (const key of await blobs.list(prefix)) {
    const [day, owner] = key.slice(prefix.length).split('/', 2);
    if (day && owner && wanted.has(owner)) folders.add(`${prefix}${day}/${owner}/`);
  }
  let removed = 0;
  for (const folder of folders) removed += await blobs.deletePrefix(folder);
  return removed;
}
