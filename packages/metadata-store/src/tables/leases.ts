import type { SqlClient } from '../store';

/**
 * Takes the lease of a periodic job for `seconds` when nobody holds it (or the holder's lease ran out): true when
 * this holder may run the job now. Keeps fleet-wide jobs (alert evaluation) to one runner at a time without holding
 * a transaction open for the whole run.
 */
export async function takeLease(sql: SqlClient, name: string, holder: string, seconds: number): Promise<boolean> {
  const rows = await sql.query(
    `insert into job_leases (name, holder, until) values ($1, $2, now() + make_interval(secs => $3))
     on conflict (name) do update set holder = excluded.holder, until = excluded.until
       where job_leases.until < now() or job_leases.holder = excluded.holder
     returning name`,
    [name, holder, seconds],
  );
  return rows.length > 0;
}
