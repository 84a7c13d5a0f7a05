export { ArtifactIndex, candidateNames } from './names';
export { artifactRoutes, type ArtifactDeps } from './routes';
export { MAX_SOURCE_MAP_BYTES, checkSourceMap } from './sourceMap';
export { Symbolicator, type MinifiedFrame, type SymbolicatorOptions } from './symbolicator';
