export * from './common';
export * from './logs';
export * from './traces';
export * from './protobuf';
