export * from './apiKeys';
export * from './organizations';
export * from './projects';
export * from './schemaRegistry';
export * from './usage';
export * from './users';
