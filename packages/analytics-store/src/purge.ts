import type { AnalyticsStore } from './store';
import { ANALYTICS_TABLES } from './tables';

/** Removes every row of a project from every table (permanent project or account removal). */
export async function deleteProjectRows(store: AnalyticsStore, projectId: string): Promise<void> {
  for (const table of ANALYTICS_TABLES) {
    await store.execute(
      store.dialect === 'clickhouse'
        ? `ALTER TABLE ${table.name} DELETE WHERE project_id = {project_id:UUID}`
        : `DELETE FROM ${table.name} WHERE project_id = $project_id`,
      { project_id: projectId },
    );
  }
}
