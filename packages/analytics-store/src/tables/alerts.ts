import type { TableDefinition } from '../store';

/** Snapshot of an alert rule for GQL (`from:alerts`); the rule itself lives in the metadata store. */
export interface AlertRuleSnapshotRow {
  project_id: string;
  id: string;
  name: string;
  metric: string;
  threshold: number;
  comparator: string;
  window_minutes: number;
  severity: string;
  enabled: boolean;
  muted_until: number | null;
  created_at: number;
  /** A deleted rule stays as a tombstone snapshot so ClickHouse's newest version hides it. */
  deleted: boolean;
  updated_at: number;
}

export const alertsTable: TableDefinition<AlertRuleSnapshotRow> = {
  name: 'alerts',
  mode: 'replace',
  columns: [
    { name: 'project_id', type: 'string' },
    { name: 'id', type: 'string' },
    { name: 'name', type: 'string' },
    { name: 'metric', type: 'string' },
    { name: 'threshold', type: 'float64' },
    { name: 'comparator', type: 'string' },
    { name: 'window_minutes', type: 'uint32' },
    { name: 'severity', type: 'string' },
    { name: 'enabled', type: 'bool' },
    { name: 'muted_until', type: 'nullable_timestamp' },
    { name: 'created_at', type: 'timestamp' },
    { name: 'deleted', type: 'bool' },
    { name: 'updated_at', type: 'timestamp' },
  ],
  ddl: {
    duckdb: [
      `CREATE TABLE IF NOT EXISTS alerts (
  project_id VARCHAR NOT NULL,
  id VARCHAR NOT NULL,
  name VARCHAR NOT NULL,
  metric VARCHAR NOT NULL,
  threshold DOUBLE NOT NULL,
  comparator VARCHAR NOT NULL,
  window_minutes UINTEGER NOT NULL,
  severity VARCHAR NOT NULL,
  enabled BOOLEAN NOT NULL,
  muted_until TIMESTAMP,
  created_at TIMESTAMP NOT NULL,
  deleted BOOLEAN NOT NULL,
  updated_at TIMESTAMP NOT NULL,
  PRIMARY KEY (project_id, id)
)`,
    ],
    clickhouse: [
      `CREATE TABLE IF NOT EXISTS alerts
(
    project_id UUID,
    id UUID,
    name String,
    metric String,
    threshold Float64,
    comparator LowCardinality(String),
    window_minutes UInt32,
    severity LowCardinality(String),
    enabled Bool,
    muted_until Nullable(DateTime64(3, 'UTC')),
    created_at DateTime64(3, 'UTC'),
    deleted Bool,
    updated_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY (project_id, id)`,
    ],
  },
};
