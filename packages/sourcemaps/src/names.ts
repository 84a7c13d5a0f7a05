/**
 * Which uploaded artifact serves a frame's file, the way Sentry's release artifacts are matched:
 * 1. the artifact named exactly as the frame's file (a full URL, query and fragment dropped);
 * 2. the artifact named `~/` + the file's path, `~` standing for any scheme and host
 *    (`https://cdn.example.com/static/app.min.js` and `app:///static/app.min.js` both look for `~/static/app.min.js`);
 * each also with `.map` appended (`~/static/app.min.js.map`), so a map may be uploaded under its own name;
 * 3. failing those, the one artifact whose base name (without `.map`) is the file's base name, when only one is;
 *    artifacts named by a full URL are left out of this, since they name their host.
 */

export interface NamedArtifact {
  id: string;
  name: string;
}

/** Drops the query and the fragment: `app.js?v=3#x` is `app.js`. */
function withoutQuery(file: string): string {
  return file.replace(/[?#].*$/, '');
}

const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/** The path of a URL or a file path, as `~/` matches it; null for a name with no path (`<anonymous>`). */
function tildePath(file: string): string | null {
  const url = /^[a-z][a-z0-9+.-]*:\/\/[^/]*(\/.*)?$/i.exec(file);
  if (url) return url[1] ? `~${url[1]}` : null;
  if (file.startsWith('/')) return `~${file}`;
  if (file.startsWith('~/')) return file;
  return null;
}

/** The names an artifact serving `file` may have, most specific first. */
export function candidateNames(file: string): string[] {
  const exact = withoutQuery(file);
  const names = [exact, exact.startsWith('./') ? exact.slice(1) : null, tildePath(exact)].filter(
    (name): name is string => Boolean(name),
  );
  return [...new Set(names.flatMap((name) => [name, `${name}.map`]))];
}

function baseName(name: string): string {
  return withoutQuery(name).replace(/\.map$/, '').replace(/^.*[\\/]/, '');
}

/** Looks up the artifact of each frame file in one release's artifacts. */
export class ArtifactIndex<T extends NamedArtifact> {
  private readonly byName = new Map<string, T>();
  private readonly byBaseName = new Map<string, T[]>();

  constructor(artifacts: readonly T[]) {
    for (const artifact of artifacts) {
      // Of two artifacts with one name (two dists), the first given wins; callers order them by preference.
      if (!this.byName.has(artifact.name)) this.byName.set(artifact.name, artifact);
      if (HAS_SCHEME.test(artifact.name)) continue;
      const base = baseName(artifact.name);
      this.byBaseName.set(base, [...(this.byBaseName.get(base) ?? []), artifact]);
    }
  }

  get size(): number {
    return this.byName.size;
  }

  find(file: string): T | undefined {
    for (const name of candidateNames(file)) {
      const artifact = this.byName.get(name);
      if (artifact) return artifact;
    }
    const sameBase = this.byBaseName.get(baseName(file));
    return sameBase && new Set(sameBase.map((artifact) => artifact.name)).size === 1 ? sameBase[0] : undefined;
  }
}
