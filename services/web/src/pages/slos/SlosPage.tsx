import type { Slo } from '@tlm/api-schemas';
import { useMemo, useState } from 'react';
import { useParams } from 'react-router';
import { LineChart } from '../../components/Charts';
import { ConfirmDialog, Dialog } from '../../components/Dialog';
import { EmptyState, ErrorNotice, Loading } from '../../components/States';
import { useUsage } from '../usage/hooks';
import { useSloHistory, useSloMutations, useSlos } from './hooks';
import { SloForm } from './SloForm';
import '../alerts/alerts.css';

const percent = (value: number | null) => (value === null ? '–' : `${value.toLocaleString('en-US', { maximumFractionDigits: 3 })}%`);

/** The burn rate per bucket over the SLO's window, with 1 (the budget spent exactly over the window) drawn across. */
function BurnRate({ org, project, slo }: { org: string; project: string; slo: Slo }) {
  const history = useSloHistory(org, project, slo.id);
  const data = useMemo(() => {
    const points = history.data?.points ?? [];
    const xs = points.map((point) => Date.parse(point.time) / 1_000);
    return {
      xs,
      series: [
        { label: 'burn rate', values: points.map((point) => point.burn_rate) },
        { label: 'sustainable (1)', values: points.map(() => 1) },
      ],
    };
  }, [history.data]);
  if (history.isPending) return <Loading what="the burn rate" />;
  if (history.isError) return <ErrorNotice error={history.error} next="Reload the page." />;
  const latest = [...history.data.points].reverse().find((point) => point.burn_rate !== null);
  return (
    <>
      <LineChart
        data={data}
        shape={{ func: 'burn rate', field: null, groupBy: [], interval: null }}
        height={180}
        label={`Burn rate of ${slo.name} per ${history.data.bucket_minutes} minutes over ${Math.round((history.data.points.length * history.data.bucket_minutes) / 1_440)} days${latest ? `, latest ${latest.burn_rate}` : ''}`}
      />
      <p className="field-hint">
        Burn rate: the share of failures in each {history.data.bucket_minutes >= 1_440 ? 'day' : history.data.bucket_minutes >= 60 ? `${history.data.bucket_minutes / 60}-hour bucket` : `${history.data.bucket_minutes}-minute bucket`} over the{' '}
        {percent(100 - slo.target_percent)} the target allows. Above 1, the budget runs out before the window ends.
      </p>
    </>
  );
}

function SloPanel({ org, project, slo, onEdit, onDelete }: { org: string; project: string; slo: Slo; onEdit: () => void; onDelete: () => void }) {
  const meets = slo.current_percent !== null && slo.current_percent >= slo.target_percent;
  // A window longer than the plan keeps data counts only the days kept, and says so.
  const kept = useUsage(org).data?.limits.retention_days;
  const days = kept === undefined ? slo.window_days : Math.min(slo.window_days, kept);
  return (
    <section className="panel" aria-labelledby={`slo-${slo.id}`}>
      <div className="alerts-header">
        <h2 id={`slo-${slo.id}`} className="panel-title">
          {slo.name}
        </h2>
        <div className="row">
          {/* The panel is titled by the SLO: its buttons say what they do, and name it to screen readers. */}
          <button type="button" className="button button-small" onClick={onEdit} aria-label={`Edit ${slo.name}`}>
            Edit
          </button>
          <button type="button" className="button button-small button-danger" onClick={onDelete} aria-label={`Delete ${slo.name}`}>
            Delete
          </button>
        </div>
      </div>
      <div className="alerts-stat-grid">
        <div className={`alerts-stat ${slo.current_percent === null ? '' : meets ? 'alerts-stat-good' : 'alerts-stat-bad'}`}>
          <span className="muted">Current</span>
          <strong>{percent(slo.current_percent)}</strong>
        </div>
        <div className="alerts-stat">
          <span className="muted">Target</span>
          <strong>{percent(slo.target_percent)}</strong>
        </div>
        <div className={`alerts-stat ${slo.error_budget_remaining === null ? '' : slo.error_budget_remaining >= 0 ? 'alerts-stat-good' : 'alerts-stat-bad'}`}>
          <span className="muted">Error budget remaining</span>
          <strong>{percent(slo.error_budget_remaining)}</strong>
        </div>
        <div className="alerts-stat">
          <span className="muted">Good / total ({days} d)</span>
          <strong>
            {slo.good_count.toLocaleString('en-US')} / {slo.total_count.toLocaleString('en-US')}
          </strong>
        </div>
      </div>
      {days < slo.window_days ? (
        <p className="field-hint field-warn">
          The plan keeps {days} days of data: this SLO counts the last {days} days, not its window of {slo.window_days}.
        </p>
      ) : null}
      {slo.total_count === 0 ? <p className="muted">Nothing counted in the window yet: the total query matches no rows of the last {days} days.</p> : null}
      <BurnRate org={org} project={project} slo={slo} />
      <p className="field-hint mono">
        good: {slo.good} · total: {slo.total}
      </p>
    </section>
  );
}

/** The project's SLOs: each one's current percentage, error budget remaining and burn rate over time; create, edit and delete. */
export default function SlosPage() {
  const { org = '', project = '' } = useParams();
  const slos = useSlos(org, project);
  const mutations = useSloMutations(org, project);
  const [editing, setEditing] = useState<Slo>();
  const [deleting, setDeleting] = useState<Slo>();

  return (
    <>
      <h1>SLOs</h1>
      <p className="muted alerts-intro">
        A service level objective is the share of good events among all events, over a window of days, that should stay at or above its target.
      </p>
      {slos.isPending ? (
        <Loading what="SLOs" />
      ) : slos.isError ? (
        <ErrorNotice error={slos.error} next="Reload the page; if it persists, check that the server is running." />
      ) : slos.data.length === 0 ? (
        <EmptyState title="No SLOs yet">
          <p>Create one below from two GQL counts: the good events and all of them.</p>
        </EmptyState>
      ) : (
        slos.data.map((slo) => <SloPanel key={slo.id} org={org} project={project} slo={slo} onEdit={() => setEditing(slo)} onDelete={() => setDeleting(slo)} />)
      )}
      <section className="panel" aria-labelledby="new-slo">
        <h2 id="new-slo" className="panel-title">
          New SLO
        </h2>
        <SloForm
          submitLabel="Create SLO"
          saving={mutations.create.isPending}
          error={mutations.create.error}
          onSubmit={(values, reset) => mutations.create.mutate(values, { onSuccess: reset })}
        />
      </section>
      <Dialog open={Boolean(editing)} title={editing ? `Edit ${editing.name}` : 'Edit SLO'} onClose={() => setEditing(undefined)}>
        {editing ? (
          <SloForm
            slo={editing}
            submitLabel="Save SLO"
            saving={mutations.update.isPending}
            error={mutations.update.error}
            onSubmit={(values) => mutations.update.mutate({ id: editing.id, changes: values }, { onSuccess: () => setEditing(undefined) })}
            onCancel={() => setEditing(undefined)}
          />
        ) : null}
      </Dialog>
      <ConfirmDialog
        open={Boolean(deleting)}
        title={deleting ? `Delete SLO "${deleting.name}"?` : 'Delete SLO?'}
        confirm="Delete SLO"
        busy={mutations.remove.isPending}
        error={mutations.remove.isError ? mutations.remove.error : undefined}
        onConfirm={() => deleting && mutations.remove.mutate(deleting.id, { onSuccess: () => setDeleting(undefined) })}
        onClose={() => setDeleting(undefined)}
      >
        <p>The SLO is removed; the events it counted stay.</p>
      </ConfirmDialog>
    </>
  );
}
