-- Issue counts follow the error rows (docs/decisions.md "Issue counts follow the rows"). The issues processor counts
-- each partition of the errors stream in order and stores here, in the transaction that stores the counts, the offset
-- it has counted through: rows and redeliveries above it are counted next, those at or below it never again.
create table error_positions (
  partition integer primary key,
  counted_through bigint not null,
  updated_at timestamptz not null default now()
);

-- SPEC.md "Issue status": a resolved issue regresses on errors received after it was resolved, not on those counted
-- moments later that were already on their way.
alter table issues add column status_changed_at timestamptz;

-- Event ids are now remembered by the processor and found again in the error rows; one row per event is gone.
drop table processed_errors;
