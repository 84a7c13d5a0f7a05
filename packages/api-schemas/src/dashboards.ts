import { Type, type Static } from '@sinclair/typebox';

/**
 * Saved dashboards of a project: named pages of panels, each panel a GQL query drawn as the explorer draws its answer
 * (a number, a bar or line chart, or rows). Members keep them under /api/orgs/:org/projects/:project/dashboards.
 */

const Time = Type.String({ description: 'ISO 8601 UTC with milliseconds' });

/** The panels a dashboard holds at most: each runs its query whenever the dashboard is opened. */
export const MAX_DASHBOARD_PANELS = 24;
/** The dashboards a project holds at most. */
export const MAX_PROJECT_DASHBOARDS = 100;

/** Text that names something: not empty and not only blanks. */
const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });

const panelFields = {
  title: Name,
  /** GQL that parses and plans; a dashboard's time range replaces its `last:`/`since:`/`until:` when opened. */
  query: Type.String({ minLength: 1, maxLength: 4000 }),
  /** Columns of the dashboard's two-column grid the panel spans. */
  width: Type.Union([Type.Literal(1), Type.Literal(2)]),
};

/** A panel as sent: a new one has no id (the server gives it one); a kept one carries its id. */
export const PanelInput = Type.Object(
  { id: Type.Optional(Type.String({ format: 'uuid' })), ...panelFields, width: Type.Optional(panelFields.width) },
  { additionalProperties: false },
);
export type PanelInput = Static<typeof PanelInput>;

const dashboardFields = {
  name: Name,
  description: Type.String({ maxLength: 2000 }),
  /** The whole list, in order: what is sent replaces what was stored. */
  panels: Type.Array(PanelInput, { maxItems: MAX_DASHBOARD_PANELS }),
};

export const NewDashboard = Type.Object(
  { name: dashboardFields.name, description: Type.Optional(dashboardFields.description), panels: Type.Optional(dashboardFields.panels) },
  { additionalProperties: false },
);
export type NewDashboard = Static<typeof NewDashboard>;

export const DashboardPatch = Type.Partial(
  Type.Object({
    ...dashboardFields,
    /**
     * The `updated_at` of the dashboard as the change was made from: when it changed since, the change is refused
     * (409), so two people editing at once cannot drop each other's panels unseen.
     */
    updated_at: Type.String({ minLength: 1, maxLength: 40 }),
  }),
  { additionalProperties: false },
);
export type DashboardPatch = Static<typeof DashboardPatch>;

export const Panel = Type.Object({ id: Type.String(), ...panelFields });
export type Panel = Static<typeof Panel>;

export const Dashboard = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  panels: Type.Array(Panel),
  created_at: Time,
  updated_at: Time,
});
export type Dashboard = Static<typeof Dashboard>;
