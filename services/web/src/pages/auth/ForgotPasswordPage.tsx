import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { ApiError } from '../../api/client';
import { ErrorNotice } from '../../components/States';
import { AuthBrand } from './AuthBrand';
import { useRequestPasswordReset } from './links';

/** Asks for a password reset link by mail; the answer is the same whether or not the address has an account. */
export default function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const request = useRequestPasswordReset();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    request.mutate(email.trim());
  };
  const noMail = request.error instanceof ApiError && request.error.code === 'MAIL_NOT_CONFIGURED';
  return (
    <main className="auth">
      <div className="auth-card">
        <AuthBrand />
        <h1>Forgot password</h1>
        {request.isSuccess ? (
          <div className="state state-ok" role="status">
            <p>If an account has the address {email.trim()}, a link to choose a new password is on its way. It works once, for one hour.</p>
            <p>No mail after a few minutes? Check the spam folder, or ask again.</p>
          </div>
        ) : (
          <form onSubmit={submit}>
            <p className="muted">Type the email address of your account; we mail it a link to choose a new password.</p>
            <label className="field">
              <span>Email</span>
              <input type="email" name="email" autoComplete="email" required value={email} onChange={(event) => setEmail(event.target.value)} />
            </label>
            {noMail ? (
              // Said in the visitor's terms: how the server is set up is its operator's business, not theirs.
              <div className="state state-warn" role="alert">
                <p>This server does not send email, so it cannot mail you a reset link.</p>
                <p>Ask whoever runs it to set a new password for you.</p>
              </div>
            ) : request.isError ? (
              <ErrorNotice error={request.error} />
            ) : null}
            <button type="submit" className="button button-primary auth-submit" disabled={request.isPending}>
              {request.isPending ? 'Sending…' : 'Send reset link'}
            </button>
          </form>
        )}
        <p className="auth-switch">
          Remembered it? <Link to="/login">Log in</Link>
        </p>
      </div>
    </main>
  );
}
