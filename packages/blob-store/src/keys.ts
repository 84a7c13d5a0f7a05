/**
 * Where bodies live (docs/decisions.md, "Session replay and profiles"): `<project_id>/<signal>/<yyyy-mm-dd>/<object>`. The project comes
 * first so a project's removal is one prefix; the day of receipt comes next so retention can drop whole days.
 */

/** `yyyy-mm-dd` (UTC) of an epoch-milliseconds time. */
export const blobDay = (epochMs: number): string => new Date(epochMs).toISOString().slice(0, 10);

/** One replay recording chunk: `<project>/replays/<day>/<session_id>/<seq>`. */
export const replayChunkKey = (projectId: string, receivedAt: number, sessionId: string, seq: number): string =>
  `${projectId}/replays/${blobDay(receivedAt)}/${sessionId}/${seq}`;

/** One profile chunk: `<project>/profiles/<day>/<chunk_id>`. */
export const profileChunkKey = (projectId: string, receivedAt: number, chunkId: string): string =>
  `${projectId}/profiles/${blobDay(receivedAt)}/${chunkId}`;

/** One attachment of an error event: `<project>/attachments/<day>/<event_id>/<attachment_id>`. */
export const attachmentKey = (projectId: string, receivedAt: number, eventId: string, attachmentId: string): string =>
  `${projectId}/attachments/${blobDay(receivedAt)}/${eventId}/${attachmentId}`;

/** One export file: `<project>/exports/<day>/<job_id>.<ext>`. */
export const exportFileKey = (projectId: string, createdAt: number, jobId: string, extension: string): string =>
  `${projectId}/exports/${blobDay(createdAt)}/${jobId}.${extension}`;

/** Every body of a project, for its permanent removal. */
export const projectBlobPrefix = (projectId: string): string => `${projectId}/`;

