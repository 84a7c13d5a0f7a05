export * from './config';
export * from './errors';
export * from './http';
export * from './ids';
export * from './lifecycle';
export * from './logger';
export * as metrics from './metrics';
export * from './plans';
export * from './validate';
