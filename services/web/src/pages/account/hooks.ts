import type { PasswordChange, User } from '@tlm/api-schemas';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';

/**
 * Changes the password. Every other session ends; this browser gets a new session cookie in the answer, so it stays
 * logged in. A wrong current password is a 403, not an expired session.
 */
export function useChangePassword() {
  return useMutation({ mutationFn: (change: PasswordChange) => api.post<{ user: User }>('/api/auth/password', change) });
}

export interface AccountDeleted {
  deleted: true;
  immediate: boolean;
  restore_until?: string;
}

/** Deletes the account softly (restorable for 30 days) or, with `immediate`, for good; the session ends with it. */
export function useDeleteAccount() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (immediate: boolean) => api.delete<AccountDeleted>('/api/auth/account', { query: immediate ? { immediate: true } : undefined }),
    onSuccess: () => queryClient.clear(),
  });
}
