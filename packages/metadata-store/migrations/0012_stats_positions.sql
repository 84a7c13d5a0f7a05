-- The schema registry and usage counters follow the log and event rows the way issue counts follow the error rows
-- (docs/decisions.md "Issue counts follow the rows"). The ingest writer stores here, per topic and partition, the
-- offset it has counted through, in the transaction that adds the counts: rows and redeliveries above it are counted
-- next, those at or below it never again.
create table stats_positions (
  topic text not null,
  partition integer not null,
  counted_through bigint not null,
  updated_at timestamptz not null default now(),
  primary key (topic, partition)
);
