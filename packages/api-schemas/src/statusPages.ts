import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * Status pages, their incidents and incident updates (DECISIONS.md "Status pages, managed"; docs/api.md "Status
 * pages"): the status pages service validates with these and the web app takes its types from them.
 */

const Enum = <const T extends readonly string[]>(values: T) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Time = Type.String({ description: 'ISO 8601 UTC with milliseconds' });

export const INCIDENT_STATUSES = ['investigating', 'identified', 'monitoring', 'resolved'] as const;
export type IncidentStatusName = (typeof INCIDENT_STATUSES)[number];
export const INCIDENT_IMPACTS = ['none', 'minor', 'major', 'critical'] as const;
export type IncidentImpactName = (typeof INCIDENT_IMPACTS)[number];

const Components = Type.Array(Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) }), { maxItems: 50 });
const ComponentNames = Type.Array(Type.String({ maxLength: 100 }), { maxItems: 50 });

export const NewStatusPage = Type.Object(
  {
    slug: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{1,62}$' }),
    title: Type.String({ minLength: 1, maxLength: 200 }),
    project_id: Type.Optional(Type.String({ format: 'uuid' })),
    components: Type.Optional(Components),
  },
  { additionalProperties: false },
);
export type NewStatusPage = Static<typeof NewStatusPage>;

export const StatusPagePatch = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    project_id: Type.Optional(Nullable(Type.String({ format: 'uuid' }))),
    components: Type.Optional(Components),
  },
  { additionalProperties: false },
);
export type StatusPagePatch = Static<typeof StatusPagePatch>;

export const StatusPage = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  title: Type.String(),
  project_id: Nullable(Type.String()),
  components: Type.Array(Type.Object({ name: Type.String() })),
  created_at: Time,
  updated_at: Time,
});
export type StatusPage = Static<typeof StatusPage>;

export const NewIncident = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 300 }),
    status: Enum(INCIDENT_STATUSES),
    impact: Enum(INCIDENT_IMPACTS),
    components: Type.Optional(ComponentNames),
    message: Type.Optional(Type.String({ maxLength: 5_000 })),
  },
  { additionalProperties: false },
);
export type NewIncident = Static<typeof NewIncident>;

export const IncidentPatch = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
    status: Type.Optional(Enum(INCIDENT_STATUSES)),
    impact: Type.Optional(Enum(INCIDENT_IMPACTS)),
    components: Type.Optional(ComponentNames),
    message: Type.Optional(Type.String({ maxLength: 5_000 })),
  },
  { additionalProperties: false },
);
export type IncidentPatch = Static<typeof IncidentPatch>;

/** An update says where the incident stands now: its status becomes the incident's. */
export const NewIncidentUpdate = Type.Object(
  {
    status: Enum(INCIDENT_STATUSES),
    message: Type.String({ minLength: 1, maxLength: 5_000 }),
  },
  { additionalProperties: false },
);
export type NewIncidentUpdate = Static<typeof NewIncidentUpdate>;

export const IncidentUpdate = Type.Object({ status: Enum(INCIDENT_STATUSES), message: Nullable(Type.String()), at: Time });
export type IncidentUpdate = Static<typeof IncidentUpdate>;

export const Incident = Type.Object({
  id: Type.String(),
  title: Type.String(),
  status: Enum(INCIDENT_STATUSES),
  impact: Enum(INCIDENT_IMPACTS),
  components: Type.Array(Type.String()),
  /** Oldest first, as they were posted. */
  updates: Type.Array(IncidentUpdate),
  created_at: Time,
  updated_at: Time,
  resolved_at: Nullable(Time),
});
export type Incident = Static<typeof Incident>;
