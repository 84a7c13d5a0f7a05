import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Incident, IncidentPatch, NewIncident, NewIncidentUpdate, NewStatusPage, StatusPage, StatusPagePatch } from '@tlm/api-schemas';
import { api } from '../../api/client';
import { orgPath } from '../../api/hooks';

const statusKeys = {
  pages: (org: string) => ['orgs', org, 'status-pages'] as const,
  page: (org: string, slug: string) => ['orgs', org, 'status-pages', slug] as const,
  incidents: (org: string, slug: string) => ['orgs', org, 'status-pages', slug, 'incidents'] as const,
};

const pagesPath = (org: string) => `${orgPath(org)}/status-pages`;
const pagePath = (org: string, slug: string) => `${pagesPath(org)}/${encodeURIComponent(slug)}`;

/** Where the public page lives: rendered by the server, on this origin. */
export const publicPageUrl = (slug: string) => `${window.location.origin}/status/${encodeURIComponent(slug)}`;

export function useStatusPages(org: string) {
  return useQuery({
    queryKey: statusKeys.pages(org),
    queryFn: ({ signal }) => api.get<{ status_pages: StatusPage[] }>(pagesPath(org), { signal }).then((answer) => answer.status_pages),
    enabled: Boolean(org),
  });
}

export function useStatusPage(org: string, slug: string) {
  return useQuery({
    queryKey: statusKeys.page(org, slug),
    queryFn: ({ signal }) => api.get<StatusPage>(pagePath(org, slug), { signal }),
    enabled: Boolean(org && slug),
  });
}

/** Open incidents and those resolved in the last 90 days, newest first (the public incident history). */
export function useIncidents(org: string, slug: string) {
  return useQuery({
    queryKey: statusKeys.incidents(org, slug),
    queryFn: ({ signal }) =>
      api
        .get<{ incidents: Incident[] }>(`/v1/status/${encodeURIComponent(slug)}/incidents`, { signal, query: { days: 90, per_page: 100 } })
        .then((answer) => answer.incidents),
    enabled: Boolean(slug),
  });
}

export function useCreateStatusPage(org: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (page: NewStatusPage) => api.post<StatusPage>(pagesPath(org), page),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: statusKeys.pages(org) }),
  });
}

/** Changing the page, opening incidents, posting updates and deleting; each refreshes what it changed. */
export function useStatusPageMutations(org: string, slug: string) {
  const queryClient = useQueryClient();
  const refreshPage = () => queryClient.invalidateQueries({ queryKey: statusKeys.pages(org) });
  const refreshIncidents = () => queryClient.invalidateQueries({ queryKey: statusKeys.incidents(org, slug) });
  return {
    update: useMutation({ mutationFn: (changes: StatusPagePatch) => api.patch<StatusPage>(pagePath(org, slug), changes), onSuccess: refreshPage }),
    remove: useMutation({ mutationFn: () => api.delete<unknown>(pagePath(org, slug)), onSuccess: refreshPage }),
    openIncident: useMutation({ mutationFn: (incident: NewIncident) => api.post<Incident>(`${pagePath(org, slug)}/incidents`, incident), onSuccess: refreshIncidents }),
    editIncident: useMutation({
      mutationFn: ({ id, changes }: { id: string; changes: IncidentPatch }) => api.patch<Incident>(`${pagePath(org, slug)}/incidents/${encodeURIComponent(id)}`, changes),
      onSuccess: refreshIncidents,
    }),
    postUpdate: useMutation({
      mutationFn: ({ id, update }: { id: string; update: NewIncidentUpdate }) =>
        api.post<Incident>(`${pagePath(org, slug)}/incidents/${encodeURIComponent(id)}/updates`, update),
      onSuccess: refreshIncidents,
    }),
  };
}
