import { Type } from '@sinclair/typebox';
import { StringEnum } from '@tlm/core';
import { REGIONS } from './keys';

export const regionConfig = {
  REGION: StringEnum(REGIONS, { default: 'us', description: 'Region this deployment serves; keys of other regions are forwarded or refused.' }),
  REGION_URLS: Type.String({
    default: '',
    description: 'Base URLs of the other regions, e.g. "eu=https://eu.example.com,ap=https://ap.example.com".',
  }),
};

export const jwtConfig = {
  JWT_SECRET: Type.String({ minLength: 32, secret: true, description: 'HS256 secret for dashboard tokens (at least 32 characters); the same on every service.' }),
};
