import { useQuery } from '@tanstack/react-query';
import { api } from './client';
import type { ApiKey, Me, Organization, Project } from './types';

/** Query keys in one place, so a mutation invalidates exactly what it changed. */
export const keys = {
  me: ['me'] as const,
  projects: (org: string) => ['orgs', org, 'projects'] as const,
  deletedProjects: (org: string) => ['orgs', org, 'projects', 'deleted'] as const,
  project: (org: string, project: string) => ['orgs', org, 'projects', project] as const,
  apiKeys: (org: string, project: string, deleted = false) => ['orgs', org, 'projects', project, 'keys', { deleted }] as const,
  usage: (org: string) => ['orgs', org, 'usage'] as const,
  schema: (org: string, project: string) => ['orgs', org, 'projects', project, 'schema'] as const,
};

export const orgPath = (org: string) => `/api/orgs/${encodeURIComponent(org)}`;
export const projectPath = (org: string, project: string) => `${orgPath(org)}/projects/${encodeURIComponent(project)}`;

/** The signed-in user with their organizations; answers 401 (and so sends people to log-in) without a session. */
export function useMe() {
  return useQuery({ queryKey: keys.me, queryFn: ({ signal }) => api.get<Me>('/api/auth/me', { signal }), staleTime: 60_000 });
}

export function useOrganization(org: string): Organization | undefined {
  return useMe().data?.organizations.find((organization) => organization.id === org);
}

export function useProjects(org: string) {
  return useQuery({
    queryKey: keys.projects(org),
    queryFn: ({ signal }) => api.get<{ projects: Project[] }>(`${orgPath(org)}/projects`, { signal }).then((answer) => answer.projects),
    enabled: Boolean(org),
  });
}

export function useProject(org: string, project: string) {
  return useQuery({
    queryKey: keys.project(org, project),
    queryFn: ({ signal }) => api.get<Project>(projectPath(org, project), { signal }),
    enabled: Boolean(org && project),
  });
}

/** A project's API keys: active and revoked, or with `deleted` the recently deleted ones (keys page, onboarding). */
export function useApiKeys(org: string, project: string, deleted = false) {
  return useQuery({
    queryKey: keys.apiKeys(org, project, deleted),
    queryFn: ({ signal }) =>
      api.get<{ keys: ApiKey[] }>(`${projectPath(org, project)}/keys`, { signal, query: deleted ? { deleted: true } : undefined }).then((answer) => answer.keys),
    enabled: Boolean(org && project),
  });
}

/**
 * Runs `next` once a mutation succeeds, even when the component that asked is gone by then: a change that takes away
 * what the page shows (leaving an organization, deleting a project) replaces that page before the mutation settles,
 * and mutate's own callbacks are dropped with it. Not when the person has moved to another page meanwhile: what
 * follows (a move to the start page) belongs to the page they left. A refusal shows through the mutation's `error`.
 */
export function afterSuccess<T>(settled: Promise<T>, next: (value: T) => void): void {
  const asked = window.location.href;
  settled.then(
    (value) => {
      if (window.location.href === asked) next(value);
    },
    () => undefined,
  );
}
