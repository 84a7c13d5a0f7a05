import { Type } from '@sinclair/typebox';
import { jwtConfig } from '@tlm/auth';
import { httpConfig } from '@tlm/core';
import { postgresConfig } from '@tlm/metadata-store';

/** Fleet configuration of the status pages service. */
export const StatusPagesConfig = Type.Object({ ...httpConfig, ...postgresConfig, ...jwtConfig });
