import type { Member, Organization, Project, User } from '@tlm/api-schemas';
import { isoTime, restoreDeadline } from '@tlm/core';
import { issueSnapshot } from '@tlm/issues';
import type { IssueStateRow, MemberRow, OrganizationRow, ProjectRow, Role, UserRow } from '@tlm/metadata-store';

/** Stored rows to the JSON the dashboard API answers with, typed by the shared schemas the web app reads them with. */

export const userJson = (user: Pick<UserRow, 'id' | 'email' | 'name'>): User => ({ id: user.id, email: user.email, name: user.name });

export const organizationJson = (organization: OrganizationRow, role?: Role): Organization => ({
  id: organization.id,
  name: organization.name,
  plan: organization.plan,
  region: organization.region,
  created_at: isoTime(organization.created_at),
  ...(role ? { role } : {}),
});

export const memberJson = (member: MemberRow): Member => ({
  user_id: member.user_id,
  email: member.email,
  name: member.name,
  role: member.role,
  joined_at: isoTime(member.created_at),
});

export const projectJson = (project: ProjectRow): Project => ({
  id: project.id,
  org_id: project.org_id,
  name: project.name,
  dsn_id: project.dsn_id,
  allow_browser_logs: project.allow_browser_logs,
  created_at: isoTime(project.created_at),
  ...(project.deleted_at
    ? { deleted_at: isoTime(project.deleted_at), restore_until: isoTime(restoreDeadline(project.deleted_at)) }
    : {}),
});

/** An issue as `from:issues` shows it (its analytics snapshot), with times as ISO 8601 and without the version. */
export const issueJson = (issue: IssueStateRow) => {
  const { updated_at: _version, ...snapshot } = issueSnapshot(issue);
  return { ...snapshot, first_seen: isoTime(issue.first_seen), last_seen: isoTime(issue.last_seen) };
};
