import { payloadTooLarge, validationError } from '@tlm/core';
import { SourceMapConsumer, type RawIndexMap, type RawSourceMap } from 'source-map';

/** Largest source map stored (docs/decisions.md): big single-page bundles stay below it, and Postgres holds it easily. */
export const MAX_SOURCE_MAP_BYTES = 10 * 1024 * 1024;

/**
 * Checks that uploaded content is a version 3 source map (a regular or an index map) that the `source-map` package
 * can read, within the size limit; returns the text to store. 413 PAYLOAD_TOO_LARGE above the limit, 400
 * VALIDATION_ERROR with the reason otherwise.
 */
export async function checkSourceMap(content: string | object): Promise<string> {
  const text = typeof content === 'string' ? content : JSON.stringify(content);
  const size = Buffer.byteLength(text, 'utf8');
  if (size > MAX_SOURCE_MAP_BYTES) {
    throw payloadTooLarge(`the source map has ${size} bytes; at most ${MAX_SOURCE_MAP_BYTES} bytes (10 MiB) are stored`);
  }
  let map: unknown;
  try {
    map = JSON.parse(text);
  } catch {
    throw validationError('content is not a source map: it is not JSON');
  }
  const problem = sourceMapProblem(map);
  if (problem) throw validationError(`content is not a source map: ${problem}`);
  try {
    const consumer = await new SourceMapConsumer(map as RawSourceMap | RawIndexMap);
    try {
      // Mappings are decoded on first use: walking every one (every section of an index map) makes a broken
      // `mappings` string, or a segment naming a source or a name the map does not list, fail here, not at ingest.
      consumer.eachMapping(() => undefined);
    } finally {
      consumer.destroy();
    }
  } catch (error) {
    throw validationError(`content is not a source map: ${(error as Error).message}`);
  }
  return text;
}

function sourceMapProblem(map: unknown): string | undefined {
  if (typeof map !== 'object' || map === null || Array.isArray(map)) return 'it is not a JSON object';
  const fields = map as Record<string, unknown>;
  if (fields['version'] !== 3) return 'version must be 3';
  if (Array.isArray(fields['sections'])) {
    const sections = fields['sections'] as unknown[];
    for (const [index, section] of sections.entries()) {
      const inner = (section as { map?: unknown } | null)?.map;
      const problem = inner === undefined ? 'has no map' : sourceMapProblem(inner);
      if (problem) return `section ${index} ${problem}`;
    }
    return undefined;
  }
  if (typeof fields['mappings'] !== 'string') return 'mappings must be a string';
  if (!Array.isArray(fields['sources']) || !fields['sources'].every((source) => typeof source === 'string' || source === null)) {
    return 'sources must be an array of strings';
  }
  const contents = fields['sourcesContent'];
  if (contents !== undefined && contents !== null && (!Array.isArray(contents) || !contents.every((content) => typeof content === 'string' || content === null))) {
    return 'sourcesContent must be an array of strings';
  }
  return undefined;
}
