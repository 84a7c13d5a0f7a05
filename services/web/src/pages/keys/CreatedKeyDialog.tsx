import type { ReactNode } from 'react';
import type { CreatedKey } from '../../api/types';
import { Dialog } from '../../components/Dialog';
import { SecretValue } from '../../components/SecretValue';

/** The value of a new key, shown this once; public keys come with their Sentry DSN. `children` follow the key (a rotation's old key). */
export function CreatedKeyDialog({ created, onClose, children }: { created: CreatedKey | undefined; onClose: () => void; children?: ReactNode }) {
  return (
    <Dialog open={Boolean(created)} title={created ? `Key "${created.name}" created` : 'Key created'} onClose={onClose}>
      {created ? (
        <>
          <p className="state state-warn" role="note">
            Copy the key now: it is shown only this once and cannot be shown again. If you lose it, create a new key and delete this one.
          </p>
          <SecretValue label="API key" value={created.key} copyLabel="Copy key" />
          {created.dsn ? <SecretValue label="Sentry DSN" value={created.dsn} copyLabel="Copy DSN" hint="Give this to Sentry SDKs as their dsn." /> : null}
          <p className="muted">
            A {created.type} key with the scopes {created.scopes.join(', ')}; listed by its prefix <code>{created.prefix}…</code>
          </p>
          {children}
          <div className="row dialog-actions">
            <button type="button" className="button button-primary" onClick={onClose}>
              Done
            </button>
          </div>
        </>
      ) : null}
    </Dialog>
  );
}
