/**
 * Bodies too large or too opaque for analytics rows: replay recording chunks and profile chunks. Rows in the
 * analytics store hold each body's key; the gateway writes the body here before it publishes the row, so a row never
 * names a body that is not stored.
 */
export interface BlobStore {
  /** Stores `body` under `key`, replacing what was there; resolves once the bytes survive a crash. */
  put(key: string, body: Buffer): Promise<void>;
  /** The bytes under `key`, exactly as stored, or undefined when there are none. */
  get(key: string): Promise<Buffer | undefined>;
  /** Every key that starts with `prefix`, in lexicographic order. */
  list(prefix: string): Promise<string[]>;
  /** Removes every key that starts with `prefix`; resolves with how many were removed. */
  deletePrefix(prefix: string): Promise<number>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** One key segment: what ids may hold when they become part of a key (no `/`, no `..`, no `~`). */
export const KEY_SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

/** Keys are `/`-separated segments; the check keeps them safe as file paths and as S3 object names alike. */
export function isBlobKey(key: string): boolean {
  const segments = key.split('/');
  return segments.length > 0 && segments.every((segment) => KEY_SEGMENT.test(segment));
}

export function assertBlobKey(key: string): void {
  if (!isBlobKey(key)) throw new Error(`invalid blob key: ${JSON.stringify(key.slice(0, 200))}`);
}

/** Prefixes are keys or key beginnings; `''` means everything. */
export function assertBlobPrefix(prefix: string): void {
  if (prefix === '') return;
  const trimmed = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  if (!isBlobKey(trimmed)) throw new Error(`invalid blob key prefix: ${JSON.stringify(prefix.slice(0, 200))}`);
}
