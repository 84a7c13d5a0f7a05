import type { AlertRule } from '@tlm/api-schemas';
import { useNow } from '../../components/RelativeTime';
import { STATUS_BADGE, ruleStatus } from './status';

/** The rule's status as a badge: firing, ok, pending (not evaluated yet), muted (until when) or disabled. */
export function StatusBadge({ rule }: { rule: AlertRule }) {
  const now = useNow(30_000);
  const status = ruleStatus(rule, now);
  const title =
    status === 'muted' ? `muted until ${new Date(rule.muted_until!).toLocaleString()}` : status === 'pending' ? 'not evaluated yet: the evaluator reads it on its next pass' : undefined;
  return (
    <span className={STATUS_BADGE[status]} title={title} data-status={status}>
      {status}
    </span>
  );
}
