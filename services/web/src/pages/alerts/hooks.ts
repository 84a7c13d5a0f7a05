import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { AlertChannelTypes, AlertDelivery, AlertPreview, AlertPreviewBody, AlertRule, AlertRulePatch, NewAlertRule } from '@tlm/api-schemas';
import { api, request } from '../../api/client';
import { useGqlAnswer, gqlString } from '../../api/gql';
import { keys, projectPath } from '../../api/hooks';

/** The query keys of a project's alert rules; a change to a rule refreshes all of them. */
const alertKeys = {
  all: (org: string, project: string) => [...keys.project(org, project), 'alerts'] as const,
  rule: (org: string, project: string, rule: string) => [...keys.project(org, project), 'alerts', rule] as const,
  deliveries: (org: string, project: string, rule: string) => [...keys.project(org, project), 'alerts', rule, 'deliveries'] as const,
  preview: (org: string, project: string, body: AlertPreviewBody) => [...keys.project(org, project), 'alerts', 'preview', body] as const,
};

const alertsPath = (org: string, project: string) => `${projectPath(org, project)}/alerts`;
const rulePath = (org: string, project: string, rule: string) => `${alertsPath(org, project)}/${encodeURIComponent(rule)}`;

/** Rules are evaluated every minute; their state is read again as often, so a firing shows without a reload. */
const STATE_REFRESH_MS = 15_000;

/** The channel types and whether this server can send to each (e-mail needs the operator's SMTP_URL). */
export function useAlertChannelTypes(org: string, project: string) {
  return useQuery({
    queryKey: [...alertKeys.all(org, project), 'channel-types'],
    queryFn: ({ signal }) => api.get<AlertChannelTypes>(`${alertsPath(org, project)}/channel-types`, { signal }).then((answer) => answer.channel_types),
    staleTime: Infinity,
  });
}

export function useAlertRules(org: string, project: string) {
  return useQuery({
    queryKey: alertKeys.all(org, project),
    queryFn: ({ signal }) => api.get<{ alerts: AlertRule[] }>(alertsPath(org, project), { signal }).then((answer) => answer.alerts),
    refetchInterval: STATE_REFRESH_MS,
  });
}

export function useAlertRule(org: string, project: string, rule: string | undefined) {
  return useQuery({
    queryKey: alertKeys.rule(org, project, rule ?? ''),
    queryFn: ({ signal }) => api.get<AlertRule>(rulePath(org, project, rule!), { signal }),
    enabled: Boolean(rule),
    refetchInterval: STATE_REFRESH_MS,
  });
}

/** The rule's deliveries, newest first (the API answers the last 100). */
export function useAlertDeliveries(org: string, project: string, rule: string) {
  return useQuery({
    queryKey: alertKeys.deliveries(org, project, rule),
    queryFn: ({ signal }) => api.get<{ deliveries: AlertDelivery[] }>(`${rulePath(org, project, rule)}/deliveries`, { signal }).then((answer) => answer.deliveries),
    refetchInterval: STATE_REFRESH_MS,
  });
}

/** An alert event as GQL's `alert_events` answers it. */
export interface AlertEvent {
  id: string;
  rule_id: string;
  rule_name: string;
  triggered_at: string;
  value: number;
  threshold: number;
  severity: string;
}

/** The rule's alert events of the last 30 days, newest first (GQL source `alert_events`). */
export function useAlertEvents(org: string, project: string, rule: string) {
  const query = `from:alert_events rule_id:${gqlString(rule)} | last:30d | sort triggered_at desc | limit 100`;
  const answer = useGqlAnswer(org, project, query);
  return { ...answer, events: (answer.data?.answer.data.results ?? []) as unknown as AlertEvent[] };
}

/** The metric over the last day in buckets of the window; null while there is nothing to preview. */
export function useAlertPreview(org: string, project: string, body: AlertPreviewBody | null) {
  return useQuery({
    queryKey: alertKeys.preview(org, project, body ?? { metric: '', window_minutes: 0 }),
    queryFn: ({ signal }) => api.post<AlertPreview>(`${alertsPath(org, project)}/preview`, body, { signal }),
    enabled: body !== null,
    placeholderData: keepPreviousData,
    retry: false,
  });
}

/** Creating, changing, muting, deleting and testing rules; each refreshes the project's rules. */
export function useAlertMutations(org: string, project: string) {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: alertKeys.all(org, project) });
  return {
    create: useMutation({ mutationFn: (rule: NewAlertRule) => api.post<AlertRule>(alertsPath(org, project), rule), onSuccess: refresh }),
    update: useMutation({
      mutationFn: ({ id, changes }: { id: string; changes: AlertRulePatch }) => request<AlertRule>('PUT', rulePath(org, project, id), { body: changes }),
      onSuccess: refresh,
    }),
    mute: useMutation({
      mutationFn: ({ id, minutes }: { id: string; minutes: number }) => api.post<AlertRule>(`${rulePath(org, project, id)}/mute`, { minutes }),
      onSuccess: refresh,
    }),
    remove: useMutation({ mutationFn: (id: string) => api.delete<unknown>(rulePath(org, project, id)), onSuccess: refresh }),
    test: useMutation({
      mutationFn: ({ id, channel }: { id: string; channel: number }) => api.post<AlertDelivery>(`${rulePath(org, project, id)}/test`, { channel }),
      onSuccess: refresh,
    }),
  };
}
