export * from './guards';
export * from './keys';
export * from './passwords';
export * from './resolver';
export * from './scopes';
export * from './tokens';
export * from './rateLimit';
export * from './config';
