import type { TableDefinition } from '../store';

/** One firing of an alert rule; the GQL source `alert_events`. Written by the alert evaluator. */
export interface AlertEventRow {
  project_id: string;
  triggered_at: number;
  id: string;
  rule_id: string;
  rule_name: string;
  value: number;
  threshold: number;
  severity: string;
}

export const alertEventsTable: TableDefinition<AlertEventRow> = {
  name: 'alert_events',
  mode: 'append',
  timeColumn: 'triggered_at',
  columns: [
    { name: 'project_id', type: 'string' },
    { name: 'triggered_at', type: 'timestamp' },
    { name: 'id', type: 'string' },
    { name: 'rule_id', type: 'string' },
    { name: 'rule_name', type: 'string' },
    { name: 'value', type: 'float64' },
    { name: 'threshold', type: 'float64' },
    { name: 'severity', type: 'string' },
  ],
  ddl: {
    duckdb: [
      `CREATE TABLE IF NOT EXISTS alert_events (
  project_id VARCHAR NOT NULL,
  triggered_at TIMESTAMP NOT NULL,
  id VARCHAR NOT NULL,
  rule_id VARCHAR NOT NULL,
  rule_name VARCHAR NOT NULL,
  value DOUBLE NOT NULL,
  threshold DOUBLE NOT NULL,
  severity VARCHAR NOT NULL
)`,
    ],
    clickhouse: [
      `CREATE TABLE IF NOT EXISTS alert_events
(
    project_id UUID,
    triggered_at DateTime64(3, 'UTC'),
    id UUID,
    rule_id UUID,
    rule_name String,
    value Float64,
    threshold Float64,
    severity LowCardinality(String)
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(triggered_at)
ORDER BY (project_id, triggered_at, id)
TTL toDateTime(triggered_at) + toIntervalDay(400)`,
    ],
  },
};
