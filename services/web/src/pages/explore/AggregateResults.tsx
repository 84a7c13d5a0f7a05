import { useMemo } from 'react';
import type { GqlAnswer } from '../../api/types';
import { aggregateLabel, aggregateShape, rangeBounds, timeSeriesData } from '../../components/charts';
import { BarChart, LineChart } from '../../components/Charts';
import { Cell } from './ResultsTable';

/** Groups and their value as a table, in the answer's order. */
export function GroupsTable({ results, label }: { results: Record<string, unknown>[]; label: string }) {
  const columns = useMemo(() => {
    const keys = [...new Set(results.flatMap((row) => Object.keys(row)))];
    return [...keys.filter((key) => key !== 'value'), 'value'];
  }, [results]);
  return (
    <table className="grid explore-groups" aria-label={label}>
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column} scope="col" className={column === 'value' ? 'numeric' : undefined}>
              {column}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {results.map((row, index) => (
          <tr key={index}>
            {columns.map((column) => (
              <td key={column} className={column === 'value' ? 'numeric' : row[column] === null || row[column] === '' ? 'muted' : undefined}>
                {column === 'value' && typeof row[column] === 'number' ? (
                  (row[column] as number).toLocaleString()
                ) : row[column] === '' ? (
                  '(empty)'
                ) : (
                  <Cell column={column} value={row[column]} />
                )}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * An aggregate answer: one number on its own, groups as a bar chart and a table, time buckets as a line chart with a
 * series per group (and the table behind a disclosure, as a series can hold thousands of buckets). `compact` (a
 * dashboard's panel) puts the groups' table behind a disclosure too.
 */
export function AggregateResults({ answer, answeredAt, compact = false }: { answer: GqlAnswer; answeredAt: number; compact?: boolean }) {
  const shape = useMemo(() => aggregateShape(answer.query), [answer]);
  const results = answer.data.results;
  const series = useMemo(
    () => (shape.interval ? timeSeriesData(results, shape, rangeBounds(answer.query.time_range ?? null, answeredAt)) : undefined),
    [answer, answeredAt, results, shape],
  );
  const label = aggregateLabel(shape);

  if (series) {
    return (
      <div className="explore-aggregate">
        <LineChart data={series} shape={shape} />
        <details className="explore-series-table">
          <summary>
            {/* A row per bucket and group: 7 buckets of 3 severities are up to 21 rows. */}
            Show the {results.length.toLocaleString()} {shape.groupBy.length > 0 ? 'rows (a bucket of a group each)' : 'buckets'} as a table
          </summary>
          <GroupsTable results={results} label={label} />
        </details>
      </div>
    );
  }
  if (shape.groupBy.length === 0 && results.length === 1) {
    const value = results[0]!['value'];
    return (
      <div className="explore-stat" role="group" aria-label={label}>
        <span className="explore-stat-value">{typeof value === 'number' ? value.toLocaleString() : <Cell column="value" value={value} />}</span>
        <span className="muted">{label}</span>
      </div>
    );
  }
  return (
    <div className="explore-aggregate">
      <BarChart results={results} shape={shape} />
      {compact ? (
        <details className="explore-series-table">
          <summary>Show the {results.length.toLocaleString()} groups as a table</summary>
          <GroupsTable results={results} label={label} />
        </details>
      ) : (
        <GroupsTable results={results} label={label} />
      )}
    </div>
  );
}
