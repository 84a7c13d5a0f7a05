import { useState } from 'react';
import { useParams } from 'react-router';
import { useApiKeys, useProject } from '../../api/hooks';
import type { ApiKey, CreatedKey, QuotaDetails } from '../../api/types';
import { ConfirmDialog } from '../../components/Dialog';
import { QuotaDialog, quotaDetails } from '../../components/QuotaDialog';
import { RecentlyDeleted } from '../../components/RecentlyDeleted';
import { RelativeTime } from '../../components/RelativeTime';
import { EmptyState, ErrorNotice, Loading } from '../../components/States';
import { useFocusRequest } from '../../components/useFocusRequest';
import { CreatedKeyDialog } from './CreatedKeyDialog';
import { CreateKeyForm } from './CreateKeyForm';
import { useKeyMutations } from './hooks';

export default function KeysPage() {
  const { org = '', project = '' } = useParams();
  const projectQuery = useProject(org, project);
  const list = useApiKeys(org, project);
  const mutations = useKeyMutations(org, project);
  const [created, setCreated] = useState<CreatedKey>();
  const [replacing, setReplacing] = useState<ApiKey>();
  const [deleting, setDeleting] = useState<ApiKey>();
  const [revoking, setRevoking] = useState<ApiKey>();
  const [rotating, setRotating] = useState<ApiKey>();
  // A row's buttons change with its key's status, and dialogs close over buttons that are gone: focus is put back on
  // the key's row, or on the create form's name.
  const focusNext = useFocusRequest(true, list.data);
  const keyRow = (id: string) => `[data-key-id="${id}"] button`;
  const [quota, setQuota] = useState<QuotaDetails>();

  // Rotation: a new key of the same name, type and scopes, shown once; the old one keeps working until it is revoked
  // (from the new key's dialog, or later), so apps can move to the new one without losing data.
  const rotate = (key: ApiKey) =>
    mutations.rotate.mutate(
      { name: key.name, type: key.type, scopes: key.scopes },
      {
        onSuccess: (next) => {
          // The dialog's revoke starts afresh: a refusal in the list belongs to another key.
          mutations.revoke.reset();
          setReplacing(key);
          setCreated(next);
        },
        onError: (error) => setQuota(quotaDetails(error)),
      },
    );
  const closeCreated = () => {
    // Done closes the dialog, and the dialog's own close event calls this again once it is gone: that second call,
    // with nothing replaced any more, must not send the focus to the create form instead of the old key's row.
    if (!created) return;
    focusNext(replacing ? [keyRow(replacing.id)] : ['.keys-create input[type="text"]']);
    setCreated(undefined);
    setReplacing(undefined);
  };

  const actionError = [mutations.revoke, mutations.unrevoke, mutations.remove].find((mutation) => mutation.isError)?.error;
  const rotateError = mutations.rotate.isError && !quotaDetails(mutations.rotate.error) ? mutations.rotate.error : undefined;
  return (
    <>
      <h1>API keys{projectQuery.data ? <span className="muted"> · {projectQuery.data.name}</span> : null}</h1>
      <p className="muted">
        Public keys (<code>tlm_pk_…</code>) go into browsers and apps and can only send data; secret keys (<code>tlm_sk_…</code>) are for servers and
        scripts. A key's value is shown once, when it is created.
      </p>
      <section className="panel" aria-labelledby="keys-list">
        <h2 id="keys-list" className="panel-title">
          Keys
        </h2>
        {list.isPending ? (
          <Loading what="API keys" />
        ) : list.isError ? (
          <ErrorNotice error={list.error} next="Reload the page; if the project was deleted, restore it from the Projects page." />
        ) : list.data.length === 0 ? (
          <EmptyState title="This project has no keys">
            <p>Create a key below: a public key for browsers and apps, a secret key for servers.</p>
          </EmptyState>
        ) : (
          <table className="grid grid-stack">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Scopes</th>
                <th scope="col">Key</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((key) => (
                <tr key={key.id} data-key-id={key.id}>
                  <td data-label="Name">{key.name}</td>
                  <td data-label="Type">{key.type}</td>
                  <td data-label="Scopes">
                    <span>
                      {key.scopes.map((scope) => (
                        <code key={scope} className="scope">
                          {scope}
                        </code>
                      ))}
                    </span>
                  </td>
                  <td className="mono" data-label="Key">{key.prefix}…</td>
                  <td data-label="Created">
                    <RelativeTime iso={key.created_at} />
                  </td>
                  <td data-label="Last used">
                    <RelativeTime iso={key.last_used_at} />
                  </td>
                  <td data-label="Status">
                    <span className={`badge ${key.status === 'active' ? 'badge-ok' : 'badge-warn'}`}>{key.status}</span>
                  </td>
                  <td>
                    <div className="row nowrap">
                      {key.status === 'revoked' ? (
                        <button type="button" className="button button-small" disabled={mutations.unrevoke.isPending} onClick={() => mutations.unrevoke.mutate(key.id, { onSuccess: () => focusNext([keyRow(key.id)]) })} aria-label={`Unrevoke ${key.name}`}>
                          Unrevoke
                        </button>
                      ) : (
                        <>
                          <button
                            type="button"
                            className="button button-small"
                            disabled={mutations.rotate.isPending}
                            onClick={() => setRotating(key)}
                            aria-label={`Rotate ${key.name}`}
                            title="Create a new key of the same name, type and scopes; the old one works until you revoke it"
                          >
                            Rotate
                          </button>
                          <button type="button" className="button button-small" disabled={mutations.revoke.isPending} onClick={() => setRevoking(key)} aria-label={`Revoke ${key.name}`}>
                            Revoke
                          </button>
                        </>
                      )}
                      <button type="button" className="button button-small button-danger" onClick={() => setDeleting(key)} aria-label={`Delete ${key.name}`}>
                        Delete
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {actionError ? <ErrorNotice error={actionError} next="Reload the page and try again." /> : null}
        {rotateError ? <ErrorNotice error={rotateError} next="No key was created; the old one still works." /> : null}
      </section>
      <section className="panel keys-create">
        <CreateKeyForm create={mutations.create} onCreated={setCreated} />
      </section>
      <DeletedKeys org={org} project={project} mutations={mutations} />
      <CreatedKeyDialog created={created} onClose={closeCreated}>
        {replacing ? <OldKey key={replacing.id} old={replacing} revoke={mutations.revoke} /> : null}
      </CreatedKeyDialog>
      <QuotaDialog details={quota} what="API keys" title="Key limit reached" onClose={() => setQuota(undefined)} />
      <ConfirmDialog
        open={Boolean(rotating)}
        title={rotating ? `Rotate key "${rotating.name}"?` : 'Rotate key?'}
        confirm="Rotate key"
        danger={false}
        busy={mutations.rotate.isPending}
        onConfirm={() => {
          if (rotating) rotate(rotating);
          setRotating(undefined);
        }}
        onClose={() => setRotating(undefined)}
      >
        <p>
          A new key of the same name, type and scopes is made and shown once. The old one ({rotating?.prefix}…) keeps working until you revoke it, so apps can
          move to the new one first. The new key counts against the plan's keys.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={Boolean(revoking)}
        title={revoking ? `Revoke key "${revoking.name}"?` : 'Revoke key?'}
        confirm="Revoke key"
        busy={mutations.revoke.isPending}
        onConfirm={() =>
          revoking &&
          mutations.revoke.mutate(revoking.id, {
            onSuccess: () => {
              setRevoking(undefined);
              focusNext([keyRow(revoking.id)]);
            },
          })
        }
        onClose={() => setRevoking(undefined)}
      >
        <p>
          Requests with this key ({revoking?.prefix}…) are refused at once: apps and SDKs that send with it lose their data until they have another key. It
          stays in the list, where Unrevoke makes it work again.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={Boolean(deleting)}
        title={deleting ? `Delete key "${deleting.name}"?` : 'Delete key?'}
        confirm="Delete key"
        busy={mutations.remove.isPending}
        onConfirm={() =>
          deleting &&
          mutations.remove.mutate(deleting.id, {
            onSuccess: () => {
              // The row goes: the focus moves to the next key's row (the one before for the last), else to the deleted
              // key's Restore below.
              const keys = list.data ?? [];
              const at = keys.findIndex((key) => key.id === deleting.id);
              const neighbour = keys[at + 1] ?? keys[at - 1];
              focusNext([...(neighbour ? [keyRow(neighbour.id)] : []), `[data-deleted-id="${deleting.id}"] button`]);
              setDeleting(undefined);
            },
          })
        }
        onClose={() => setDeleting(undefined)}
      >
        <p>Requests with this key are refused at once. It stays under "Recently deleted" for 30 days, where it can be restored.</p>
      </ConfirmDialog>
    </>
  );
}

function DeletedKeys({ org, project, mutations }: { org: string; project: string; mutations: ReturnType<typeof useKeyMutations> }) {
  const deleted = useApiKeys(org, project, true);
  return (
    <RecentlyDeleted
      what="keys"
      list={deleted}
      empty="No key was deleted in the last 30 days. Deleted keys stay here for 30 days and can be restored."
      columns={[
        { header: 'Type', cell: (key) => key.type },
        { header: 'Key', cell: (key) => `${key.prefix}…`, className: 'mono' },
      ]}
      restore={mutations.restore}
      variables={(key, force) => ({ id: key.id, force })}
      quotaWhat="API keys"
      quotaTitle={(key) => (key ? `Restoring "${key.name}" goes past the key limit` : 'Key limit reached')}
    />
  );
}

/** In the new key's dialog after a rotation: the key it replaces, still working, and the way to revoke it now. */
function OldKey({ old, revoke }: { old: ApiKey; revoke: ReturnType<typeof useKeyMutations>['revoke'] }) {
  const [revoked, setRevoked] = useState(false);
  return (
    <div className="rotation">
      {revoked ? (
        <p role="status">
          The old key <code>{old.prefix}…</code> is revoked: requests with it are refused. Unrevoke it from the list if an app still needs it.
        </p>
      ) : (
        <>
          <p>
            The old key <code>{old.prefix}…</code> still works, so your apps keep sending while you give them the new one. Revoke it once they use the
            new key, here or later from the list.
          </p>
          {revoke.isError ? <ErrorNotice error={revoke.error} next="The old key still works; try again." /> : null}
          <button type="button" className="button button-danger" disabled={revoke.isPending} onClick={() => revoke.mutate(old.id, { onSuccess: () => setRevoked(true) })}>
            Revoke the old key now
          </button>
        </>
      )}
    </div>
  );
}
