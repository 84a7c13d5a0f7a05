import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiError } from '../../api/client';
import { useMe } from '../../api/hooks';
import { Dialog } from '../../components/Dialog';
import { ErrorNotice, Loading } from '../../components/States';
import { useChangePassword, useDeleteAccount } from './hooks';
import { NewPasswordField } from '../auth/CredentialFields';
import './account.css';

/** The signed-in person's account: who they are, their password, and deleting the account. */
export default function AccountPage() {
  const me = useMe();
  if (me.isPending) return <Loading what="your account" />;
  if (me.isError) return <ErrorNotice error={me.error} next="Reload the page, or log in again." />;
  return (
    <>
      <h1>Your account</h1>
      <section className="panel" aria-labelledby="account-profile">
        <h2 id="account-profile" className="panel-title">
          Profile
        </h2>
        <dl className="account-facts">
          <dt>Name</dt>
          <dd>{me.data.name ?? <span className="muted">no name</span>}</dd>
          <dt>Email</dt>
          <dd>{me.data.email}</dd>
          <dt>Organizations</dt>
          <dd>
            {me.data.organizations.map((organization, index) => (
              <span key={organization.id}>
                {index > 0 ? ', ' : null}
                <Link to={`/orgs/${organization.id}/settings`}>{organization.name}</Link> <span className="muted">({organization.role})</span>
              </span>
            ))}
          </dd>
        </dl>
      </section>
      <ChangePassword />
      <DeleteAccount email={me.data.email} />
    </>
  );
}

function ChangePassword() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const change = useChangePassword();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    change.mutate(
      { current_password: current, new_password: next },
      {
        onSuccess: () => {
          setCurrent('');
          setNext('');
        },
      },
    );
  };
  const wrongPassword = change.error instanceof ApiError && change.error.details?.['reason'] === 'wrong_password';
  return (
    <section className="panel" aria-labelledby="account-password">
      <h2 id="account-password" className="panel-title">
        Change password
      </h2>
      <form onSubmit={submit} className="narrow-form">
        <label className="field">
          <span>Current password</span>
          <input type="password" autoComplete="current-password" required value={current} onChange={(event) => setCurrent(event.target.value)} />
        </label>
        <NewPasswordField label="New password" hintId="new-password-hint" value={next} onChange={setNext}>
          At least 8 characters. Every other browser and device signed in to your account is logged out; this one stays logged in.
        </NewPasswordField>
        {change.isError ? (
          <ErrorNotice error={change.error} next={wrongPassword ? 'Type your current password again, or log out and use "Forgot password?".' : undefined} />
        ) : null}
        {change.isSuccess ? (
          <p className="state state-ok" role="status">
            Password changed. Your other sessions are logged out.
          </p>
        ) : null}
        <button type="submit" className="button button-primary" disabled={change.isPending}>
          {change.isPending ? 'Changing…' : 'Change password'}
        </button>
      </form>
    </section>
  );
}

function DeleteAccount({ email }: { email: string }) {
  const [mode, setMode] = useState<'soft' | 'immediate' | null>(null);
  const [typed, setTyped] = useState('');
  const remove = useDeleteAccount();
  const navigate = useNavigate();
  const close = () => {
    setMode(null);
    setTyped('');
    remove.reset();
  };
  const confirm = () =>
    remove.mutate(mode === 'immediate', {
      onSuccess: (answer) => navigate(`/login?${answer.immediate ? 'deleted=1' : 'deactivated=1'}`, { replace: true }),
    });
  return (
    <section className="panel danger-zone" aria-labelledby="account-delete">
      <h2 id="account-delete" className="panel-title">
        Delete account
      </h2>
      <p>
        <strong>Delete</strong> deactivates your account at once: you are logged out, and organizations that no other active owner has stop
        working, their API keys included. Organizations you share with another owner go on without you.
      </p>
      <p>
        <strong>Restoring</strong>: for 30 days, logging in with your email and password brings everything back as it was: your organizations,
        projects, API keys, team members and plan, and the logs and events still inside their retention. Nobody else can sign up with your email
        meanwhile. After 30 days the account and what only you owned are removed for good.
      </p>
      <p>
        <strong>Delete now</strong> removes your account, the organizations only you own with their projects, keys, events, logs, alert rules and AI
        conversations, at once and for good. Your email can then sign up again as a new account.
      </p>
      <div className="row">
        <button type="button" className="button button-danger" onClick={() => setMode('soft')}>
          Delete account…
        </button>
        <button type="button" className="button button-danger" onClick={() => setMode('immediate')}>
          Delete now, for good…
        </button>
      </div>
      <Dialog open={mode !== null} title={mode === 'immediate' ? 'Delete your account for good?' : 'Delete your account?'} onClose={close}>
        {mode === 'immediate' ? (
          <>
            <p>This cannot be undone. To confirm, type your email address.</p>
            <label className="field">
              <span>Your email</span>
              <input type="email" value={typed} onChange={(event) => setTyped(event.target.value)} />
            </label>
          </>
        ) : (
          <p>You can restore it for 30 days by logging in again with your email and password.</p>
        )}
        {remove.isError ? <ErrorNotice error={remove.error} next="Try again, or reload the page." /> : null}
        <div className="row dialog-actions">
          <button
            type="button"
            className="button button-danger"
            disabled={remove.isPending || (mode === 'immediate' && typed.trim().toLowerCase() !== email.toLowerCase())}
            onClick={confirm}
          >
            {remove.isPending ? 'Deleting…' : mode === 'immediate' ? 'Delete for good' : 'Delete account'}
          </button>
          <button type="button" className="button" onClick={close}>
            Cancel
          </button>
        </div>
      </Dialog>
    </section>
  );
}
