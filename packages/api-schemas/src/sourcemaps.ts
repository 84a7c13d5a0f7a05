import { Type, type Static } from '@sinclair/typebox';

/** Source maps and symbolication (docs/api.md "Source maps"): the source-map routes validate with these. */

/** The most frames an error keeps, and so the most one symbolication request maps. */
export const MAX_STACK_FRAMES = 250;

/** Sentry's release name rules, loosely: one line of at most 200 characters. */
const Release = Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\r\\n\\t]+$' });
const Dist = Type.String({ minLength: 1, maxLength: 64, pattern: '^[^\\r\\n\\t]+$' });

/** `PUT /v1/artifacts` as JSON; a multipart upload is read into the same shape (DECISIONS.md). */
export const ArtifactUpload = Type.Object({
  release: Release,
  dist: Type.Optional(Dist),
  /** The file the map serves (`~/static/js/app.min.js`), a full URL, or the map's own name (`….js.map`). */
  name: Type.String({ minLength: 1, maxLength: 1024 }),
  /** The source map: its JSON text, or the JSON object itself. */
  content: Type.Union([Type.String(), Type.Record(Type.String(), Type.Unknown())]),
});
export type ArtifactUpload = Static<typeof ArtifactUpload>;

export const SymbolicateRequest = Type.Object({
  release: Release,
  dist: Type.Optional(Dist),
  frames: Type.Array(
    Type.Object({
      filename: Type.String({ minLength: 1 }),
      abs_path: Type.Optional(Type.String()),
      lineno: Type.Integer({ minimum: 1 }),
      /** 1-based, as V8 and Sentry's SDKs report it. */
      colno: Type.Integer({ minimum: 1 }),
      function: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      in_app: Type.Optional(Type.Boolean()),
    }),
    { maxItems: MAX_STACK_FRAMES },
  ),
});
export type SymbolicateRequest = Static<typeof SymbolicateRequest>;
