import { strToU8, zipSync } from 'fflate';

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

/**
 * A ZIP of named files (GDPR export): text as UTF-8 (one JSON line per row in the .jsonl files), compressed; bytes as
 * they are, stored without compression: replay bodies are gzip already, and deflating up to EXPORT_MAX_BODY_BYTES of
 * bodies would hold the process's one event loop for seconds.
 */
export function toZip(files: Record<string, string | Uint8Array>): Buffer {
  return Buffer.from(
    zipSync(Object.fromEntries(Object.entries(files).map(([name, content]) => [name, typeof content === 'string' ? strToU8(content) : ([content, { level: 0 }] as const)]))),
  );
}

export const jsonLines = (rows: Row[]) => rows.map((row) => JSON.stringify(row)).join('\n');
