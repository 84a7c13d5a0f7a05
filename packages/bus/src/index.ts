export * from './bus';
export * from './embedded';
export * from './kafka';
export * from './topics';
