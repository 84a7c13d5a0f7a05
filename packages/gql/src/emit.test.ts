import { emit, percentileProbe, type Guard } from './emit';
import { compileQuery } from './plan';

const guard: Guard = { projectId: '0190a0e0-0000-7000-8000-00000000000a', retentionDays: 14, now: new Date('2024-05-10T12:00:00.000Z') };

interface Golden {
  query: string;
  duckdb: { sql: string; params: Record<string, unknown> };
  clickhouse: { sql: string; params: Record<string, unknown> };
}

/** The exact SQL and parameters of each query in both dialects: a change to either fails here, so it is made on purpose. */
const GOLDEN: Golden[] = [
  {
    query: 'from:errors type:TypeError | fields type, frames | limit 5 | last:1d',
    duckdb: {
      sql: 'SELECT type AS f0, coalesce(frames, frames_lookup.lookup_value) AS f1 FROM errors LEFT JOIN (SELECT id AS lookup_key, frames AS lookup_value FROM stacks WHERE project_id = $project_id) AS frames_lookup ON frames_lookup.lookup_key = stack_id WHERE project_id = $project_id AND timestamp >= $since AND type = $p1 ORDER BY timestamp DESC, id DESC LIMIT $limit',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-05-09 12:00:00.000', p1: 'TypeError', limit: 5 },
    },
    clickhouse: {
      sql: "SELECT type AS f0, nullIf(if(stack_id = '', frames, frames_lookup.lookup_value), '') AS f1 FROM errors FINAL LEFT JOIN (SELECT id AS lookup_key, frames AS lookup_value FROM stacks FINAL WHERE project_id = {project_id:UUID}) AS frames_lookup ON frames_lookup.lookup_key = stack_id WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} AND type = {p1:String} ORDER BY timestamp DESC, toString(id) DESC LIMIT {limit:UInt32}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-05-09 12:00:00.000', p1: 'TypeError', limit: 5 },
    },
  },
  {
    query: 'severity:error | count by message | top 10',
    duckdb: {
      sql: 'SELECT message AS g0, count(*) AS agg, count(*) OVER () AS total_groups FROM logs WHERE project_id = $project_id AND timestamp >= $since AND severity = $p1 GROUP BY g0 ORDER BY agg DESC, g0 ASC LIMIT $limit',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: 'error', limit: 10 },
    },
    clickhouse: {
      sql: "SELECT message AS g0, count() AS agg, count() OVER () AS total_groups FROM logs FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} AND severity = {p1:String} GROUP BY g0 ORDER BY agg DESC, g0 ASC LIMIT {limit:UInt32}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: 'error', limit: 10 },
    },
  },
  {
    query: 'from:events | count by event_name | top 10 | last:30d',
    duckdb: {
      sql: 'SELECT event_name AS g0, count(*) AS agg, count(*) OVER () AS total_groups FROM events WHERE project_id = $project_id AND timestamp >= $since GROUP BY g0 ORDER BY agg DESC, g0 ASC LIMIT $limit',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', limit: 10 },
    },
    clickhouse: {
      sql: "SELECT event_name AS g0, count() AS agg, count() OVER () AS total_groups FROM events FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} GROUP BY g0 ORDER BY agg DESC, g0 ASC LIMIT {limit:UInt32}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', limit: 10 },
    },
  },
  {
    // `top n` keeps the n largest groups; a sort of its own then orders those.
    query: 'from:events | count by event_name | top 3 | sort event_name asc | last:30d',
    duckdb: {
      sql: 'SELECT * FROM (SELECT event_name AS g0, count(*) AS agg, count(*) OVER () AS total_groups FROM events WHERE project_id = $project_id AND timestamp >= $since GROUP BY g0 ORDER BY agg DESC, g0 ASC LIMIT $limit) ORDER BY g0 ASC',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', limit: 3 },
    },
    clickhouse: {
      sql: "SELECT * FROM (SELECT event_name AS g0, count() AS agg, count() OVER () AS total_groups FROM events FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} GROUP BY g0 ORDER BY agg DESC, g0 ASC LIMIT {limit:UInt32}) ORDER BY g0 ASC",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', limit: 3 },
    },
  },
  {
    query: 'from:events | count_distinct(distinct_id) | last:1d',
    duckdb: {
      sql: 'SELECT count(DISTINCT distinct_id) AS agg FROM events WHERE project_id = $project_id AND timestamp >= $since',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-05-09 12:00:00.000' },
    },
    clickhouse: {
      sql: "SELECT uniqExact(nullIf(distinct_id, '')) AS agg FROM events FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-05-09 12:00:00.000' },
    },
  },
  {
    query: "\"Payment Failed\" last:24h limit:20",
    duckdb: {
      // The trigram signature rules rows out before the scan: p2 is the bits of the phrase's trigrams.
      sql: 'SELECT timestamp, id, severity, message, properties, trace_id, span_id FROM logs WHERE project_id = $project_id AND timestamp >= $since AND ((message_trigrams & CAST($p2 AS UBIGINT)) = CAST($p2 AS UBIGINT) AND contains(lower(message), $p1)) ORDER BY timestamp DESC, id DESC LIMIT $limit',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-05-09 12:00:00.000', p1: 'payment failed', p2: 1166857791881220, limit: 20 },
    },
    clickhouse: {
      sql: "SELECT timestamp, toString(id) AS f1, severity, message, properties, properties_num, nullIf(trace_id, '') AS f5, nullIf(span_id, '') AS f6 FROM logs FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} AND lower(message) LIKE {p1:String} ORDER BY timestamp DESC, toString(id) DESC LIMIT {limit:UInt32}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-05-09 12:00:00.000', p1: '%payment failed%', limit: 20 },
    },
  },
  {
    query: 'count by route',
    duckdb: {
      sql: 'SELECT json_extract_string(properties, $p1) AS g0, count(*) AS agg, count(*) OVER () AS total_groups FROM logs WHERE project_id = $project_id AND timestamp >= $since GROUP BY g0 ORDER BY agg DESC, g0 ASC LIMIT $limit',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: '/route', limit: 1000 },
    },
    clickhouse: {
      sql: "SELECT if(mapContains(properties, {p1:String}), properties[{p1:String}], NULL) AS g0, count() AS agg, count() OVER () AS total_groups FROM logs FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} GROUP BY g0 ORDER BY agg DESC, g0 ASC LIMIT {limit:UInt32}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: 'route', limit: 1000 },
    },
  },
  {
    query: 'count by time(5m) | last 1h',
    duckdb: {
      sql: 'SELECT time_bucket(to_minutes($p1), timestamp) AS g0, count(*) AS agg, count(*) OVER () AS total_groups FROM logs WHERE project_id = $project_id AND timestamp >= $since GROUP BY g0 ORDER BY g0 ASC LIMIT $limit',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-05-10 11:00:00.000', p1: 5, limit: 10000 },
    },
    clickhouse: {
      sql: "SELECT toStartOfInterval(timestamp, toIntervalMinute({p1:UInt32})) AS g0, count() AS agg, count() OVER () AS total_groups FROM logs FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} GROUP BY g0 ORDER BY g0 ASC LIMIT {limit:UInt32}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-05-10 11:00:00.000', p1: 5, limit: 10000 },
    },
  },
  {
    query: 'count by time(2d) | last 7d',
    duckdb: {
      sql: "SELECT time_bucket(to_days($p1), timestamp, TIMESTAMP '1970-01-01 00:00:00') AS g0, count(*) AS agg, count(*) OVER () AS total_groups FROM logs WHERE project_id = $project_id AND timestamp >= $since GROUP BY g0 ORDER BY g0 ASC LIMIT $limit",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-05-03 12:00:00.000', p1: 2, limit: 10000 },
    },
    clickhouse: {
      sql: "SELECT toStartOfInterval(timestamp, toIntervalDay({p1:UInt32})) AS g0, count() AS agg, count() OVER () AS total_groups FROM logs FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} GROUP BY g0 ORDER BY g0 ASC LIMIT {limit:UInt32}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-05-03 12:00:00.000', p1: 2, limit: 10000 },
    },
  },
  {
    query: 'p95(duration_ms) by route, time(1h) | since:2024-05-09T00:00:00Z until:2024-05-10',
    duckdb: {
      sql: 'SELECT json_extract_string(properties, $p1) AS g0, time_bucket(to_hours($p2), timestamp) AS g1, quantile_cont(TRY_CAST(json_extract_string(properties, $p3) AS DOUBLE), 0.95) AS agg, count(*) OVER () AS total_groups FROM logs WHERE project_id = $project_id AND timestamp >= $since AND timestamp < $until GROUP BY g0, g1 ORDER BY g1 ASC, g0 ASC LIMIT $limit',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-05-09 00:00:00.000', until: '2024-05-10 00:00:00.000', p1: '/route', p2: 1, p3: '/duration_ms', limit: 10000 },
    },
    clickhouse: {
      sql: "SELECT if(mapContains(properties, {p1:String}), properties[{p1:String}], NULL) AS g0, toStartOfInterval(timestamp, toIntervalHour({p2:UInt32})) AS g1, quantileExactInclusiveOrNull(0.95)(if(mapContains(properties_num, {p3:String}), properties_num[{p3:String}], toFloat64OrNull(properties[{p3:String}]))) AS agg, count() OVER () AS total_groups FROM logs FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} AND timestamp < {until:DateTime64(3, 'UTC')} GROUP BY g0, g1 ORDER BY g1 ASC, g0 ASC LIMIT {limit:UInt32}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-05-09 00:00:00.000', until: '2024-05-10 00:00:00.000', p1: 'route', p2: 1, p3: 'duration_ms', limit: 10000 },
    },
  },
  {
    query: "level:[error, fatal] -route:/health user.plan:pro* amount >= 10 NOT \"timeout\"",
    duckdb: {
      sql: 'SELECT timestamp, id, severity, message, properties, trace_id, span_id FROM logs WHERE project_id = $project_id AND timestamp >= $since AND severity IN ($p1, $p2) AND coalesce(json_extract_string(properties, $p3) != $p4, true) AND starts_with(json_extract_string(properties, $p5), $p6) AND TRY_CAST(json_extract_string(properties, $p7) AS DOUBLE) >= $p8 AND NOT contains(lower(message), $p9) ORDER BY timestamp DESC, id DESC LIMIT $limit',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: 'error', p2: 'fatal', p3: '/route', p4: '/health', p5: '/user.plan', p6: 'pro', p7: '/amount', p8: 10, p9: 'timeout', limit: 100 },
    },
    clickhouse: {
      sql: "SELECT timestamp, toString(id) AS f1, severity, message, properties, properties_num, nullIf(trace_id, '') AS f5, nullIf(span_id, '') AS f6 FROM logs FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} AND severity IN ({p1:String}, {p2:String}) AND properties[{p3:String}] != {p4:String} AND startsWith(properties[{p5:String}], {p6:String}) AND if(mapContains(properties_num, {p7:String}), properties_num[{p7:String}], toFloat64OrNull(properties[{p7:String}])) >= {p8:Float64} AND lower(message) NOT LIKE {p9:String} ORDER BY timestamp DESC, toString(id) DESC LIMIT {limit:UInt32}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: 'error', p2: 'fatal', p3: 'route', p4: '/health', p5: 'user.plan', p6: 'pro', p7: 'amount', p8: 10, p9: '%timeout%', limit: 100 },
    },
  },
  {
    query: '(severity:error OR severity:fatal) service != api',
    duckdb: {
      sql: 'SELECT timestamp, id, severity, message, properties, trace_id, span_id FROM logs WHERE project_id = $project_id AND timestamp >= $since AND (severity = $p1 OR severity = $p2) AND coalesce(json_extract_string(properties, $p3) != $p4, true) ORDER BY timestamp DESC, id DESC LIMIT $limit',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: 'error', p2: 'fatal', p3: '/service', p4: 'api', limit: 100 },
    },
    clickhouse: {
      sql: "SELECT timestamp, toString(id) AS f1, severity, message, properties, properties_num, nullIf(trace_id, '') AS f5, nullIf(span_id, '') AS f6 FROM logs FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} AND (severity = {p1:String} OR severity = {p2:String}) AND properties[{p3:String}] != {p4:String} ORDER BY timestamp DESC, toString(id) DESC LIMIT {limit:UInt32}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: 'error', p2: 'fatal', p3: 'service', p4: 'api', limit: 100 },
    },
  },
  {
    query: 'user.email:* -$browser:* retries:[1, 2]',
    duckdb: {
      sql: 'SELECT timestamp, id, severity, message, properties, trace_id, span_id FROM logs WHERE project_id = $project_id AND timestamp >= $since AND json_extract_string(properties, $p1) IS NOT NULL AND json_extract_string(properties, $p2) IS NULL AND TRY_CAST(json_extract_string(properties, $p3) AS DOUBLE) IN ($p4, $p5) ORDER BY timestamp DESC, id DESC LIMIT $limit',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: '/user.email', p2: '/$browser', p3: '/retries', p4: 1, p5: 2, limit: 100 },
    },
    clickhouse: {
      sql: "SELECT timestamp, toString(id) AS f1, severity, message, properties, properties_num, nullIf(trace_id, '') AS f5, nullIf(span_id, '') AS f6 FROM logs FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} AND mapContains(properties, {p1:String}) AND NOT mapContains(properties, {p2:String}) AND if(mapContains(properties_num, {p3:String}), properties_num[{p3:String}], toFloat64OrNull(properties[{p3:String}])) IN ({p4:Float64}, {p5:Float64}) ORDER BY timestamp DESC, toString(id) DESC LIMIT {limit:UInt32}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: 'user.email', p2: '$browser', p3: 'retries', p4: 1, p5: 2, limit: 100 },
    },
  },
  {
    query: 'from:errors extra.synthetic:logs level:fatal | count by release | last:7d',
    duckdb: {
      sql: 'SELECT release AS g0, count(*) AS agg, count(*) OVER () AS total_groups FROM errors WHERE project_id = $project_id AND timestamp >= $since AND json_extract_string(extra, $p1) = $p2 AND level = $p3 GROUP BY g0 ORDER BY agg DESC, g0 ASC LIMIT $limit',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-05-03 12:00:00.000', p1: '/synthetic', p2: 'logs', p3: 'fatal', limit: 1000 },
    },
    clickhouse: {
      sql: "SELECT nullIf(release, '') AS g0, count() AS agg, count() OVER () AS total_groups FROM errors FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} AND extra[{p1:String}] = {p2:String} AND level = {p3:String} GROUP BY g0 ORDER BY agg DESC, g0 ASC LIMIT {limit:UInt32}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-05-03 12:00:00.000', p1: 'synthetic', p2: 'logs', p3: 'fatal', limit: 1000 },
    },
  },
  {
    query: "from:errors \"TypeError\" tags.browser:Chrome user.id:u-1",
    duckdb: {
      sql: 'SELECT timestamp, id, issue_id, fingerprint_hash, type, value, level, release, environment, platform, source, trace_id, span_id, user, tags, extra FROM errors WHERE project_id = $project_id AND timestamp >= $since AND (contains(lower(value), $p1) OR contains(lower(type), $p1)) AND json_extract_string(tags, $p2) = $p3 AND json_extract_string(user, $p4) = $p5 ORDER BY timestamp DESC, id DESC LIMIT $limit',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: 'typeerror', p2: '/browser', p3: 'Chrome', p4: '/id', p5: 'u-1', limit: 100 },
    },
    clickhouse: {
      sql: "SELECT timestamp, toString(id) AS f1, toString(issue_id) AS f2, fingerprint_hash, type, value, level, nullIf(release, '') AS f7, nullIf(environment, '') AS f8, nullIf(platform, '') AS f9, nullIf(source, '') AS f10, nullIf(trace_id, '') AS f11, nullIf(span_id, '') AS f12, user, user_num, tags, tags_num, extra, extra_num FROM errors FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} AND (lower(value) LIKE {p1:String} OR lower(type) LIKE {p1:String}) AND tags[{p2:String}] = {p3:String} AND user[{p4:String}] = {p5:String} ORDER BY timestamp DESC, toString(id) DESC LIMIT {limit:UInt32}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: '%typeerror%', p2: 'browser', p3: 'Chrome', p4: 'id', p5: 'u-1', limit: 100 },
    },
  },
  {
    query: 'from:issues status:unresolved | sort last_seen desc | fields short_id, title, event_count | last:7d',
    duckdb: {
      sql: 'SELECT short_id AS f0, title AS f1, event_count AS f2 FROM issues WHERE project_id = $project_id AND last_seen >= $since AND status = $p1 ORDER BY last_seen DESC, id DESC LIMIT $limit',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-05-03 12:00:00.000', p1: 'unresolved', limit: 100 },
    },
    clickhouse: {
      sql: "SELECT short_id AS f0, title AS f1, event_count AS f2 FROM issues FINAL WHERE project_id = {project_id:UUID} AND last_seen >= {since:DateTime64(3, 'UTC')} AND status = {p1:String} ORDER BY last_seen DESC, toString(id) DESC LIMIT {limit:UInt32}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-05-03 12:00:00.000', p1: 'unresolved', limit: 100 },
    },
  },
  {
    query: 'from:issues status:regressed | count by release_last | last:30d',
    duckdb: {
      sql: 'SELECT release_last AS g0, count(*) AS agg, count(*) OVER () AS total_groups FROM issues WHERE project_id = $project_id AND last_seen >= $since AND status = $p1 GROUP BY g0 ORDER BY agg DESC, g0 ASC LIMIT $limit',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: 'regressed', limit: 1000 },
    },
    clickhouse: {
      sql: "SELECT nullIf(release_last, '') AS g0, count() AS agg, count() OVER () AS total_groups FROM issues FINAL WHERE project_id = {project_id:UUID} AND last_seen >= {since:DateTime64(3, 'UTC')} AND status = {p1:String} GROUP BY g0 ORDER BY agg DESC, g0 ASC LIMIT {limit:UInt32}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: 'regressed', limit: 1000 },
    },
  },
  {
    query: 'from:alerts severity:critical enabled:true',
    duckdb: {
      sql: 'SELECT id, name, metric, threshold, comparator, window_minutes, severity, enabled, muted_until, created_at FROM alerts WHERE project_id = $project_id AND deleted = false AND severity = $p1 AND enabled = $p2 ORDER BY created_at DESC, id DESC LIMIT $limit',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', p1: 'critical', p2: true, limit: 100 },
    },
    clickhouse: {
      sql: 'SELECT toString(id) AS f0, name, metric, threshold, comparator, window_minutes, severity, enabled, muted_until, created_at FROM alerts FINAL WHERE project_id = {project_id:UUID} AND deleted = false AND severity = {p1:String} AND enabled = {p2:Bool} ORDER BY created_at DESC, toString(id) DESC LIMIT {limit:UInt32}',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', p1: 'critical', p2: true, limit: 100 },
    },
  },
  {
    query: 'from:alert_events | last 7d | sort triggered_at desc | limit 20',
    duckdb: {
      sql: 'SELECT triggered_at, id, rule_id, rule_name, value, threshold, severity FROM alert_events WHERE project_id = $project_id AND triggered_at >= $since ORDER BY triggered_at DESC, id DESC LIMIT $limit',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-05-03 12:00:00.000', limit: 20 },
    },
    clickhouse: {
      sql: "SELECT triggered_at, toString(id) AS f1, toString(rule_id) AS f2, rule_name, value, threshold, severity FROM alert_events FINAL WHERE project_id = {project_id:UUID} AND triggered_at >= {since:DateTime64(3, 'UTC')} ORDER BY triggered_at DESC, toString(id) DESC LIMIT {limit:UInt32}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-05-03 12:00:00.000', limit: 20 },
    },
  },
  {
    query: 'from:alert_events rule_id:0190a0e0-0000-7000-8000-0000000000ff value > 3 | avg(value) by rule_name',
    duckdb: {
      sql: 'SELECT rule_name AS g0, avg(value) AS agg, count(*) OVER () AS total_groups FROM alert_events WHERE project_id = $project_id AND triggered_at >= $since AND rule_id = $p1 AND value > $p2 GROUP BY g0 ORDER BY agg DESC, g0 ASC LIMIT $limit',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: '0190a0e0-0000-7000-8000-0000000000ff', p2: 3, limit: 1000 },
    },
    clickhouse: {
      sql: "SELECT rule_name AS g0, avgOrNull(value) AS agg, count() OVER () AS total_groups FROM alert_events FINAL WHERE project_id = {project_id:UUID} AND triggered_at >= {since:DateTime64(3, 'UTC')} AND rule_id = {p1:UUID} AND value > {p2:Float64} GROUP BY g0 ORDER BY agg DESC, g0 ASC LIMIT {limit:UInt32}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: '0190a0e0-0000-7000-8000-0000000000ff', p2: 3, limit: 1000 },
    },
  },
  {
    query: 'fields message, user.plan, properties | sort amount desc | limit 5',
    duckdb: {
      sql: 'SELECT message AS f0, json_extract(properties, $p1) AS f1, properties AS f2 FROM logs WHERE project_id = $project_id AND timestamp >= $since ORDER BY TRY_CAST(json_extract_string(properties, $p2) AS DOUBLE) DESC, json_extract_string(properties, $p2) DESC, timestamp DESC, id DESC LIMIT $limit',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: '/user.plan', p2: '/amount', limit: 5 },
    },
    clickhouse: {
      sql: "SELECT message AS f0, if(mapContains(properties, {p1:String}), properties[{p1:String}], NULL) AS f1, if(mapContains(properties_num, {p1:String}), properties_num[{p1:String}], NULL) AS f1n, properties AS f2, properties_num AS f2n FROM logs FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} ORDER BY if(mapContains(properties_num, {p2:String}), properties_num[{p2:String}], toFloat64OrNull(properties[{p2:String}])) DESC, if(mapContains(properties, {p2:String}), properties[{p2:String}], NULL) DESC, timestamp DESC, toString(id) DESC LIMIT {limit:UInt32}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: 'user.plan', p2: 'amount', limit: 5 },
    },
  },
  {
    query: 'since:2020-01-01',
    duckdb: {
      sql: 'SELECT timestamp, id, severity, message, properties, trace_id, span_id FROM logs WHERE project_id = $project_id AND timestamp >= $since ORDER BY timestamp DESC, id DESC LIMIT $limit',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', limit: 100 },
    },
    clickhouse: {
      sql: "SELECT timestamp, toString(id) AS f1, severity, message, properties, properties_num, nullIf(trace_id, '') AS f5, nullIf(span_id, '') AS f6 FROM logs FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} ORDER BY timestamp DESC, toString(id) DESC LIMIT {limit:UInt32}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', limit: 100 },
    },
  },
  {
    query: 'from:events event:signup | sum(properties.amount) by properties.plan, country',
    duckdb: {
      sql: 'SELECT json_extract_string(properties, $p1) AS g0, json_extract_string(properties, $p2) AS g1, sum(TRY_CAST(json_extract_string(properties, $p3) AS DOUBLE)) AS agg, count(*) OVER () AS total_groups FROM events WHERE project_id = $project_id AND timestamp >= $since AND event_name = $p4 GROUP BY g0, g1 ORDER BY agg DESC, g0 ASC, g1 ASC LIMIT $limit',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: '/plan', p2: '/country', p3: '/amount', p4: 'signup', limit: 1000 },
    },
    clickhouse: {
      sql: "SELECT if(mapContains(properties, {p1:String}), properties[{p1:String}], NULL) AS g0, if(mapContains(properties, {p2:String}), properties[{p2:String}], NULL) AS g1, sumOrNull(if(mapContains(properties_num, {p3:String}), properties_num[{p3:String}], toFloat64OrNull(properties[{p3:String}]))) AS agg, count() OVER () AS total_groups FROM events FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} AND event_name = {p4:String} GROUP BY g0, g1 ORDER BY agg DESC, g0 ASC, g1 ASC LIMIT {limit:UInt32}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: 'plan', p2: 'country', p3: 'amount', p4: 'signup', limit: 1000 },
    },
  },
  {
    query: 'id:0190a0e0-0000-7000-8000-0000000000ff OR id:abc*',
    duckdb: {
      sql: 'SELECT timestamp, id, severity, message, properties, trace_id, span_id FROM logs WHERE project_id = $project_id AND timestamp >= $since AND (id = $p1 OR starts_with(id, $p2)) ORDER BY timestamp DESC, id DESC LIMIT $limit',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: '0190a0e0-0000-7000-8000-0000000000ff', p2: 'abc', limit: 100 },
    },
    clickhouse: {
      sql: "SELECT timestamp, toString(id) AS f1, severity, message, properties, properties_num, nullIf(trace_id, '') AS f5, nullIf(span_id, '') AS f6 FROM logs FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} AND (id = {p1:UUID} OR startsWith(toString(id), {p2:String})) ORDER BY timestamp DESC, toString(id) DESC LIMIT {limit:UInt32}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: '0190a0e0-0000-7000-8000-0000000000ff', p2: 'abc', limit: 100 },
    },
  },
  {
    // UUIDs compare and group as their text in ClickHouse too; groups are formed on the UUIDs themselves.
    query: 'from:errors issue_id > 0190a0e0-0000-7000-8000-0000000000ff | count by issue_id',
    duckdb: {
      sql: 'SELECT issue_id AS g0, count(*) AS agg, count(*) OVER () AS total_groups FROM errors WHERE project_id = $project_id AND timestamp >= $since AND issue_id > $p1 GROUP BY g0 ORDER BY agg DESC, g0 ASC LIMIT $limit',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: '0190a0e0-0000-7000-8000-0000000000ff', limit: 1000 },
    },
    clickhouse: {
      sql: 'SELECT toString(issue_id) AS g0, count() AS agg, count() OVER () AS total_groups FROM errors FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, \'UTC\')} AND toString(issue_id) > {p1:String} GROUP BY issue_id ORDER BY agg DESC, g0 ASC LIMIT {limit:UInt32}',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: '0190a0e0-0000-7000-8000-0000000000ff', limit: 1000 },
    },
  },
  {
    query: 'from:errors release < 2.0 -environment >= prod | fields type | sort release asc',
    duckdb: {
      sql: 'SELECT type AS f0 FROM errors WHERE project_id = $project_id AND timestamp >= $since AND release < $p1 AND coalesce(environment < $p2, true) ORDER BY release ASC, timestamp DESC, id DESC LIMIT $limit',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: '2.0', p2: 'prod', limit: 100 },
    },
    clickhouse: {
      sql: "SELECT type AS f0 FROM errors FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} AND nullIf(release, '') < {p1:String} AND coalesce(nullIf(environment, '') < {p2:String}, true) ORDER BY nullIf(release, '') ASC, timestamp DESC, toString(id) DESC LIMIT {limit:UInt32}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: '2.0', p2: 'prod', limit: 100 },
    },
  },
  {
    query: 'count by time(5h) | last 1d',
    duckdb: {
      sql: "SELECT time_bucket(to_hours($p1), timestamp, TIMESTAMP '1970-01-01 00:00:00') AS g0, count(*) AS agg, count(*) OVER () AS total_groups FROM logs WHERE project_id = $project_id AND timestamp >= $since GROUP BY g0 ORDER BY g0 ASC LIMIT $limit",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-05-09 12:00:00.000', p1: 5, limit: 10000 },
    },
    clickhouse: {
      sql: "SELECT toStartOfInterval(timestamp, toIntervalMinute({p1:UInt32})) AS g0, count() AS agg, count() OVER () AS total_groups FROM logs FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} GROUP BY g0 ORDER BY g0 ASC LIMIT {limit:UInt32}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-05-09 12:00:00.000', p1: 300, limit: 10000 },
    },
  },
  {
    query: 'count by time(2w) | last 30d',
    duckdb: {
      sql: "SELECT time_bucket(to_weeks($p1), timestamp, TIMESTAMP '1970-01-05 00:00:00') AS g0, count(*) AS agg, count(*) OVER () AS total_groups FROM logs WHERE project_id = $project_id AND timestamp >= $since GROUP BY g0 ORDER BY g0 ASC LIMIT $limit",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: 2, limit: 10000 },
    },
    clickhouse: {
      sql: "SELECT toStartOfInterval(timestamp, toIntervalWeek({p1:UInt32})) AS g0, count() AS agg, count() OVER () AS total_groups FROM logs FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} GROUP BY g0 ORDER BY g0 ASC LIMIT {limit:UInt32}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-04-26 12:00:00.000', p1: 2, limit: 10000 },
    },
  },
  {
    query: 'count by time(7m) | last 1h',
    duckdb: {
      sql: "SELECT time_bucket(to_minutes($p1), timestamp, TIMESTAMP '1970-01-01 00:00:00') AS g0, count(*) AS agg, count(*) OVER () AS total_groups FROM logs WHERE project_id = $project_id AND timestamp >= $since GROUP BY g0 ORDER BY g0 ASC LIMIT $limit",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-05-10 11:00:00.000', p1: 7, limit: 10000 },
    },
    clickhouse: {
      sql: "SELECT toStartOfInterval(timestamp, toIntervalMinute({p1:UInt32})) AS g0, count() AS agg, count() OVER () AS total_groups FROM logs FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} GROUP BY g0 ORDER BY g0 ASC LIMIT {limit:UInt32}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-05-10 11:00:00.000', p1: 7, limit: 10000 },
    },
  },
];

describe('emit: golden SQL for both dialects', () => {
  it.each(GOLDEN.map((golden) => [golden.query, golden] as const))('%s', (_query, golden) => {
    const { plan } = compileQuery(golden.query);
    for (const dialect of ['duckdb', 'clickhouse'] as const) {
      const compiled = emit(plan, dialect, guard);
      expect({ sql: compiled.sql, params: compiled.params }).toEqual(golden[dialect]);
    }
  });
});

describe('emit: golden SQL with promoted properties (DuckDB)', () => {
  const promoted = new Map([
    ['properties\u0000route', { text: 'properties__p1', number: null }],
    ['properties\u0000duration_ms', { text: 'properties__p2', number: 'properties__p2_number' }],
  ]);
  const guard = { projectId: '0190a0e0-0000-7000-8000-00000000000a', retentionDays: 30, now: new Date('2024-05-10T12:00:00.000Z') };
  const sql = (query: string) => emit(compileQuery(query).plan, 'duckdb', guard, promoted).sql;

  it('reads a promoted key from its columns: text for groups and filters, the number column for arithmetic', () => {
    expect(sql('p95(duration_ms) by route | last 1h')).toBe(
      'SELECT "properties__p1" AS g0, quantile_cont("properties__p2_number", 0.95) AS agg, count(*) OVER () AS total_groups FROM logs WHERE project_id = $project_id AND timestamp >= $since GROUP BY g0 ORDER BY agg DESC, g0 ASC LIMIT $limit',
    );
    expect(sql('route:/checkout duration_ms > 100 | count | last 1h')).toBe(
      'SELECT count(*) AS agg FROM logs WHERE project_id = $project_id AND timestamp >= $since AND "properties__p1" = $p1 AND "properties__p2_number" > $p2',
    );
  });

  it('reads a promoted key without a number column as its text cast, and other keys from the JSON', () => {
    expect(sql('sum(route) by plan | last 1h')).toBe(
      'SELECT json_extract_string(properties, $p1) AS g0, sum(TRY_CAST("properties__p1" AS DOUBLE)) AS agg, count(*) OVER () AS total_groups FROM logs WHERE project_id = $project_id AND timestamp >= $since GROUP BY g0 ORDER BY agg DESC, g0 ASC LIMIT $limit',
    );
  });

  it('computes a percentile from counts of each value when asked, and probes the first values of the range to choose', () => {
    const plan = compileQuery('p95(duration_ms) by route | last 1h').plan;
    expect(emit(plan, 'duckdb', guard, promoted, { percentiles: 'counts' }).sql).toBe(
      'SELECT g0, CASE WHEN p_d = 0 THEN p_lo ELSE p_lo * (1 - p_d) + p_hi * p_d END AS agg, count(*) OVER () AS total_groups FROM (SELECT g0, min(pv) FILTER (WHERE p_upto > floor(p_rank)) AS p_lo, min(pv) FILTER (WHERE p_upto > ceil(p_rank)) AS p_hi, any_value(p_rank - floor(p_rank)) AS p_d FROM (SELECT g0, pv, sum(pn) OVER (PARTITION BY g0 ORDER BY pv NULLS LAST ROWS UNBOUNDED PRECEDING) AS p_upto, (coalesce(sum(pn) FILTER (WHERE pv IS NOT NULL) OVER (PARTITION BY g0), 0) - 1)::DOUBLE * 0.95::DOUBLE AS p_rank FROM (SELECT "properties__p1" AS g0, "properties__p2_number" AS pv, count(*) AS pn FROM logs WHERE project_id = $project_id AND timestamp >= $since GROUP BY g0, pv)) GROUP BY g0) ORDER BY agg DESC, g0 ASC LIMIT $limit',
    );
    expect(percentileProbe(plan, guard, promoted)).toEqual({
      sql: 'SELECT sum(pn) AS sampled, count(*) AS distinct_values FROM (SELECT g0, pv, count(*) AS pn FROM (SELECT "properties__p1" AS g0, "properties__p2_number" AS pv FROM logs WHERE project_id = $project_id AND timestamp >= $since AND "properties__p2_number" IS NOT NULL LIMIT 65536) GROUP BY g0, pv)',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-05-10 11:00:00.000' },
    });
    // A column is read in DOUBLE, as quantile_cont interpolates it; with no group there is one row, partitioned by nothing.
    expect(emit(compileQuery('from:spans op:db | p50(duration_ms) | last 1h').plan, 'duckdb', guard, promoted, { percentiles: 'counts' }).sql).toBe(
      'SELECT CASE WHEN p_d = 0 THEN p_lo ELSE p_lo * (1 - p_d) + p_hi * p_d END AS agg FROM (SELECT min(pv) FILTER (WHERE p_upto > floor(p_rank)) AS p_lo, min(pv) FILTER (WHERE p_upto > ceil(p_rank)) AS p_hi, any_value(p_rank - floor(p_rank)) AS p_d FROM (SELECT pv, sum(pn) OVER (ORDER BY pv NULLS LAST ROWS UNBOUNDED PRECEDING) AS p_upto, (coalesce(sum(pn) FILTER (WHERE pv IS NOT NULL) OVER (), 0) - 1)::DOUBLE * 0.5::DOUBLE AS p_rank FROM (SELECT CAST(duration_ms AS DOUBLE) AS pv, count(*) AS pn FROM spans WHERE project_id = $project_id AND timestamp >= $since AND op = $p1 GROUP BY pv)))',
    );
    // ClickHouse's percentile is its own exact function whichever form is asked.
    expect(emit(plan, 'clickhouse', guard, promoted, { percentiles: 'counts' }).sql).toContain('quantileExactInclusiveOrNull(0.95)');
  });
});

describe('emit: golden SQL with promoted properties (ClickHouse)', () => {
  const promoted = new Map([
    ['properties\u0000route', { text: 'properties__h2f1c8e6bd7a3c0a1', number: null }],
    ['properties\u0000duration_ms', { text: 'properties__h9d0e4c7b11f2a5e3', number: 'properties__h9d0e4c7b11f2a5e3_number' }],
  ]);
  const guard = { projectId: '0190a0e0-0000-7000-8000-00000000000a', retentionDays: 30, now: new Date('2024-05-10T12:00:00.000Z') };
  const compiled = (query: string) => emit(compileQuery(query).plan, 'clickhouse', guard, promoted);

  it('reads a promoted key from its MATERIALIZED columns: text for groups and filters, the number column for arithmetic', () => {
    expect(compiled('p95(duration_ms) by route | last 1h').sql).toBe(
      "SELECT properties__h2f1c8e6bd7a3c0a1 AS g0, quantileExactInclusiveOrNull(0.95)(properties__h9d0e4c7b11f2a5e3_number) AS agg, count() OVER () AS total_groups FROM logs FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} GROUP BY g0 ORDER BY agg DESC, g0 ASC LIMIT {limit:UInt32}",
    );
    expect(compiled('route:/checkout duration_ms > 100 | count | last 1h')).toMatchObject({
      sql: "SELECT count() AS agg FROM logs FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} AND properties__h2f1c8e6bd7a3c0a1 = {p1:String} AND properties__h9d0e4c7b11f2a5e3_number > {p2:Float64}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-05-10 11:00:00.000', p1: '/checkout', p2: 100 },
    });
  });

  it('keeps rows without the key in negations and prefixes, and tests existence on the column', () => {
    expect(compiled('-route:/checkout route:/c* | count | last 1h').sql).toBe(
      "SELECT count() AS agg FROM logs FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} AND coalesce(properties__h2f1c8e6bd7a3c0a1 != {p1:String}, true) AND startsWith(properties__h2f1c8e6bd7a3c0a1, {p2:String})",
    );
    expect(compiled('route:* -duration_ms:* | count | last 1h').sql).toBe(
      "SELECT count() AS agg FROM logs FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} AND properties__h2f1c8e6bd7a3c0a1 IS NOT NULL AND properties__h9d0e4c7b11f2a5e3 IS NULL",
    );
  });

  it('reads a promoted key without a number column, and other keys, from the maps', () => {
    expect(compiled('sum(route) by plan | last 1h').sql).toBe(
      "SELECT if(mapContains(properties, {p1:String}), properties[{p1:String}], NULL) AS g0, sumOrNull(if(mapContains(properties_num, {p2:String}), properties_num[{p2:String}], toFloat64OrNull(properties[{p2:String}]))) AS agg, count() OVER () AS total_groups FROM logs FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} GROUP BY g0 ORDER BY agg DESC, g0 ASC LIMIT {limit:UInt32}",
    );
  });

  it('reads the maps where nothing is promoted', () => {
    expect(emit(compileQuery('route:/checkout | count | last 1h').plan, 'clickhouse', guard).sql).toBe(
      "SELECT count() AS agg FROM logs FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} AND properties[{p1:String}] = {p2:String}",
    );
  });
});

describe('emit: golden SQL of a search read in time slices (runPlan reads the newest slice first)', () => {
  const guard = { projectId: '0190a0e0-0000-7000-8000-00000000000a', retentionDays: 30, now: new Date('2024-05-10T12:00:00.000Z') };
  const split = Date.parse('2024-05-10T11:15:00.000Z');
  const plan = compileQuery('severity:error last:24h limit:20').plan;

  it('bounds the newest slice from below and the rest from above, beside the range and in both dialects', () => {
    expect(emit(plan, 'duckdb', guard, undefined, { slice: { from: split } })).toMatchObject({
      sql: 'SELECT timestamp, id, severity, message, properties, trace_id, span_id FROM logs WHERE project_id = $project_id AND timestamp >= $since AND timestamp >= $slice_from AND severity = $p1 ORDER BY timestamp DESC, id DESC LIMIT $limit',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-05-09 12:00:00.000', slice_from: '2024-05-10 11:15:00.000', p1: 'error', limit: 20 },
    });
    expect(emit({ ...plan, limit: 7 }, 'duckdb', guard, undefined, { slice: { before: split } })).toMatchObject({
      sql: 'SELECT timestamp, id, severity, message, properties, trace_id, span_id FROM logs WHERE project_id = $project_id AND timestamp >= $since AND timestamp < $slice_before AND severity = $p1 ORDER BY timestamp DESC, id DESC LIMIT $limit',
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-05-09 12:00:00.000', slice_before: '2024-05-10 11:15:00.000', p1: 'error', limit: 7 },
    });
    expect(emit(plan, 'clickhouse', guard, undefined, { slice: { from: split } })).toMatchObject({
      sql: "SELECT timestamp, toString(id) AS f1, severity, message, properties, properties_num, nullIf(trace_id, '') AS f5, nullIf(span_id, '') AS f6 FROM logs FINAL WHERE project_id = {project_id:UUID} AND timestamp >= {since:DateTime64(3, 'UTC')} AND timestamp >= {slice_from:DateTime64(3, 'UTC')} AND severity = {p1:String} ORDER BY timestamp DESC, toString(id) DESC LIMIT {limit:UInt32}",
      params: { project_id: '0190a0e0-0000-7000-8000-00000000000a', since: '2024-05-09 12:00:00.000', slice_from: '2024-05-10 11:15:00.000', p1: 'error', limit: 20 },
    });
  });
});
