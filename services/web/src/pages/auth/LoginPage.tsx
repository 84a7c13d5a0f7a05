import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ApiError } from '../../api/client';
import { ErrorNotice } from '../../components/States';
import { AuthBrand } from './AuthBrand';
import { CredentialFields } from './CredentialFields';
import { useLogin } from './hooks';

export default function LoginPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [params] = useSearchParams();
  const login = useLogin();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    login.mutate({ email: email.trim(), password });
  };
  const next = params.get('next');
  return (
    <main className="auth">
      <div className="auth-card">
        <AuthBrand />
        <h1>Log in</h1>
        {params.get('deactivated') ? (
          <p className="state state-ok" role="status">
            Your account is deleted. Log in again within 30 days to restore it with everything it had.
          </p>
        ) : null}
        {params.get('deleted') ? (
          <p className="state state-ok" role="status">
            Your account and its data are removed for good.
          </p>
        ) : null}
        <form onSubmit={submit}>
          <CredentialFields email={email} onEmail={setEmail} password={password} onPassword={setPassword} />
          <p className="auth-forgot">
            <Link to="/forgot-password">Forgot password?</Link>
          </p>
          {login.isError ? (
            <ErrorNotice
              error={login.error}
              next={login.error instanceof ApiError && login.error.status === 401 ? 'Check the email and password, or sign up.' : undefined}
            />
          ) : null}
          <button type="submit" className="button button-primary auth-submit" disabled={login.isPending}>
            {login.isPending ? 'Logging in…' : 'Log in'}
          </button>
        </form>
        <p className="auth-switch">
          No account yet? <Link to={next ? `/signup?next=${encodeURIComponent(next)}` : '/signup'}>Sign up</Link>
        </p>
      </div>
    </main>
  );
}
