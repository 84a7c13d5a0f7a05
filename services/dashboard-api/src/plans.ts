import { announceKeyChange } from '@tlm/auth';
import type { Bus } from '@tlm/bus';
import { isUuid, limitsJson, notFound, type PlanName } from '@tlm/core';
import { findOrganization, updateOrganization, type MetadataStore } from '@tlm/metadata-store';

/**
 * Puts an organization on a plan: what the operator's admin route and the billing webhook both do. Gateways cache
 * the plan (its rate and retention) with each key, so they are told when it changes.
 */
export async function changePlan(stores: { metadata: MetadataStore; bus: Bus }, orgId: string, plan: PlanName) {
  const organization = isUuid(orgId) ? await findOrganization(stores.metadata, orgId) : undefined;
  if (!organization) throw notFound('organization not found');
  const updated = await updateOrganization(stores.metadata, orgId, { plan });
  if (plan !== organization.plan) await announceKeyChange(stores.bus, { orgIds: [orgId] });
  return { id: updated.id, name: updated.name, plan: updated.plan, region: updated.region, limits: limitsJson(updated.plan) };
}
