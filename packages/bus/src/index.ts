export * from './bus';
export * from './deadLetter';
export * from './embedded';
export * from './journal';
export * from './kafka';
export * from './topics';
