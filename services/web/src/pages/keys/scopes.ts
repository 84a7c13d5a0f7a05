import type { Scope } from '../../api/types';

/** Every scope a key can hold, with what it allows, in the order the picker shows them. */
export const SCOPES: { scope: Scope; description: string }[] = [
  { scope: '*', description: 'Everything below, now and in the future' },
  { scope: 'ingest:write', description: 'Send logs, events, errors, traces, replays and profiles' },
  { scope: 'data:read', description: 'Query data with GQL, read issues, traces and replays' },
  { scope: 'data:write', description: 'Change data: resolve issues, manage alert rules and SLOs' },
  { scope: 'alerts:read', description: 'Read alert rules, SLOs and their history' },
  { scope: 'alerts:write', description: 'Create, change and delete alert rules and SLOs' },
  { scope: 'exports:read', description: 'List and download exports' },
  { scope: 'exports:write', description: 'Start exports' },
  { scope: 'ai:chat', description: 'Ask the AI assistant about this project' },
];

/** Public keys are shipped to browsers and apps, so they may only send data. */
export const PUBLIC_SCOPES: Scope[] = ['ingest:write'];
