import type { SqlClient } from '../store';

/** A stored source map, without its content. */
export interface ArtifactRow {
  id: string;
  project_id: string;
  release: string;
  /** '' when the upload named no dist. */
  dist: string;
  name: string;
  size: number;
  created_at: Date;
}

export interface NewArtifact {
  id: string;
  projectId: string;
  release: string;
  dist: string;
  name: string;
  content: string;
}

const COLUMNS = 'id, project_id, release, dist, name, size, created_at';

/**
 * Stores a source map, replacing the one of the same name in the same release and dist. A replacement takes the
 * new id, so caches keyed by id never serve the old content. `replaced` says whether a map was there before.
 */
export async function upsertArtifact(sql: SqlClient, artifact: NewArtifact): Promise<ArtifactRow & { replaced: boolean }> {
  const rows = await sql.query<ArtifactRow & { replaced: boolean }>(
    `insert into artifacts as a (id, project_id, release, dist, name, size, content)
     values ($1, $2, $3, $4, $5, $6, $7)
     on conflict (project_id, release, dist, name) do update set
       id = excluded.id, size = excluded.size, content = excluded.content, created_at = now()
     returning ${COLUMNS}, (xmax <> 0) as replaced`,
    [artifact.id, artifact.projectId, artifact.release, artifact.dist, artifact.name, Buffer.byteLength(artifact.content, 'utf8'), artifact.content],
  );
  return rows[0]!;
}

/** A project's artifacts, newest first: of one release when given, else of every release. */
export async function listArtifacts(sql: SqlClient, projectId: string, options: { release?: string; limit: number }): Promise<ArtifactRow[]> {
  return options.release === undefined
    ? sql.query<ArtifactRow>(`select ${COLUMNS} from artifacts where project_id = $1 order by created_at desc, name limit $2`, [
        projectId,
        options.limit,
      ])
    : sql.query<ArtifactRow>(
        `select ${COLUMNS} from artifacts where project_id = $1 and release = $2 order by created_at desc, name limit $3`,
        [projectId, options.release, options.limit],
      );
}

/** The content of one artifact of a project, or undefined when it is gone (replaced or purged). */
export async function artifactContent(sql: SqlClient, projectId: string, id: string): Promise<string | undefined> {
  const rows = await sql.query<{ content: string }>('select content from artifacts where project_id = $1 and id = $2', [projectId, id]);
  return rows[0]?.content;
}
