import type { ApiKey } from '@tlm/api-schemas';
import { isoTime, restoreDeadline } from '@tlm/core';
import type { ApiKeyRow } from '@tlm/metadata-store';

/** A key as listed: never its value or hash. */
export function keyJson(key: ApiKeyRow, dsnId: number): ApiKey {
  return {
    id: key.id,
    project_id: key.project_id,
    name: key.name,
    type: key.type,
    scopes: key.scopes,
    prefix: key.prefix,
    region: key.region,
    dsn_id: dsnId,
    status: key.deleted_at ? 'deleted' : key.revoked_at ? 'revoked' : 'active',
    created_at: isoTime(key.created_at),
    last_used_at: isoTime(key.last_used_at),
    revoked_at: isoTime(key.revoked_at),
    ...(key.deleted_at ? { deleted_at: isoTime(key.deleted_at), restore_until: isoTime(restoreDeadline(key.deleted_at)) } : {}),
  };
}
