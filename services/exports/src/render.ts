import { strToU8, Zip, ZipDeflate, ZipPassThrough } from 'fflate';

export type Row = Record<string, unknown>;

/** A cell as text: objects (property bags, frames) as JSON, absent values empty. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** RFC 4180: fields holding a comma, a quote or a line break are quoted, quotes doubled; lines end in CRLF. */
function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** CSV with a header of every column any row has, in first-seen order. */
export function toCsv(rows: Row[]): string {
  const columns: string[] = [];
  const known = new Set<string>();
  for (const row of rows) {
    for (const column of Object.keys(row)) {
      if (!known.has(column)) {
        known.add(column);
        columns.push(column);
      }
    }
  }
  const lines = [columns.map(csvField).join(','), ...rows.map((row) => columns.map((column) => csvField(cell(row[column]))).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}

export function toJson(rows: Row[]): string {
  return JSON.stringify(rows);
}

/** Bytes of a file handed to the ZIP at a time, with a turn of the event loop after each. */
const ZIP_PIECE_BYTES = 1 << 20;

/**
 * A ZIP of named files (GDPR export): text as UTF-8 (one JSON line per row in the .jsonl files), compressed; bytes as
 * they are, stored without compression (replay bodies are gzip already). A GDPR ZIP can hold EXPORT_MAX_BODY_BYTES of
 * bodies, and even storing computes a checksum over every byte: the files go in pieces of a megabyte with a turn of the
 * event loop after each, so ingest and queries in the same process wait a piece, not the whole archive.
 */
export async function toZip(files: Record<string, string | Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((error, data) => {
    if (error) failure = error;
    else parts.push(data);
  });
  for (const [name, content] of Object.entries(files)) {
    const file = typeof content === 'string' ? new ZipDeflate(name) : new ZipPassThrough(name);
    zip.add(file);
    const bytes = typeof content === 'string' ? strToU8(content) : content;
    let at = 0;
    do {
      const piece = bytes.subarray(at, at + ZIP_PIECE_BYTES);
      at += piece.length;
      file.push(piece, at >= bytes.length);
      await new Promise<void>((resolve) => setImmediate(resolve));
    } while (at < bytes.length);
    if (failure) throw failure;
  }
  zip.end();
  if (failure) throw failure;
  return Buffer.concat(parts);
}

export const jsonLines = (rows: Row[]) => rows.map((row) => JSON.stringify(row)).join('\n');
