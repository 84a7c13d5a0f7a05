import type { QuotaDetails } from '../api/types';
import { ApiError } from '../api/client';
import { Dialog } from './Dialog';

/** The details of a 402 QUOTA_EXCEEDED answer, or undefined for any other error. */
export function quotaDetails(error: unknown): QuotaDetails | undefined {
  if (!(error instanceof ApiError) || error.status !== 402 || !error.details) return undefined;
  const details = error.details as Partial<QuotaDetails>;
  return {
    limit: Number(details.limit ?? 0),
    used: Number(details.used ?? 0),
    plan: details.plan ?? 'free',
    upgrade: Array.isArray(details.upgrade) ? details.upgrade : [],
  };
}

/**
 * A plan limit was reached: how many the plan allows, how many are in use, which plans allow more. Plans are set by
 * the operator of the deployment, so the way out is to ask them (or, for a restore, to go past the limit).
 */
export function QuotaDialog({
  details,
  what,
  title,
  onClose,
  onForce,
  forceLabel = 'Restore anyway',
  forcing = false,
}: {
  details: QuotaDetails | undefined;
  what: string;
  title?: string;
  onClose: () => void;
  onForce?: () => void;
  forceLabel?: string;
  forcing?: boolean;
}) {
  return (
    <Dialog open={Boolean(details)} title={title ?? `Your plan's ${what} limit is reached`} onClose={onClose}>
      {details ? (
        <>
          <p>
            The <strong>{details.plan}</strong> plan allows <strong>{details.limit}</strong> {what}; <strong>{details.used}</strong> are in use.
          </p>
          {details.upgrade.length > 0 ? (
            <p>
              Plans that allow more: {details.upgrade.map((plan, index) => (
                <span key={plan}>
                  {index > 0 ? ', ' : ''}
                  <span className="badge">{plan}</span>
                </span>
              ))}
              . The plan is set by the operator of this deployment: ask them to move your organization to one of these, or delete
              {` ${what}`} you no longer use.
            </p>
          ) : (
            <p>No plan allows more. Delete {what} you no longer use.</p>
          )}
          <div className="row dialog-actions">
            {onForce ? (
              <button type="button" className="button button-primary" onClick={onForce} disabled={forcing}>
                {forceLabel}
              </button>
            ) : null}
            <button type="button" className="button" onClick={onClose}>
              Close
            </button>
          </div>
        </>
      ) : null}
    </Dialog>
  );
}
