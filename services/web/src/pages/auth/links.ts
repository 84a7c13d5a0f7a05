import type { AcceptInvitationBody, InvitationAccepted, InvitationPreview, Me, User } from '@tlm/api-schemas';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useLocation } from 'react-router';
import { api } from '../../api/client';

/**
 * The pages that mailed links open (accept an invitation, reset a password). The link's token is in the fragment
 * (`#token=…`), which browsers never send to servers; these pages are open without a session, so a 401 here is an
 * answer to show, not an expired session.
 */

export function useLinkToken(): string {
  const { hash } = useLocation();
  return new URLSearchParams(hash.replace(/^#/, '')).get('token') ?? '';
}

/** Who is signed in, if anyone: null without a session. */
export function useSignedIn() {
  return useQuery({
    queryKey: ['me', 'optional'],
    queryFn: ({ signal }) =>
      api.get<Me>('/api/auth/me', { signal, expectUnauthorized: true }).catch((error: unknown) => {
        if ((error as { status?: number }).status === 401) return null;
        throw error;
      }),
  });
}

export function useInvitationPreview(token: string) {
  return useQuery({
    queryKey: ['invitation', token],
    queryFn: () => api.post<InvitationPreview>('/api/invitations/preview', { token }, { expectUnauthorized: true }),
    enabled: Boolean(token),
  });
}

export function useAcceptInvitation(token: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: Omit<AcceptInvitationBody, 'token'>) => api.post<InvitationAccepted>('/api/invitations/accept', { token, ...body }, { expectUnauthorized: true }),
    // A new session, or a new organization in the current one: every cached answer is stale.
    onSuccess: () => queryClient.clear(),
  });
}

export function useLogoutHere() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.post<unknown>('/api/auth/logout', undefined, { expectUnauthorized: true }),
    onSettled: () => queryClient.clear(),
  });
}

export function useRequestPasswordReset() {
  return useMutation({ mutationFn: (email: string) => api.post<{ message: string }>('/api/auth/password-reset', { email }, { expectUnauthorized: true }) });
}

export function useConfirmPasswordReset(token: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (password: string) => api.post<{ user: User }>('/api/auth/password-reset/confirm', { token, password }, { expectUnauthorized: true }),
    onSuccess: () => queryClient.clear(),
  });
}

/** What a refused link's `details.reason` means for the person holding it. */
export const LINK_REFUSALS: Record<string, string> = {
  unknown: 'This link is not valid. It may have been replaced by a newer one; use the newest mail.',
  expired: 'This link has expired.',
  used: 'This link has already been used.',
  revoked: 'This invitation was revoked.',
};
