export * from './common';
export * from './logs';
export * from './traces';
