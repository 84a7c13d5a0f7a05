import type { Invitation, InvitationSent, Member, NewInvitation, Role } from '@tlm/api-schemas';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { keys, orgPath } from '../../api/hooks';

const memberKeys = {
  members: (org: string) => ['orgs', org, 'members'] as const,
  invitations: (org: string) => ['orgs', org, 'invitations'] as const,
};

export function useMembers(org: string) {
  return useQuery({
    queryKey: memberKeys.members(org),
    queryFn: ({ signal }) => api.get<{ members: Member[] }>(`${orgPath(org)}/members`, { signal }).then((answer) => answer.members),
  });
}

/** Pending invitations: owners only, so the query runs only for them. */
export function useInvitations(org: string, isOwner: boolean) {
  return useQuery({
    queryKey: memberKeys.invitations(org),
    queryFn: ({ signal }) => api.get<{ invitations: Invitation[] }>(`${orgPath(org)}/invitations`, { signal }).then((answer) => answer.invitations),
    enabled: isOwner,
  });
}

/**
 * A change of the members can change the signed-in person's own role or organizations, which `me` carries: the
 * mutation settles once `me` is read again, so a page that follows (the start page after leaving) reads the new one.
 */
function useMembersChanged(org: string) {
  const queryClient = useQueryClient();
  return () => Promise.all([queryClient.invalidateQueries({ queryKey: memberKeys.members(org) }), queryClient.invalidateQueries({ queryKey: keys.me })]);
}

export function useChangeRole(org: string) {
  const changed = useMembersChanged(org);
  return useMutation({
    mutationFn: ({ userId, role }: { userId: string; role: Role }) => api.patch<Member>(`${orgPath(org)}/members/${encodeURIComponent(userId)}`, { role }),
    onSettled: changed,
  });
}

export function useRemoveMember(org: string) {
  const changed = useMembersChanged(org);
  return useMutation({
    mutationFn: (userId: string) => api.delete<unknown>(`${orgPath(org)}/members/${encodeURIComponent(userId)}`),
    onSuccess: changed,
  });
}

export function useInvite(org: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (invitation: NewInvitation) => api.post<InvitationSent>(`${orgPath(org)}/invitations`, invitation),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: memberKeys.invitations(org) }),
  });
}

export function useRevokeInvitation(org: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.delete<unknown>(`${orgPath(org)}/invitations/${encodeURIComponent(id)}`),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: memberKeys.invitations(org) }),
  });
}

/** The organization's GDPR export (owners), saved by the browser as a JSON file. */
export function useGdprExport(org: string) {
  return useMutation({
    mutationFn: async () => {
      const exported = await api.get<unknown>(`${orgPath(org)}/gdpr/export`);
      const url = URL.createObjectURL(new Blob([JSON.stringify(exported, null, 2)], { type: 'application/json' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = `organization-${org}-export.json`;
      link.click();
      URL.revokeObjectURL(url);
      return exported;
    },
  });
}

export interface Erasure {
  distinct_id: string;
  removed: Record<string, number>;
}

/** Erases one data subject (`distinct_id`) from a project: every event, log, error and replay of that person. */
export function useGdprErase(org: string) {
  return useMutation({
    mutationFn: ({ project, distinctId }: { project: string; distinctId: string }) =>
      api.post<Erasure>(`${orgPath(org)}/projects/${encodeURIComponent(project)}/gdpr/erase`, { distinct_id: distinctId }),
  });
}
