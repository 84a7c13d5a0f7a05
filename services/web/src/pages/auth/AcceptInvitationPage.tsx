import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiError } from '../../api/client';
import { ErrorNotice, Loading } from '../../components/States';
import { AuthBrand } from './AuthBrand';
import { LINK_REFUSALS, useAcceptInvitation, useInvitationPreview, useLinkToken, useLogoutHere, useSignedIn } from './links';
import { NewPasswordField } from './CredentialFields';

/**
 * Where an invitation mail's link leads: a new address signs up here (name and password) and joins; an address with
 * an account accepts once logged in as it.
 */
export default function AcceptInvitationPage() {
  const token = useLinkToken();
  const preview = useInvitationPreview(token);
  const signedIn = useSignedIn();
  const accept = useAcceptInvitation(token);
  const logout = useLogoutHere();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const joined = (orgId: string) => navigate(`/orgs/${orgId}/projects`, { replace: true });

  let body;
  if (!token) {
    body = <ErrorNotice error={new Error('This page opens from the link in an invitation mail, and the link is incomplete')} next="Open the link from the mail again." />;
  } else if (preview.isPending || signedIn.isPending) {
    body = <Loading what="the invitation" />;
  } else if (preview.isError) {
    const reason = preview.error instanceof ApiError ? String(preview.error.details?.['reason'] ?? '') : '';
    body = (
      <div className="state state-error" role="alert">
        <p>{LINK_REFUSALS[reason] ?? preview.error.message}</p>
        <p>Ask an owner of the organization to invite you again. {reason === 'used' ? <Link to="/login">Log in</Link> : null}</p>
      </div>
    );
  } else if (signedIn.isError) {
    body = <ErrorNotice error={signedIn.error} next="Reload the page." />;
  } else {
    const invitation = preview.data;
    const me = signedIn.data;
    const here = `/accept-invitation#token=${token}`;
    const summary = (
      <p>
        {invitation.invited_by ?? 'An owner'} invited <strong>{invitation.email}</strong> to join <strong>{invitation.organization.name}</strong> as{' '}
        {invitation.role === 'owner' ? 'an owner' : 'a member'}.
      </p>
    );
    if (me && me.email.toLowerCase() === invitation.email.toLowerCase()) {
      body = (
        <>
          {summary}
          {accept.isError ? <ErrorNotice error={accept.error} /> : null}
          <button
            type="button"
            className="button button-primary auth-submit"
            disabled={accept.isPending}
            onClick={() => accept.mutate({}, { onSuccess: (answer) => joined(answer.organization.id) })}
          >
            {accept.isPending ? 'Joining…' : `Join ${invitation.organization.name}`}
          </button>
        </>
      );
    } else if (me) {
      body = (
        <>
          {summary}
          <div className="state state-warn" role="alert">
            <p>
              You are logged in as {me.email}. Log out, then accept as {invitation.email}.
            </p>
            <button type="button" className="button" disabled={logout.isPending} onClick={() => logout.mutate(undefined, { onSettled: () => void signedIn.refetch() })}>
              Log out
            </button>
          </div>
        </>
      );
    } else if (invitation.account_exists) {
      body = (
        <>
          {summary}
          <p>This address has an account. Log in as {invitation.email} to accept.</p>
          <Link className="button button-primary auth-submit" to={`/login?next=${encodeURIComponent(here)}`}>
            Log in to accept
          </Link>
        </>
      );
    } else {
      const submit = (event: FormEvent) => {
        event.preventDefault();
        accept.mutate({ password, ...(name.trim() ? { name: name.trim() } : {}) }, { onSuccess: (answer) => joined(answer.organization.id) });
      };
      body = (
        <>
          {summary}
          <form onSubmit={submit}>
            <label className="field">
              <span>Email</span>
              <input type="email" value={invitation.email} readOnly />
            </label>
            <label className="field">
              <span>Name</span>
              <input type="text" name="name" autoComplete="name" maxLength={200} value={name} onChange={(event) => setName(event.target.value)} />
            </label>
            <NewPasswordField label="Password" hintId="invite-password-hint" value={password} onChange={setPassword}>
              At least 8 characters.
            </NewPasswordField>
            {accept.isError ? <ErrorNotice error={accept.error} /> : null}
            <button type="submit" className="button button-primary auth-submit" disabled={accept.isPending}>
              {accept.isPending ? 'Creating your account…' : 'Create account and join'}
            </button>
          </form>
        </>
      );
    }
  }
  return (
    <main className="auth">
      <div className="auth-card">
        <AuthBrand />
        <h1>Join an organization</h1>
        {body}
      </div>
    </main>
  );
}
