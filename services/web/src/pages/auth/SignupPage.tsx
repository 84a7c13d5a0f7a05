import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ApiError } from '../../api/client';
import { ErrorNotice } from '../../components/States';
import { AuthBrand } from './AuthBrand';
import { CredentialFields } from './CredentialFields';
import { useRestoreAccount, useSignup } from './hooks';

export default function SignupPage() {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [params] = useSearchParams();
  const signup = useSignup();
  const restore = useRestoreAccount();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    restore.reset();
    signup.mutate({ email: email.trim(), password, ...(name.trim() ? { name: name.trim() } : {}) });
  };
  // An email held by an account deleted less than 30 days ago: offer to bring that account back instead.
  const canRestore = signup.error instanceof ApiError && signup.error.status === 409 && signup.error.details?.restore === true;
  const next = params.get('next');
  return (
    <main className="auth">
      <div className="auth-card">
        <AuthBrand />
        <h1>Sign up</h1>
        <form onSubmit={submit}>
          <label className="field">
            <span>Name</span>
            <input type="text" name="name" autoComplete="name" value={name} onChange={(event) => setName(event.target.value)} />
          </label>
          <CredentialFields email={email} onEmail={setEmail} password={password} onPassword={setPassword} newPassword />
          {signup.isError && !canRestore ? (
            <ErrorNotice
              error={signup.error}
              next={signup.error instanceof ApiError && signup.error.status === 409 ? <>This email has an account: <Link to="/login">log in</Link> instead.</> : undefined}
            />
          ) : null}
          {canRestore ? (
            <div className="state state-warn" role="alert">
              <p>
                An account with this email was deleted less than 30 days ago. Restore it, with its organizations and projects, using the password
                above?
              </p>
              {restore.isError ? <ErrorNotice error={restore.error} next="A deleted account can be restored for 30 days with its own password." /> : null}
              <div className="row">
                <button type="button" className="button button-primary" disabled={restore.isPending} onClick={() => restore.mutate({ email: email.trim(), password })}>
                  {restore.isPending ? 'Restoring…' : 'Restore account'}
                </button>
                <button type="button" className="button" onClick={() => signup.reset()}>
                  Use another email
                </button>
              </div>
            </div>
          ) : null}
          {canRestore ? null : (
            <button type="submit" className="button button-primary auth-submit" disabled={signup.isPending}>
              {signup.isPending ? 'Creating your account…' : 'Sign up'}
            </button>
          )}
        </form>
        <p className="auth-switch">
          Already have an account? <Link to={next ? `/login?next=${encodeURIComponent(next)}` : '/login'}>Log in</Link>
        </p>
      </div>
    </main>
  );
}
