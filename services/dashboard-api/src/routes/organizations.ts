import { MemberPatch, NewMember, OrganizationPatch } from '@tlm/api-schemas';
import { requestMembership, requireMember, requireUser, sessionUser } from '@tlm/auth';
import { conflict, isUuid, jsonBody, limitsJson, notFound, forbidden, parseBody } from '@tlm/core';
import {
  countOwners,
  deleteMembership,
  findOrganization,
  findUserByEmail,
  insertMembership,
  listMembers,
  listOrganizationsOfUser,
  lockOrganization,
  updateMembershipRole,
  updateOrganization,
  type SqlClient,
} from '@tlm/metadata-store';
import { Router } from 'express';
import type { DashboardDeps } from '../deps';
import { memberJson, organizationJson } from '../wire';

/** 409 when a change would leave the organization without an active owner; `details.reason` names the rule. */
const lastOwner = () => conflict('an organization needs at least one owner: make someone else an owner first', { reason: 'last_owner' });

/** Inside a transaction holding the organization's lock: refuses (and so rolls back) a change that left no owner. */
async function requireAnOwner(tx: SqlClient, orgId: string): Promise<void> {
  if ((await countOwners(tx, orgId)) === 0) throw lastOwner();
}

export function organizationRoutes(deps: DashboardDeps): Router {
  const router = Router();
  const body = jsonBody();
  const user = requireUser(deps.tokens, deps.metadata, deps.limiter);
  const member = [user, requireMember(deps.metadata, deps.limiter)];
  const owner = [user, requireMember(deps.metadata, deps.limiter, { ownerOnly: true })];

  router.get('/api/orgs', user, async (_req, res) => {
    const organizations = await listOrganizationsOfUser(deps.metadata, sessionUser(res).id);
    res.json({ organizations: organizations.map((organization) => organizationJson(organization, organization.role)) });
  });

  router.get('/api/orgs/:org', ...member, (_req, res) => {
    const { organization, role } = requestMembership(res);
    res.json({ ...organizationJson(organization, role), limits: limitsJson(organization.plan) });
  });

  router.patch('/api/orgs/:org', ...owner, body, async (req, res) => {
    const changes = parseBody(OrganizationPatch, req.body);
    const { organization, role } = requestMembership(res);
    const updated = await updateOrganization(deps.metadata, organization.id, changes);
    res.json({ ...organizationJson(updated, role), limits: limitsJson(updated.plan) });
  });

  router.get('/api/orgs/:org/members', ...member, async (_req, res) => {
    const members = await listMembers(deps.metadata, requestMembership(res).organization.id);
    res.json({ members: members.map(memberJson) });
  });

  router.post('/api/orgs/:org/members', ...owner, body, async (req, res) => {
    const input = parseBody(NewMember, req.body);
    const orgId = requestMembership(res).organization.id;
    const account = await findUserByEmail(deps.metadata, input.email);
    if (!account || account.deleted_at) throw notFound('no account with this email; they need to sign up first');
    const membership = await deps.metadata.transaction(async (tx) => {
      // Takes turns with an owner's account deletion, which deactivates the organization when it leaves no owner.
      await lockOrganization(tx, orgId);
      if ((await findOrganization(tx, orgId))?.deleted_at) throw notFound('organization not found');
      return insertMembership(tx, orgId, account.id, input.role);
    });
    if (!membership) throw conflict('this person is already a member of the organization');
    res.status(201).json({
      user_id: account.id,
      email: account.email,
      name: account.name,
      role: membership.role,
      joined_at: membership.created_at.toISOString(),
    });
  });

  router.patch('/api/orgs/:org/members/:user', ...owner, body, async (req, res) => {
    const { role } = parseBody(MemberPatch, req.body);
    const orgId = requestMembership(res).organization.id;
    const userId = String(req.params['user']);
    const changed = await deps.metadata.transaction(async (tx) => {
      if (!isUuid(userId)) return null;
      // Serialised per organization, as removals are: two owners demoting each other must not both succeed.
      await lockOrganization(tx, orgId);
      const membership = await updateMembershipRole(tx, orgId, userId, role);
      if (membership) await requireAnOwner(tx, orgId);
      return membership;
    });
    const member = changed && (await listMembers(deps.metadata, orgId)).find((candidate) => candidate.user_id === userId);
    if (!member) throw notFound('member not found');
    res.json(memberJson(member));
  });

  router.delete('/api/orgs/:org/members/:user', ...member, async (req, res) => {
    const { organization, role } = requestMembership(res);
    const userId = String(req.params['user']);
    // Owners manage members; anyone may leave.
    if (role !== 'owner' && userId !== sessionUser(res).id) throw forbidden('only an owner of this organization may remove members');
    const removed = await deps.metadata.transaction(async (tx) => {
      if (!isUuid(userId)) return false;
      // Serialises removals per organization: two owners leaving at once must not each count the other as staying.
      await lockOrganization(tx, organization.id);
      const gone = await deleteMembership(tx, organization.id, userId);
      if (gone) await requireAnOwner(tx, organization.id);
      return gone;
    });
    if (!removed) throw notFound('member not found');
    res.status(204).end();
  });

  return router;
}
