import type { Logger } from '@tlm/core';
import { artifactContent, listArtifacts, type ArtifactRow, type SqlClient } from '@tlm/metadata-store';
import { CONTEXT_LINES, contextLines, MAX_CONTEXT_LINE_CHARS, type ErrorRecord, type StackFrame } from '@tlm/signals';
import { SourceMapConsumer, type RawIndexMap, type RawSourceMap } from 'source-map';
import { ArtifactIndex } from './names';

/** A frame as symbolication takes it: a position in a minified file. */
export interface MinifiedFrame {
  function?: string | null;
  filename?: string | null;
  abs_path?: string | null;
  module?: string | null;
  lineno?: number | null;
  /** 1-based, as V8 and Sentry's SDKs report it. */
  colno?: number | null;
  in_app?: boolean;
  context_line?: string | null;
  pre_context?: readonly string[];
  post_context?: readonly string[];
}

export interface SymbolicatorOptions {
  /** How long a release's list of artifacts is reused before it is read again (uploads here drop it at once). */
  releaseIndexTtlMs?: number;
  /** Source map text whose parsed form stays cached, least recently used first out. */
  maxCachedBytes?: number;
  logger?: Logger;
}

interface ParsedMap {
  consumer: SourceMapConsumer;
  bytes: number;
  /** Lines of each source's `sourcesContent`, split once. */
  sourceLines: Map<string, string[] | null>;
  /** Lookups in progress; an evicted map is destroyed when the last one ends. */
  pins: number;
  evicted: boolean;
}

interface MappedPosition {
  source: string;
  line: number;
  column: number;
  name: string | null;
  contextLine: string | null;
  /** The source's lines around it, indented as they are relative to it (its own indentation is trimmed). */
  preContext: readonly string[] | undefined;
  postContext: readonly string[] | undefined;
}

const DEFAULT_RELEASE_INDEX_TTL_MS = 30_000;
const DEFAULT_MAX_CACHED_BYTES = 256 * 1024 * 1024;
/** Artifacts of one release considered; code-split apps have hundreds of chunks, never this many. */
const MAX_RELEASE_ARTIFACTS = 10_000;
/** Original sources under these paths are dependencies, not the application's code. */
const NOT_IN_APP_SOURCE = /(?:^|[\\/])node_modules[\\/]|^webpack\/(?:bootstrap|runtime)/;

/** `webpack://my-app/./src/cart.js` is shown as `./src/cart.js`, as Sentry shows it. */
function displayName(source: string): string {
  return source.replace(/^webpack:\/\/[^/]*\//, '');
}

/**
 * Maps minified frames to original ones through a project's stored source maps. Parsed maps are cached by artifact
 * id (a replaced map has a new id) and a release's artifact list for a short while, so symbolicating a stream of
 * errors of one release reads the metadata store about twice a minute.
 */
export class Symbolicator {
  private readonly releases = new Map<string, { expires: number; index: Promise<ArtifactIndex<ArtifactRow>> }>();
  private readonly maps = new Map<string, Promise<ParsedMap | null>>();
  private cachedBytes = 0;
  private readonly releaseIndexTtlMs: number;
  private readonly maxCachedBytes: number;

  constructor(
    private readonly store: SqlClient,
    private readonly options: SymbolicatorOptions = {},
  ) {
    this.releaseIndexTtlMs = options.releaseIndexTtlMs ?? DEFAULT_RELEASE_INDEX_TTL_MS;
    this.maxCachedBytes = options.maxCachedBytes ?? DEFAULT_MAX_CACHED_BYTES;
  }

  /** Drops the cached artifact list of a release, after an upload to it. */
  forgetRelease(projectId: string, release: string): void {
    for (const key of this.releases.keys()) if (key.startsWith(`${projectId}\u0000${release}\u0000`)) this.releases.delete(key);
  }

  /**
   * The frames mapped through the release's source maps, innermost last. A mapped frame carries the original
   * position and, in `minified`, the one it came with; a frame no map covers is returned as it came.
   */
  async symbolicate(projectId: string, release: string, dist: string | null, frames: readonly MinifiedFrame[]): Promise<StackFrame[]> {
    const index = await this.releaseIndex(projectId, release, dist);
    const artifacts = frames.map((frame) => {
      const file = frame.abs_path || frame.filename;
      return index.size > 0 && file && frame.lineno && frame.colno ? index.find(file) : undefined;
    });
    const ids = [...new Set(artifacts.flatMap((artifact) => (artifact ? [artifact.id] : [])))];
    const maps = new Map<string, ParsedMap>();
    for (const [id, map] of await Promise.all(ids.map(async (id) => [id, await this.parsedMap(projectId, id)] as const))) {
      if (map) maps.set(id, map);
    }
    // Pinned from here until every lookup is done, so an eviction by a concurrent call cannot free them mid-use.
    for (const map of maps.values()) map.pins += 1;
    try {
      const positions = frames.map((frame, at) => {
        const map = artifacts[at] && maps.get(artifacts[at].id);
        return map ? originalPosition(map, frame.lineno!, frame.colno!) : null;
      });
      return frames.map((frame, at) => symbolicatedFrame(frame, positions[at] ?? null, at > 0 ? (positions[at - 1] ?? null) : null));
    } finally {
      for (const map of maps.values()) this.unpin(map);
    }
  }

  /**
   * The issues processor's enricher: errors whose release has source maps get symbolicated frames. An error no map
   * covers is returned unchanged; a failing metadata store throws, so the batch is delivered again.
   */
  readonly enrich = async (records: ErrorRecord[]): Promise<ErrorRecord[]> => {
    // Most releases have no source maps: each release of the batch is asked once, and its cached, empty artifact list
    // settles it for all of its errors without a promise per error.
    const releases = new Map<string, { projectId: string; release: string; hasMaps: boolean }>();
    // Per record, its release's entry when it has frames a map could cover.
    const releaseOf = records.map((record) => {
      if (!record.release || !record.frames.some((frame) => frame.lineno && frame.colno)) return undefined;
      const key = `${record.projectId}\u0000${record.release}`;
      let entry = releases.get(key);
      if (!entry) releases.set(key, (entry = { projectId: record.projectId, release: record.release, hasMaps: false }));
      return entry;
    });
    await Promise.all(
      [...releases.values()].map(async (entry) => {
        entry.hasMaps = (await this.releaseIndex(entry.projectId, entry.release, null)).size > 0;
      }),
    );
    // The usual case, no release of the batch has maps: the batch itself, without a promise per error.
    if (![...releases.values()].some((entry) => entry.hasMaps)) return records;
    return Promise.all(
      records.map(async (record, index) => {
        if (!record.release || !releaseOf[index]?.hasMaps) return record;
        const frames = await this.symbolicate(record.projectId, record.release, null, record.frames);
        return frames.some((frame) => frame.minified) ? { ...record, frames } : record;
      }),
    );
  };

  /**
   * A release's artifacts by name. With a dist, only that dist's; without one (errors carry none), every dist's,
   * the ones uploaded without a dist first.
   */
  private releaseIndex(projectId: string, release: string, dist: string | null): Promise<ArtifactIndex<ArtifactRow>> {
    const key = `${projectId}\u0000${release}\u0000${dist ?? '\u0000any'}`;
    const now = Date.now();
    const cached = this.releases.get(key);
    if (cached && cached.expires > now) return cached.index;
    const index = listArtifacts(this.store, projectId, { release, limit: MAX_RELEASE_ARTIFACTS }).then((rows) => {
      const usable = dist === null ? rows.sort((a, b) => Number(a.dist !== '') - Number(b.dist !== '')) : rows.filter((row) => row.dist === dist);
      return new ArtifactIndex(usable);
    });
    this.releases.set(key, { expires: now + this.releaseIndexTtlMs, index });
    index.catch(() => this.releases.delete(key));
    return index;
  }

  private parsedMap(projectId: string, id: string): Promise<ParsedMap | null> {
    const cached = this.maps.get(id);
    if (cached) {
      // Most recently used last.
      this.maps.delete(id);
      this.maps.set(id, cached);
      return cached;
    }
    const loading = this.loadMap(projectId, id);
    this.maps.set(id, loading);
    loading.then(
      (map) => {
        if (!map) this.maps.delete(id);
        else {
          this.cachedBytes += map.bytes;
          this.evict(id);
        }
      },
      () => this.maps.delete(id),
    );
    return loading;
  }

  private async loadMap(projectId: string, id: string): Promise<ParsedMap | null> {
    const content = await artifactContent(this.store, projectId, id);
    if (content === undefined) return null;
    try {
      const consumer = await new SourceMapConsumer(JSON.parse(content) as RawSourceMap | RawIndexMap);
      return { consumer, bytes: content.length, sourceLines: new Map(), pins: 0, evicted: false };
    } catch (error) {
      // Stored maps were checked at upload; one that still fails is left unused rather than failing every error.
      this.options.logger?.warn({ err: error, artifact_id: id }, 'a stored source map could not be read');
      return null;
    }
  }

  /** Drops least recently used maps until the cache fits, never the one just added. */
  private evict(keep: string): void {
    for (const [id, entry] of this.maps) {
      if (this.cachedBytes <= this.maxCachedBytes) return;
      if (id === keep) continue;
      this.maps.delete(id);
      void entry.then((map) => {
        if (!map) return;
        this.cachedBytes -= map.bytes;
        map.evicted = true;
        if (map.pins === 0) map.consumer.destroy();
      });
    }
  }

  private unpin(map: ParsedMap): void {
    map.pins -= 1;
    if (map.evicted && map.pins === 0) map.consumer.destroy();
  }
}

/**
 * The original position of a minified one, or null. A map that fails on it (stored before uploads were checked this
 * closely, or broken in a way no check foresaw) leaves the frame minified: it must not fail the error, nor the
 * batch of other projects' errors it travels with.
 */
function originalPosition(map: ParsedMap, lineno: number, colno: number): MappedPosition | null {
  try {
    return lookUp(map, lineno, colno);
  } catch {
    return null;
  }
}

function lookUp(map: ParsedMap, lineno: number, colno: number): MappedPosition | null {
  const found = map.consumer.originalPositionFor({ line: lineno, column: colno - 1 });
  if (found.source === null || found.line === null || found.column === null) return null;
  let lines = map.sourceLines.get(found.source);
  if (lines === undefined) {
    const content: unknown = map.consumer.sourceContentFor(found.source, true);
    lines = typeof content === 'string' ? content.split(/\r?\n/) : null;
    map.sourceLines.set(found.source, lines);
  }
  const contextLine = lines?.[found.line - 1];
  // The lines around keep their indentation relative to the line itself, whose own is trimmed.
  const indent = contextLine === undefined ? 0 : contextLine.length - contextLine.trimStart().length;
  const dedent = (line: string) => line.slice(Math.min(indent, line.length - line.trimStart().length)).trimEnd();
  const around = (from: number, to: number) => (lines && contextLine !== undefined ? lines.slice(Math.max(0, from), to).map(dedent) : undefined);
  return {
    source: found.source,
    line: found.line,
    column: found.column,
    name: found.name,
    contextLine: contextLine === undefined ? null : contextLine.trim().slice(0, MAX_CONTEXT_LINE_CHARS),
    preContext: contextLines(around(found.line - 1 - CONTEXT_LINES, found.line - 1), 'before'),
    postContext: contextLines(around(found.line, found.line + CONTEXT_LINES), 'after'),
  };
}

/**
 * A frame's original position. Its function name is the name the map gives the token at the calling frame's
 * position (the call site names the function called, which is how Sentry recovers names); without a mapped caller
 * the minified name stays.
 */
function symbolicatedFrame(frame: MinifiedFrame, position: MappedPosition | null, caller: MappedPosition | null): StackFrame {
  const given: StackFrame = {
    function: frame.function ?? null,
    filename: frame.filename ?? null,
    module: frame.module ?? null,
    lineno: frame.lineno ?? null,
    colno: frame.colno ?? null,
    in_app: frame.in_app ?? true,
    abs_path: frame.abs_path ?? null,
    context_line: frame.context_line ?? null,
    pre_context: frame.pre_context,
    post_context: frame.post_context,
  };
  if (!position) return given;
  return {
    ...given,
    function: caller?.name ?? given.function,
    filename: displayName(position.source),
    abs_path: position.source,
    lineno: position.line,
    colno: position.column + 1,
    context_line: position.contextLine,
    pre_context: position.preContext,
    post_context: position.postContext,
    in_app: given.in_app && !NOT_IN_APP_SOURCE.test(position.source),
    minified: { filename: given.abs_path || given.filename, function: given.function, lineno: given.lineno, colno: given.colno },
  };
}
