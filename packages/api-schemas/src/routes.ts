import { Type, type TSchema } from '@sinclair/typebox';
import { AlertChannelTypes, AlertDelivery, AlertPreview, AlertPreviewBody, AlertRule, AlertRulePatch, ChannelTest, Mute, NewAlertRule, NewSlo, Slo, SloHistory, SloPatch } from './alerts';
import { EmptyBody, GdprEraseBody, IssueResolveBody } from './dashboard';
import { Dashboard, DashboardPatch, MAX_PROJECT_DASHBOARDS, NewDashboard } from './dashboards';
import { ExportJob, NewExport } from './exports';
import { ApiKey, CreatedKey, CredentialsBody, Me, NewKey, NewProject, Organization, PlanEvent, Project, ProjectPatch, Session, SignupBody, Usage, User } from './index';
import {
  AcceptInvitationBody,
  Invitation,
  InvitationAccepted,
  InvitationPreview,
  InvitationSent,
  InvitationTokenBody,
  Member,
  MemberPatch,
  NewInvitation,
  NewMember,
  OrganizationPatch,
  PasswordChange,
  PasswordResetConfirm,
  PasswordResetRequest,
} from './members';
import type { RouteAuth, RouteDoc } from './openapi';
import {
  ArtifactsQuery,
  AttachmentsQuery,
  AutocompleteQuery,
  DeletedQuery,
  DeliveriesQuery,
  DownloadQuery,
  ForceQuery,
  GqlTextQuery,
  ImmediateQuery,
  IncidentHistoryQuery,
  ProfileChunkPath,
  ProfileChunksQuery,
  ReplayChunkPath,
  ReplaySessionPath,
  ReplaySessionsQuery,
} from './queries';
import { BatchQueryBody, ChatBody, NlBody, SingleQueryBody } from './query';
import { ArtifactUpload, SymbolicateRequest } from './sourcemaps';
import { IncidentPatch, NewIncident, NewIncidentUpdate, NewStatusPage, StatusPage, StatusPagePatch, Incident } from './statusPages';

/**
 * The route registry of every `/v1` and `/api` route but the ingest doors (those are described beside their wire
 * formats, in @tlm/signals): each names the schemas its handler validates with. The OpenAPI document is generated
 * from these; a test fails when the server registers a route that is missing here, or the other way round.
 */

const key = (...scopes: string[]): RouteAuth => ({ kind: 'key', scopes });
const member: RouteAuth = { kind: 'session' };
const owner: RouteAuth = { kind: 'session', role: 'owner' };
const open: RouteAuth = { kind: 'public' };

const json = (description: string, schema?: TSchema, status = 200) => ({ status, description, ...(schema ? { schema } : {}) });
const listOf = (name: string, item: TSchema) => Type.Object({ [name]: Type.Array(item) });
const noContent = (description: string) => ({ status: 204, description });
const organizationWithLimits = () => Type.Composite([Organization, Type.Object({ limits: Type.Record(Type.String(), Type.Integer()) })]);
const GqlAnswer = Type.Object({ query: Type.Unknown(), data: Type.Unknown() }, { description: 'The parsed query and its rows (docs/gql.md)' });
const Suggestions = Type.Object({
  suggestions: Type.Array(Type.Object({ text: Type.String(), description: Type.String(), kind: Type.String() })),
  valid: Type.Boolean(),
  parsed: Type.Unknown(),
});
const NlAnswer = Type.Object({
  gql: Type.String({ description: 'The query; empty when the prompt had no meaning for the project.' }),
  valid: Type.Boolean(),
  parsed: Type.Unknown(),
  reason: Type.Optional(Type.String({ description: 'Why there is no valid query (docs/ai.md).' })),
  suggestions: Type.Optional(Type.Array(Type.String(), { description: 'Questions the project can answer, when the prompt had no meaning for it.' })),
});

/** Routes a project's data is read and changed through both with a key (`/v1/…`) and as a member (`/api/orgs/:org/projects/:project/…`). */
interface ProjectRoute extends Omit<RouteDoc, 'auth' | 'path'> {
  path: string;
  /** Whether the key needs a writer's scope. */
  writes: boolean;
  /** Dashboard only: organization owners. */
  ownerOnly?: boolean;
}

function bothDoors(routes: readonly ProjectRoute[], readScopes: readonly string[], writeScopes: readonly string[]): RouteDoc[] {
  return routes.flatMap(({ writes, ownerOnly, path, ...route }) => [
    { ...route, path: `/v1${path}`, auth: key(...(writes ? writeScopes : readScopes)) },
    { ...route, path: `/api/orgs/:org/projects/:project${path}`, auth: ownerOnly ? owner : member },
  ]);
}

const ALERT_ROUTES = (): readonly ProjectRoute[] => [
  { method: 'get', path: '/alerts', writes: false, tag: 'Alerts', summary: 'List alert rules', response: json('The rules', listOf('alerts', AlertRule)) },
  { method: 'post', path: '/alerts', writes: true, tag: 'Alerts', summary: 'Create an alert rule', body: NewAlertRule, response: json('The rule', AlertRule, 201), errors: [422] },
  {
    method: 'post',
    path: '/alerts/preview',
    writes: false,
    tag: 'Alerts',
    summary: "A metric's values over the last day, in buckets of the window",
    body: AlertPreviewBody,
    response: json('The points', AlertPreview),
    errors: [422],
  },
  {
    method: 'get',
    path: '/alerts/channel-types',
    writes: false,
    tag: 'Alerts',
    summary: 'The channel types and whether this server can send to each',
    response: json('The channel types', AlertChannelTypes),
  },
  { method: 'get', path: '/alerts/:id', writes: false, tag: 'Alerts', summary: 'Read an alert rule', response: json('The rule', AlertRule) },
  { method: 'put', path: '/alerts/:id', writes: true, tag: 'Alerts', summary: 'Change an alert rule', body: AlertRulePatch, response: json('The rule', AlertRule), errors: [422] },
  { method: 'delete', path: '/alerts/:id', writes: true, tag: 'Alerts', summary: 'Delete an alert rule', response: noContent('Deleted') },
  { method: 'post', path: '/alerts/:id/mute', writes: true, tag: 'Alerts', summary: 'Mute an alert rule for some minutes (0 unmutes)', body: Mute, response: json('The rule', AlertRule) },
  { method: 'post', path: '/alerts/:id/test', writes: true, tag: 'Alerts', summary: 'Send a test notification to one channel', body: ChannelTest, response: json('The delivery', AlertDelivery) },
  {
    method: 'get',
    path: '/alerts/:id/deliveries',
    writes: false,
    tag: 'Alerts',
    summary: "A rule's notifications and their attempts",
    query: DeliveriesQuery,
    response: json('The deliveries', listOf('deliveries', AlertDelivery)),
  },
  { method: 'get', path: '/slos', writes: false, tag: 'SLOs', summary: 'List SLOs', response: json('The SLOs', listOf('slos', Slo)) },
  { method: 'post', path: '/slos', writes: true, tag: 'SLOs', summary: 'Create an SLO', body: NewSlo, response: json('The SLO', Slo, 201), errors: [422] },
  { method: 'get', path: '/slos/:id', writes: false, tag: 'SLOs', summary: 'Read an SLO with its current percentage', response: json('The SLO', Slo) },
  { method: 'get', path: '/slos/:id/history', writes: false, tag: 'SLOs', summary: "An SLO's good and total counts and burn rate over its window", response: json('The points', SloHistory) },
  { method: 'put', path: '/slos/:id', writes: true, tag: 'SLOs', summary: 'Change an SLO', body: SloPatch, response: json('The SLO', Slo), errors: [422] },
  { method: 'delete', path: '/slos/:id', writes: true, tag: 'SLOs', summary: 'Delete an SLO', response: noContent('Deleted') },
];

/** Members only: dashboards are the web app's pages, with no `/v1` door (docs/decisions.md "Dashboards"). */
const DASHBOARD_ROUTES = (): readonly RouteDoc[] => [
  {
    method: 'get',
    path: '/api/orgs/:org/projects/:project/dashboards',
    auth: member,
    tag: 'Dashboards',
    summary: "List the project's dashboards by name",
    response: json('The dashboards', listOf('dashboards', Dashboard)),
  },
  {
    method: 'post',
    path: '/api/orgs/:org/projects/:project/dashboards',
    auth: member,
    tag: 'Dashboards',
    summary: 'Create a dashboard',
    description: `Each panel's query must parse and plan; a project holds at most ${MAX_PROJECT_DASHBOARDS} dashboards.`,
    body: NewDashboard,
    response: json('The dashboard', Dashboard, 201),
    errors: [409, 422],
  },
  { method: 'get', path: '/api/orgs/:org/projects/:project/dashboards/:id', auth: member, tag: 'Dashboards', summary: 'Read a dashboard', response: json('The dashboard', Dashboard) },
  {
    method: 'put',
    path: '/api/orgs/:org/projects/:project/dashboards/:id',
    auth: member,
    tag: 'Dashboards',
    summary: 'Change a dashboard',
    description: 'The fields given replace the stored ones; `panels` replaces the whole list, a panel keeping its id by sending it.',
    body: DashboardPatch,
    response: json('The dashboard', Dashboard),
    errors: [422],
  },
  { method: 'delete', path: '/api/orgs/:org/projects/:project/dashboards/:id', auth: member, tag: 'Dashboards', summary: 'Delete a dashboard', response: noContent('Deleted') },
];

const EXPORT_ROUTES = (): readonly ProjectRoute[] => [
  {
    method: 'post',
    path: '/exports',
    writes: true,
    tag: 'Exports',
    summary: 'Start an export (CSV, JSON or GDPR ZIP) as a background job',
    description: 'On the dashboard, a GDPR ZIP is for organization owners.',
    body: NewExport,
    response: json('Queued', Type.Object({ id: Type.String(), status: Type.Literal('queued') }), 202),
    errors: [422],
  },
  { method: 'get', path: '/exports', writes: false, tag: 'Exports', summary: 'List export jobs with their download links', response: json('The jobs', listOf('exports', ExportJob)) },
];

const CHUNK_READ_ROUTES = (): readonly ProjectRoute[] => [
  {
    method: 'get',
    path: '/replay/sessions',
    writes: false,
    tag: 'Session replay',
    summary: 'List replay sessions, newest first',
    query: ReplaySessionsQuery,
    response: json('The sessions'),
  },
  {
    method: 'get',
    path: '/replay/sessions/:id',
    writes: false,
    tag: 'Session replay',
    summary: 'A replay session and its chunks',
    params: ReplaySessionPath,
    response: json('The session'),
  },
  {
    method: 'get',
    path: '/replay/sessions/:id/chunks/:seq',
    writes: false,
    params: ReplayChunkPath,
    tag: 'Session replay',
    summary: 'A stored replay chunk, gzipped rrweb events as sent',
    response: { status: 200, description: 'The chunk', contentType: 'application/gzip' },
  },
  {
    method: 'get',
    path: '/profiles/chunks',
    writes: false,
    tag: 'Profiles',
    summary: 'List profile chunk metadata',
    query: ProfileChunksQuery,
    response: json('The chunks'),
  },
  {
    method: 'get',
    path: '/profiles/chunks/:chunk_id',
    writes: false,
    params: ProfileChunkPath,
    tag: 'Profiles',
    summary: 'A stored profile chunk body',
    response: { status: 200, description: 'The chunk as sent', contentType: 'application/json' },
  },
  { method: 'get', path: '/attachments', writes: false, tag: 'Attachments', summary: "List attachments of the project's errors", query: AttachmentsQuery, response: json('The attachments') },
  {
    method: 'get',
    path: '/attachments/:id',
    writes: false,
    tag: 'Attachments',
    summary: 'Download an attachment',
    response: { status: 200, description: 'The file as sent', contentType: 'application/octet-stream' },
  },
];

const READING_ROUTES = (): readonly RouteDoc[] => [
  { method: 'post', path: '/v1/gql/query', auth: key('data:read'), tag: 'Reading', summary: 'Run one GQL query', body: SingleQueryBody, response: json('The answer', GqlAnswer), errors: [422] },
  {
    method: 'post',
    path: '/v1/gql',
    auth: key('data:read'),
    tag: 'Reading',
    summary: 'Run up to 10 GQL queries; each is answered on its own',
    body: BatchQueryBody,
    response: json('One entry per query, in order: {status: ok, query, data} or {status: error, error}', Type.Array(Type.Unknown())),
  },
  {
    method: 'get',
    path: '/v1/gql/autocomplete',
    auth: key('data:read'),
    tag: 'Reading',
    summary: 'Suggestions for a partial GQL query',
    query: AutocompleteQuery,
    response: json('The suggestions', Suggestions),
  },
  { method: 'get', path: '/v1/schema', auth: key('data:read'), tag: 'Reading', summary: "The project's discovered properties and event names", response: json('The schema document') },
  { method: 'get', path: '/v1/info', auth: key('data:read'), tag: 'Reading', summary: 'The project, its organization, usage and key count', response: json('Project info') },
  {
    method: 'get',
    path: '/api/orgs/:org/projects/:project/gql',
    auth: member,
    tag: 'Reading',
    summary: 'Run one GQL query',
    query: GqlTextQuery,
    response: json('The answer', GqlAnswer),
    errors: [422],
  },
  {
    method: 'get',
    path: '/api/orgs/:org/projects/:project/gql/tail',
    auth: member,
    tag: 'Reading',
    summary: 'Follow the rows of a GQL search live',
    query: GqlTextQuery,
    response: { status: 200, description: 'Server-sent events, one per new row', contentType: 'text/event-stream' },
    errors: [422],
  },
  {
    method: 'get',
    path: '/api/orgs/:org/projects/:project/gql/autocomplete',
    auth: member,
    tag: 'Reading',
    summary: 'Suggestions for a partial GQL query',
    query: AutocompleteQuery,
    response: json('The suggestions', Suggestions),
  },
  { method: 'get', path: '/api/orgs/:org/projects/:project/schema', auth: member, tag: 'Reading', summary: "The project's discovered properties and event names", response: json('The schema document') },
  {
    method: 'put',
    path: '/v1/artifacts',
    auth: key('ingest:write'),
    tag: 'Source maps',
    summary: 'Upload a source map for a release',
    description: 'JSON as below, or multipart/form-data with fields release, dist and name and one file part.',
    body: ArtifactUpload,
    response: json('The stored artifact'),
  },
  {
    method: 'get',
    path: '/v1/artifacts',
    auth: key('data:read'),
    tag: 'Source maps',
    summary: "List a release's source maps",
    query: ArtifactsQuery,
    response: json('The artifacts'),
  },
  {
    method: 'post',
    path: '/v1/symbolicate',
    auth: key('data:read'),
    tag: 'Source maps',
    summary: 'Map minified stack frames through the stored source maps',
    body: SymbolicateRequest,
    response: json('The frames, mapped where a map covers them'),
  },
];

const AI_ROUTES = (): readonly RouteDoc[] => [
  { method: 'post', path: '/v1/gql/nl', auth: key('data:read'), tag: 'AI', summary: 'Natural language to GQL', body: NlBody, response: json('The query', NlAnswer) },
  {
    method: 'post',
    path: '/api/orgs/:org/projects/:project/gql/nl',
    auth: member,
    tag: 'AI',
    summary: 'Natural language to GQL; uses one AI query of the plan',
    body: NlBody,
    response: json('The query', NlAnswer),
    errors: [402],
  },
  {
    method: 'post',
    path: '/v1/ai/chat',
    auth: key('ai:chat'),
    tag: 'AI',
    summary: "Ask about the project's data",
    body: ChatBody,
    response: json('The reply', Type.Object({ reply: Type.String(), session_id: Type.String(), queries: Type.Array(Type.String()) })),
    errors: [402, 404],
  },
  {
    method: 'post',
    path: '/v1/ai/chat/stream',
    auth: key('ai:chat'),
    tag: 'AI',
    summary: "Ask about the project's data, the reply streamed",
    body: ChatBody,
    response: { status: 200, description: 'Server-sent events: delta {text}, query {gql, data}, done {session_id}', contentType: 'text/event-stream' },
    errors: [402, 404],
  },
  {
    method: 'post',
    path: '/api/orgs/:org/projects/:project/ai/chat',
    auth: member,
    tag: 'AI',
    summary: "Ask about the project's data (the web app's chat); answers are always run",
    body: ChatBody,
    response: json('The reply', Type.Object({ reply: Type.String(), session_id: Type.String(), queries: Type.Array(Type.String()) })),
    errors: [402, 404],
  },
  {
    method: 'post',
    path: '/api/orgs/:org/projects/:project/ai/chat/stream',
    auth: member,
    tag: 'AI',
    summary: "Ask about the project's data, the reply streamed (the web app's chat)",
    body: ChatBody,
    response: { status: 200, description: 'Server-sent events: delta {text}, query {gql, data}, done {session_id}', contentType: 'text/event-stream' },
    errors: [402, 404],
  },
];

const STATUS_PAGE_ROUTES = (): readonly RouteDoc[] => [
  { method: 'get', path: '/v1/status/:slug', auth: open, tag: 'Status pages', summary: "A public status page's status, uptime and open incidents", response: json('The snapshot') },
  {
    method: 'get',
    path: '/v1/status/:slug/incidents',
    auth: open,
    tag: 'Status pages',
    summary: "A public status page's incident history, paged",
    query: IncidentHistoryQuery,
    response: json('The incidents', Type.Object({ slug: Type.String(), days: Type.Integer(), page: Type.Integer(), per_page: Type.Integer(), total: Type.Integer(), incidents: Type.Array(Incident) })),
  },
  {
    method: 'get',
    path: '/v1/status-pages/:slug/resolve',
    auth: open,
    tag: 'Status pages',
    summary: 'The region and title of a status page',
    response: json('Where it lives', Type.Object({ slug: Type.String(), region: Type.String(), title: Type.String() })),
  },
  { method: 'post', path: '/api/orgs/:org/status-pages', auth: member, tag: 'Status pages', summary: 'Create a status page', body: NewStatusPage, response: json('The page', StatusPage, 201), errors: [409] },
  { method: 'get', path: '/api/orgs/:org/status-pages', auth: member, tag: 'Status pages', summary: "The organization's status pages", response: json('The pages', listOf('status_pages', StatusPage)) },
  { method: 'get', path: '/api/orgs/:org/status-pages/:slug', auth: member, tag: 'Status pages', summary: 'Read a status page', response: json('The page', StatusPage) },
  { method: 'patch', path: '/api/orgs/:org/status-pages/:slug', auth: member, tag: 'Status pages', summary: 'Change a status page', body: StatusPagePatch, response: json('The page', StatusPage) },
  { method: 'delete', path: '/api/orgs/:org/status-pages/:slug', auth: member, tag: 'Status pages', summary: 'Delete a status page', response: noContent('Deleted') },
  { method: 'post', path: '/api/orgs/:org/status-pages/:slug/incidents', auth: member, tag: 'Status pages', summary: 'Open an incident', body: NewIncident, response: json('The incident', Incident, 201) },
  { method: 'patch', path: '/api/orgs/:org/status-pages/:slug/incidents/:id', auth: member, tag: 'Status pages', summary: 'Change an incident', body: IncidentPatch, response: json('The incident', Incident) },
  {
    method: 'post',
    path: '/api/orgs/:org/status-pages/:slug/incidents/:id/updates',
    auth: member,
    tag: 'Status pages',
    summary: 'Post an update to an incident',
    body: NewIncidentUpdate,
    response: json('The incident', Incident, 201),
  },
];

const IDENTITY_ROUTES = (): readonly RouteDoc[] => [
  {
    method: 'post',
    path: '/api/auth/signup',
    auth: open,
    tag: 'Identity',
    summary: 'Create an account and its personal organization',
    body: SignupBody,
    response: json('The session', Type.Object({ token: Type.Optional(Type.String()), user: User, organization: Organization }), 201),
    errors: [409, 421, 429],
  },
  { method: 'post', path: '/api/auth/login', auth: open, tag: 'Identity', summary: 'Log in', body: CredentialsBody, response: json('The session', Session), errors: [401, 429] },
  { method: 'post', path: '/api/auth/logout', auth: open, tag: 'Identity', summary: "End the web app's session", response: noContent('Logged out'), errors: [429] },
  { method: 'get', path: '/api/auth/me', auth: member, tag: 'Identity', summary: 'The signed-in user with their organizations and roles', response: json('The user', Me) },
  {
    method: 'delete',
    path: '/api/auth/account',
    auth: member,
    tag: 'Identity',
    summary: 'Delete the account: restorable for 30 days, or at once with immediate=true',
    query: ImmediateQuery,
    response: json('Deleted'),
  },
  {
    method: 'post',
    path: '/api/auth/account/restore',
    auth: open,
    tag: 'Identity',
    summary: 'Restore a deleted account within 30 days',
    body: CredentialsBody,
    response: json('The session', Type.Composite([Session, Type.Object({ restored: Type.Boolean() })])),
    errors: [401, 429],
  },
  {
    method: 'post',
    path: '/api/auth/password-reset',
    auth: open,
    tag: 'Identity',
    summary: 'Mail a password reset link',
    body: PasswordResetRequest,
    response: json('Requested (whether or not the address has an account)', undefined, 202),
    errors: [429, 503],
  },
  { method: 'post', path: '/api/auth/password-reset/confirm', auth: open, tag: 'Identity', summary: 'Set a new password with a reset link', body: PasswordResetConfirm, response: json('The session', Session), errors: [403, 429] },
  { method: 'post', path: '/api/auth/password', auth: member, tag: 'Identity', summary: 'Change the password', body: PasswordChange, response: json('The session', Session), errors: [403] },
];

const ORGANIZATION_ROUTES = (): readonly RouteDoc[] => [
  { method: 'get', path: '/api/orgs', auth: member, tag: 'Organizations', summary: "The signed-in user's organizations", response: json('The organizations', listOf('organizations', Organization)) },
  { method: 'get', path: '/api/orgs/:org', auth: member, tag: 'Organizations', summary: 'An organization with its plan limits', response: json('The organization', organizationWithLimits()) },
  { method: 'patch', path: '/api/orgs/:org', auth: owner, tag: 'Organizations', summary: 'Rename an organization', body: OrganizationPatch, response: json('The organization', organizationWithLimits()) },
  { method: 'get', path: '/api/orgs/:org/usage', auth: member, tag: 'Organizations', summary: "This month's usage per signal and project", response: json('The usage', Usage) },
  { method: 'get', path: '/api/orgs/:org/members', auth: member, tag: 'Members', summary: 'List members', response: json('The members', listOf('members', Member)) },
  { method: 'post', path: '/api/orgs/:org/members', auth: owner, tag: 'Members', summary: 'Add a person who has an account', body: NewMember, response: json('The member', undefined, 201), errors: [409] },
  { method: 'patch', path: '/api/orgs/:org/members/:user', auth: owner, tag: 'Members', summary: "Change a member's role", body: MemberPatch, response: json('The member', Member), errors: [409] },
  { method: 'delete', path: '/api/orgs/:org/members/:user', auth: member, tag: 'Members', summary: 'Remove a member (owners), or leave', response: noContent('Removed'), errors: [403, 409] },
  { method: 'get', path: '/api/orgs/:org/invitations', auth: owner, tag: 'Members', summary: 'Pending invitations', response: json('The invitations', listOf('invitations', Invitation)) },
  { method: 'post', path: '/api/orgs/:org/invitations', auth: owner, tag: 'Members', summary: 'Invite someone by e-mail', body: NewInvitation, response: json('The invitation', InvitationSent, 201), errors: [409] },
  { method: 'delete', path: '/api/orgs/:org/invitations/:invitation', auth: owner, tag: 'Members', summary: 'Withdraw an invitation', response: noContent('Withdrawn') },
  { method: 'post', path: '/api/invitations/preview', auth: open, tag: 'Members', summary: 'What an invitation link is for', body: InvitationTokenBody, response: json('The invitation', InvitationPreview), errors: [404, 429] },
  {
    method: 'post',
    path: '/api/invitations/accept',
    auth: open,
    tag: 'Members',
    summary: 'Accept an invitation, signed in or creating an account',
    body: AcceptInvitationBody,
    response: json('The membership', InvitationAccepted),
    errors: [401, 404, 409, 429],
  },
  { method: 'post', path: '/api/orgs/:org/projects', auth: member, tag: 'Projects', summary: 'Create a project', body: NewProject, response: json('The project', Project, 201), errors: [402] },
  {
    method: 'get',
    path: '/api/orgs/:org/projects',
    auth: member,
    tag: 'Projects',
    summary: 'List projects; deleted=true lists those deleted within 30 days',
    query: DeletedQuery,
    response: json('The projects', listOf('projects', Project)),
  },
  { method: 'get', path: '/api/orgs/:org/projects/:project', auth: member, tag: 'Projects', summary: 'Read a project', response: json('The project', Project) },
  { method: 'patch', path: '/api/orgs/:org/projects/:project', auth: member, tag: 'Projects', summary: 'Change a project', body: ProjectPatch, response: json('The project', Project) },
  { method: 'delete', path: '/api/orgs/:org/projects/:project', auth: member, tag: 'Projects', summary: 'Delete a project (restorable for 30 days); revokes its keys', response: json('The project', Project) },
  {
    method: 'post',
    path: '/api/orgs/:org/projects/:project/restore',
    auth: member,
    tag: 'Projects',
    summary: 'Restore a deleted project; force=true past the plan limit',
    query: ForceQuery,
    response: json('The project', Project),
    errors: [402],
  },
  { method: 'post', path: '/api/orgs/:org/projects/:project/keys', auth: member, tag: 'API keys', summary: 'Create an API key; its value is shown only here', body: NewKey, response: json('The key', CreatedKey, 201), errors: [402] },
  {
    method: 'get',
    path: '/api/orgs/:org/projects/:project/keys',
    auth: member,
    tag: 'API keys',
    summary: 'List active and revoked keys; deleted=true lists recently deleted ones',
    query: DeletedQuery,
    response: json('The keys', listOf('keys', ApiKey)),
  },
  { method: 'post', path: '/api/orgs/:org/projects/:project/keys/:key/revoke', auth: member, tag: 'API keys', summary: 'Revoke a key', response: json('The key', ApiKey) },
  { method: 'post', path: '/api/orgs/:org/projects/:project/keys/:key/unrevoke', auth: member, tag: 'API keys', summary: 'Unrevoke a key', response: json('The key', ApiKey) },
  { method: 'delete', path: '/api/orgs/:org/projects/:project/keys/:key', auth: member, tag: 'API keys', summary: 'Delete a key (restorable for 30 days)', response: json('The key', ApiKey) },
  {
    method: 'post',
    path: '/api/orgs/:org/projects/:project/keys/:key/restore',
    auth: member,
    tag: 'API keys',
    summary: 'Restore a deleted key; force=true past the plan limit',
    query: ForceQuery,
    response: json('The key', ApiKey),
    errors: [402],
  },
  ...(['resolve', 'ignore', 'unresolve'] as const).map(
    (action): RouteDoc => ({
      method: 'post',
      path: `/api/orgs/:org/projects/:project/issues/:issue/${action}`,
      auth: member,
      tag: 'Issues',
      summary: `${action[0]!.toUpperCase()}${action.slice(1)} an issue`,
      body: action === 'resolve' ? IssueResolveBody : EmptyBody,
      bodyOptional: true,
      response: json('The issue'),
    }),
  ),
  { method: 'get', path: '/api/orgs/:org/gdpr/export', auth: owner, tag: 'GDPR', summary: "Everything the organization holds about its people, keys and projects", response: json('The export') },
  {
    method: 'post',
    path: '/api/orgs/:org/projects/:project/gdpr/erase',
    auth: owner,
    tag: 'GDPR',
    summary: "Erase one person's events, logs, errors and replays",
    body: GdprEraseBody,
    response: json('What was removed', Type.Object({ distinct_id: Type.String(), removed: Type.Record(Type.String(), Type.Integer()) })),
  },
  {
    method: 'post',
    path: '/api/billing/webhook',
    auth: { kind: 'signature' },
    tag: 'Operations',
    summary: "A billing provider's plan change",
    description: 'Answers 404 unless BILLING_WEBHOOK_SECRET is set.',
    body: PlanEvent,
    response: json('The organization on its new plan'),
    errors: [404, 429],
  },
];

const DOWNLOAD_ROUTES = (): readonly RouteDoc[] => [
  {
    method: 'get',
    path: '/v1/exports/:id/download',
    auth: open,
    tag: 'Exports',
    summary: "An export's file, by the signed link of the job listing",
    query: DownloadQuery,
    response: { status: 200, description: 'The file (CSV, NDJSON or ZIP)', contentType: 'application/octet-stream' },
    errors: [401],
  },
  {
    method: 'get',
    path: '/v1/openapi.json',
    auth: open,
    tag: 'Operations',
    summary: 'This description of the API (OpenAPI 3.1)',
    response: { status: 200, description: 'The OpenAPI document', contentType: 'application/json' },
  },
];

/**
 * Built when asked for: the schemas of ./index are read only after every module of the package has loaded, since
 * ./index re-exports this one.
 */
export function apiRoutes(): RouteDoc[] {
  return [
    ...IDENTITY_ROUTES(),
    ...ORGANIZATION_ROUTES(),
    ...READING_ROUTES(),
    ...bothDoors(CHUNK_READ_ROUTES(), ['data:read'], ['data:read']),
    ...AI_ROUTES(),
    ...bothDoors(ALERT_ROUTES(), ['data:read', 'alerts:read'], ['data:write', 'alerts:write']),
    ...DASHBOARD_ROUTES(),
    ...bothDoors(EXPORT_ROUTES(), ['exports:read'], ['exports:write']),
    ...DOWNLOAD_ROUTES(),
    ...STATUS_PAGE_ROUTES(),
  ];
}
