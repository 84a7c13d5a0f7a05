import { SCOPES, type Scope } from '@tlm/api-schemas';

export { SCOPES, type Scope };

export const DEFAULT_SCOPES: Record<'public' | 'secret', Scope[]> = {
  public: ['ingest:write'],
  secret: ['*'],
};

/** Public keys live in browsers and apps, so they may only write telemetry. */
export const PUBLIC_KEY_SCOPES: readonly Scope[] = ['ingest:write'];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** True when `granted` holds `*` or any of the scopes an endpoint accepts. */
export function grantsAny(granted: readonly string[], accepted: readonly Scope[]): boolean {
  return granted.includes('*') || accepted.some((scope) => granted.includes(scope));
}
