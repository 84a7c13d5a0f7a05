import { Type, type Static } from '@sinclair/typebox';

/** Issue actions and GDPR erasure (docs/api.md "Issues", "GDPR"). */

/** POST …/issues/:issue/resolve: the release the issue is resolved in, if any. */
export const IssueResolveBody = Type.Object(
  { release: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()])) },
  { additionalProperties: false },
);
export type IssueResolveBody = Static<typeof IssueResolveBody>;

/** A body that carries nothing: absent, or `{}`. */
export const EmptyBody = Type.Object({}, { additionalProperties: false });

/** POST /api/orgs/:org/projects/:project/gdpr/erase: the data subject, by their distinct id. */
export const GdprEraseBody = Type.Object({ distinct_id: Type.String({ minLength: 1, maxLength: 400 }) });
export type GdprEraseBody = Static<typeof GdprEraseBody>;
