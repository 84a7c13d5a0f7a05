import { useState, type FormEvent } from 'react';
import type { CreatedKey, QuotaDetails, Scope } from '../../api/types';
import { QuotaDialog, quotaDetails } from '../../components/QuotaDialog';
import { ErrorNotice } from '../../components/States';
import type { useKeyMutations } from './hooks';
import { PUBLIC_SCOPES, SCOPES } from './scopes';

/** Name, type and scopes of a new key; public keys can only send data, so their only scope is ingest:write. */
export function CreateKeyForm({ create, onCreated }: { create: ReturnType<typeof useKeyMutations>['create']; onCreated: (key: CreatedKey) => void }) {
  const [name, setName] = useState('');
  const [type, setType] = useState<'public' | 'secret'>('secret');
  const [scopes, setScopes] = useState<Scope[]>(['*']);
  const [quota, setQuota] = useState<QuotaDetails>();
  const shown = type === 'public' ? SCOPES.filter((entry) => PUBLIC_SCOPES.includes(entry.scope)) : SCOPES;
  const chosen = type === 'public' ? PUBLIC_SCOPES : scopes;
  const all = chosen.includes('*');

  const toggle = (scope: Scope, on: boolean) =>
    setScopes((current) => (on ? [...current.filter((entry) => entry !== scope), scope] : current.filter((entry) => entry !== scope)));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      { name: name.trim(), type, scopes: all ? ['*'] : chosen },
      {
        onSuccess: (key) => {
          // The next key starts from the defaults: it never takes this one's scopes without anyone choosing them.
          setName('');
          setType('secret');
          setScopes(['*']);
          onCreated(key);
        },
        onError: (error) => setQuota(quotaDetails(error)),
      },
    );
  };

  return (
    <form onSubmit={submit} aria-labelledby="create-key">
      <h2 id="create-key" className="panel-title">
        Create key
      </h2>
      <label className="field">
        <span>Name</span>
        <input type="text" required maxLength={200} value={name} onChange={(event) => setName(event.target.value)} placeholder="checkout server" />
      </label>
      <fieldset className="fieldset">
        <legend>Type</legend>
        <label className="choice">
          <input type="radio" name="key-type" value="secret" checked={type === 'secret'} onChange={() => setType('secret')} />
          <span>
            <strong>Secret</strong> <span className="muted">for servers and scripts: keep it out of browsers and apps</span>
          </span>
        </label>
        <label className="choice">
          <input type="radio" name="key-type" value="public" checked={type === 'public'} onChange={() => setType('public')} />
          <span>
            <strong>Public</strong> <span className="muted">for browsers and apps (Sentry DSN, posthog-js): it can only send data</span>
          </span>
        </label>
      </fieldset>
      <fieldset className="fieldset">
        <legend>Scopes</legend>
        {shown.map(({ scope, description }) => {
          const locked = type === 'public' || (all && scope !== '*');
          return (
            <label className="choice" key={scope}>
              <input
                type="checkbox"
                value={scope}
                checked={chosen.includes(scope) || (all && scope !== '*')}
                disabled={locked}
                onChange={(event) => toggle(scope, event.target.checked)}
              />
              <span>
                <code>{scope}</code> <span className="muted">{description}</span>
              </span>
            </label>
          );
        })}
        {type === 'public' ? <p className="field-hint">Public keys may only hold ingest:write.</p> : null}
      </fieldset>
      {create.isError && !quotaDetails(create.error) ? <ErrorNotice error={create.error} next="Check the name and the scopes, then try again." /> : null}
      <button type="submit" className="button button-primary" disabled={create.isPending || !name.trim() || chosen.length === 0}>
        {create.isPending ? 'Creating…' : 'Create key'}
      </button>
      <QuotaDialog details={quota} what="API keys" title="Key limit reached" onClose={() => setQuota(undefined)} />
    </form>
  );
}
