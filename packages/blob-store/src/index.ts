export * from './store';
export * from './keys';
export * from './filesystem';
export * from './s3';
export * from './purge';
