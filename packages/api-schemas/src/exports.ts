import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * Export jobs (DECISIONS.md "Exports"; docs/api.md "Exports"): the exports service validates with these and the web
 * app takes its types from them.
 */

const Enum = <const T extends readonly string[]>(values: T) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Time = Type.String({ description: 'ISO 8601 UTC with milliseconds' });

export const EXPORT_FORMATS = ['csv', 'json', 'gdpr_zip'] as const;
export type ExportFormatName = (typeof EXPORT_FORMATS)[number];
export const EXPORT_STATUSES = ['queued', 'running', 'done', 'failed'] as const;

/** A GQL query or a source name (the whole source within retention), not both; a GDPR ZIP takes neither. */
export const NewExport = Type.Object(
  {
    format: Enum(EXPORT_FORMATS),
    query: Type.Optional(Type.String({ minLength: 1, maxLength: 16_384 })),
    source: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);
export type NewExport = Static<typeof NewExport>;

export const ExportJob = Type.Object({
  id: Type.String(),
  format: Enum(EXPORT_FORMATS),
  /** What the export holds, as it was asked for: a GQL query or a source's name, each null when not given (an export given neither holds the logs; a GDPR ZIP, every source). */
  query: Nullable(Type.String()),
  source: Nullable(Type.String()),
  status: Enum(EXPORT_STATUSES),
  rows: Nullable(Type.Integer()),
  /** Bytes of the file. */
  size: Nullable(Type.Integer()),
  error: Type.Optional(Type.String()),
  created_at: Time,
  finished_at: Nullable(Time),
  /** A signed link that needs no key, valid for an hour from the listing; only when done. */
  download_url: Type.Optional(Type.String()),
});
export type ExportJob = Static<typeof ExportJob>;
