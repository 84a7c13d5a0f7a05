import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useSearchParams } from 'react-router';
import { api } from '../../api/client';
import type { User } from '../../api/types';

/** Where to go after log-in: the `next` parameter when it is a path of this site, else the home page. */
export function safeNext(next: string | null): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  return next;
}

export interface Credentials {
  email: string;
  password: string;
}

/**
 * Log-in, sign-up and account restore: the server sets the session cookie; nothing is stored here. Afterwards every
 * cached answer (of a former user, or the 401 of `me`) is dropped and the person goes where they were headed.
 */
function useAuthMutation<Body>(path: string) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  return useMutation({
    mutationFn: (body: Body) => api.post<{ user: User }>(path, body, { expectUnauthorized: true }),
    onSuccess: () => {
      queryClient.clear();
      navigate(safeNext(params.get('next')), { replace: true });
    },
  });
}

export const useLogin = () => useAuthMutation<Credentials>('/api/auth/login');
export const useSignup = () => useAuthMutation<Credentials & { name?: string }>('/api/auth/signup');
export const useRestoreAccount = () => useAuthMutation<Credentials>('/api/auth/account/restore');
