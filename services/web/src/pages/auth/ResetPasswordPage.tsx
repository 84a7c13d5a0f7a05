import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiError } from '../../api/client';
import { ErrorNotice } from '../../components/States';
import { AuthBrand } from './AuthBrand';
import { LINK_REFUSALS, useConfirmPasswordReset, useLinkToken } from './links';
import { NewPasswordField } from './CredentialFields';

/** Where a reset mail's link leads: a new password, which logs out every other session and logs in here. */
export default function ResetPasswordPage() {
  const token = useLinkToken();
  const [password, setPassword] = useState('');
  const confirm = useConfirmPasswordReset(token);
  const navigate = useNavigate();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    confirm.mutate(password, { onSuccess: () => navigate('/', { replace: true }) });
  };
  const reason = confirm.error instanceof ApiError && confirm.error.status === 404 ? String(confirm.error.details?.['reason'] ?? 'unknown') : null;
  return (
    <main className="auth">
      <div className="auth-card">
        <AuthBrand />
        <h1>Choose a new password</h1>
        {!token ? (
          <ErrorNotice error={new Error('This page opens from the link in a password reset mail, and the link is incomplete')} next={<Link to="/forgot-password">Ask for a new link</Link>} />
        ) : reason ? (
          <div className="state state-error" role="alert">
            <p>{LINK_REFUSALS[reason] ?? confirm.error!.message}</p>
            <p>
              <Link to="/forgot-password">Ask for a new link</Link>
            </p>
          </div>
        ) : (
          <form onSubmit={submit}>
            <NewPasswordField label="New password" hintId="reset-password-hint" value={password} onChange={setPassword}>
              At least 8 characters. Every browser and device signed in to your account is logged out.
            </NewPasswordField>
            {confirm.isError ? <ErrorNotice error={confirm.error} /> : null}
            <button type="submit" className="button button-primary auth-submit" disabled={confirm.isPending}>
              {confirm.isPending ? 'Saving…' : 'Set password and log in'}
            </button>
          </form>
        )}
      </div>
    </main>
  );
}
