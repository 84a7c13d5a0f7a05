import { Type, type Static } from '@sinclair/typebox';

/**
 * Query parameters of the routes that take any, one schema each: the route registry describes a route's parameters
 * with the object its handler checks them with (`parseQuery` of @tlm/core, which reads integers and booleans from
 * their text and takes an empty parameter as absent). The ingest doors' chunk parameters are beside their formats in
 * @tlm/signals. Path parameters that a route checks for form before it looks anything up (the chunk reads) have
 * their schemas here too (`parsePath`); the others are ids that answer 404 when they name nothing.
 */

/** Ids of replay sessions, profiler sessions and profile chunks: what the client chose, safe in a blob key. */
export const CHUNK_ID_PATTERN = '^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$';
/** A chunk id parameter; its title is the rule in words, what a refusal says. */
export const ChunkId = (description: string) =>
  Type.String({ pattern: CHUNK_ID_PATTERN, title: '1 to 128 letters, digits, ".", "_" or "-", not starting with "."', description });
/** A count a chunk carries (`seq`, `event_count`, `sample_count`): stored as a 32-bit integer. */
export const ChunkCount = (description: string) => Type.Integer({ minimum: 0, maximum: 2_147_483_647, description });

/** Rows a list of stored chunks or attachments answers with unless `limit` says otherwise, and at most. */
export const DEFAULT_LISTED_CHUNKS = 100;
const MAX_LISTED_CHUNKS = 1_000;

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
/** A UUID in either letter case (`isUuid` of @tlm/core tests it). */
export const UUID_PATTERN = `^${UUID}$`;
/** Sentry's event id: 32 hex digits, or the same in UUID form (`isEventId` of @tlm/signals tests it). */
export const EVENT_ID_PATTERN = `^([0-9a-fA-F]{32}|${UUID})$`;
const Flag = (description: string) => Type.Optional(Type.Boolean({ description }));
const ChunkLimit = Type.Optional(
  Type.Integer({ minimum: 1, maximum: MAX_LISTED_CHUNKS, default: DEFAULT_LISTED_CHUNKS, description: 'Most rows to answer' }),
);

/** GET …/projects and …/keys: deleted ones (restorable within 30 days) instead of the live ones. */
export const DeletedQuery = Type.Object({ deleted: Flag('true lists the deleted ones, which can be restored for 30 days') });
export type DeletedQuery = Static<typeof DeletedQuery>;

/** Restoring a project or key past the plan's limit. */
export const ForceQuery = Type.Object({ force: Flag('true restores even past the plan limit') });
export type ForceQuery = Static<typeof ForceQuery>;

/** DELETE /api/auth/account: at once instead of after the grace period. */
export const ImmediateQuery = Type.Object({ immediate: Flag('true deletes at once instead of after the grace period') });
export type ImmediateQuery = Static<typeof ImmediateQuery>;

/** GET …/alerts/:id/deliveries. */
export const DeliveriesQuery = Type.Object({
  event_id: Type.Optional(Type.String({ pattern: UUID_PATTERN, title: 'the id of an alert event', description: 'Only the deliveries of this alert event' })),
});
export type DeliveriesQuery = Static<typeof DeliveriesQuery>;

/** GET …/gql and …/gql/tail. */
export const GqlTextQuery = Type.Object({ q: Type.String({ description: 'The GQL query' }) });
export type GqlTextQuery = Static<typeof GqlTextQuery>;

/** GET …/gql/autocomplete. */
export const AutocompleteQuery = Type.Object({
  q: Type.Optional(Type.String({ description: 'The partial query' })),
  cursor: Type.Optional(Type.Integer({ minimum: 0, description: 'Character offset of the cursor; the end of the query unless given' })),
});
export type AutocompleteQuery = Static<typeof AutocompleteQuery>;

/** GET …/replay/sessions. */
export const ReplaySessionsQuery = Type.Object({
  limit: ChunkLimit,
  distinct_id: Type.Optional(Type.String({ description: 'Only the sessions of this person' })),
});
export type ReplaySessionsQuery = Static<typeof ReplaySessionsQuery>;

/** GET …/profiles/chunks. */
export const ProfileChunksQuery = Type.Object({
  limit: ChunkLimit,
  profiler_id: Type.Optional(ChunkId('Only the chunks of this profiler session')),
  release: Type.Optional(Type.String({ description: 'Only the chunks of this release' })),
});
export type ProfileChunksQuery = Static<typeof ProfileChunksQuery>;

/** GET …/replay/sessions/:id. */
export const ReplaySessionPath = Type.Object({ id: ChunkId('Replay session id') });
/** GET …/replay/sessions/:id/chunks/:seq. */
export const ReplayChunkPath = Type.Object({ id: ChunkId('Replay session id'), seq: ChunkCount('Chunk sequence number within the replay session') });
/** GET …/profiles/chunks/:chunk_id. */
export const ProfileChunkPath = Type.Object({ chunk_id: ChunkId('Profile chunk id') });

/** GET …/attachments. */
export const AttachmentsQuery = Type.Object({
  limit: ChunkLimit,
  event_id: Type.Optional(Type.String({ pattern: EVENT_ID_PATTERN, title: '32 hex digits or a UUID', description: 'Only the attachments of this error event' })),
});
export type AttachmentsQuery = Static<typeof AttachmentsQuery>;

/** GET /v1/artifacts. */
export const ArtifactsQuery = Type.Object({ release: Type.Optional(Type.String({ description: 'Only the source maps of this release' })) });
export type ArtifactsQuery = Static<typeof ArtifactsQuery>;

/** GET /v1/exports/:id/download: the token is the link's credential, so a link without one answers 401. */
export const DownloadQuery = Type.Object({ token: Type.Optional(Type.String({ description: 'The signature from download_url' })) });
export type DownloadQuery = Static<typeof DownloadQuery>;

/** GET /v1/status/:slug/incidents: what a parameter left out stands for. */
export const INCIDENT_HISTORY_DEFAULTS = { days: 30, per_page: 20, page: 1 } as const;
export const IncidentHistoryQuery = Type.Object({
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: INCIDENT_HISTORY_DEFAULTS.days, description: 'How many days back' })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: INCIDENT_HISTORY_DEFAULTS.per_page })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: INCIDENT_HISTORY_DEFAULTS.page })),
});
export type IncidentHistoryQuery = Static<typeof IncidentHistoryQuery>;
