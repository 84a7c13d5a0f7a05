export * from './config';
export * from './errors';
export * from './http';
export * from './ids';
export {
  hasContentEncoding,
  inflatingBytes,
  InflatingBytes,
  jsonBudget,
  JsonBudget,
  MAX_INFLATING_BYTES,
  MAX_JSON_CONTAINERS_PER_RECEIVED_BYTE,
  MIN_JSON_CONTAINER_BUDGET,
  readInflated,
  type Inflated,
  type InflateLimits,
} from './inflated';
export * from './lifecycle';
export * from './logger';
export * as metrics from './metrics';
export * from './plans';
export * from './shared';
export * from './validate';
export * from './waiter';
