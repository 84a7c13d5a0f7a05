import type { Invitation, Role } from '@tlm/api-schemas';
import { useId, useState, type FormEvent } from 'react';
import { CopyButton } from '../../components/CopyButton';
import { RelativeTime } from '../../components/RelativeTime';
import { EmptyState, ErrorNotice, Loading } from '../../components/States';
import { useInvitations, useInvite, useRevokeInvitation } from './hooks';

/** Owners invite people by e-mail, see the invitations not yet accepted, send them again and revoke them. */
export function Invitations({ org }: { org: string }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const roleId = useId();
  const invite = useInvite(org);
  const invitations = useInvitations(org, true);
  const revoke = useRevokeInvitation(org);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    // The message below names the address, mailed or not, so the field is ready for the next one.
    invite.mutate({ email: email.trim(), role }, { onSuccess: () => setEmail('') });
  };
  const resend = (invitation: Invitation) => invite.mutate({ email: invitation.email, role: invitation.role });
  const sent = invite.data;
  return (
    <section className="panel" aria-labelledby="org-invitations">
      <h2 id="org-invitations" className="panel-title">
        Invitations
      </h2>
      <form onSubmit={submit} className="inline-form">
        <label className="field">
          <span>Email address</span>
          <input type="email" required maxLength={320} value={email} onChange={(event) => setEmail(event.target.value)} />
        </label>
        <div className="field invite-role">
          <label htmlFor={roleId}>Role</label>
          <select id={roleId} value={role} onChange={(event) => setRole(event.target.value as Role)}>
            <option value="member">member</option>
            <option value="owner">owner</option>
          </select>
        </div>
        <button type="submit" className="button button-primary" disabled={invite.isPending || !email.trim()}>
          {invite.isPending ? 'Sending…' : 'Send invitation'}
        </button>
      </form>
      <p className="field-hint">
        The invitation link works once and for 7 days. A new address signs up from it; an address that has an account logs in and accepts. Inviting
        an address again replaces its earlier link.
      </p>
      {invite.isError ? <ErrorNotice error={invite.error} next="Check the address and try again." /> : null}
      {sent?.mailed ? (
        <p className="state state-ok" role="status">
          Invitation mailed to {sent.invitation.email}.
        </p>
      ) : null}
      {sent && !sent.mailed ? (
        <div className="state state-warn" role="status">
          <p>
            The invitation to {sent.invitation.email} was not mailed: {sent.mail_error}. Send them this link yourself; it works once and for 7
            days:
          </p>
          <div className="row">
            <code className="invite-link">{sent.accept_url}</code>
            <CopyButton text={sent.accept_url ?? ''} label="Copy link" />
          </div>
        </div>
      ) : null}

      <h3>Pending</h3>
      {invitations.isPending ? (
        <Loading what="the invitations" />
      ) : invitations.isError ? (
        <ErrorNotice error={invitations.error} next="Reload the page." />
      ) : invitations.data.length === 0 ? (
        <EmptyState title="No pending invitations">
          <p>Invite someone above; their invitation shows here until they accept it.</p>
        </EmptyState>
      ) : (
        <table className="grid" aria-label="Pending invitations">
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Invited by</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {invitations.data.map((invitation) => (
              <tr key={invitation.id}>
                <td>{invitation.email}</td>
                <td>{invitation.role}</td>
                <td>{invitation.invited_by ?? <span className="muted">a former member</span>}</td>
                <td>{invitation.expired ? <span className="badge badge-warn">expired</span> : <RelativeTime iso={invitation.expires_at} />}</td>
                <td>
                  <div className="row">
                    <button type="button" className="button button-small" disabled={invite.isPending} onClick={() => resend(invitation)}>
                      Send again<span className="visually-hidden"> to {invitation.email}</span>
                    </button>
                    <button
                      type="button"
                      className="button button-small button-danger"
                      disabled={revoke.isPending}
                      onClick={() => revoke.mutate(invitation.id)}
                    >
                      Revoke<span className="visually-hidden"> the invitation of {invitation.email}</span>
                    </button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {revoke.isError ? <ErrorNotice error={revoke.error} next="Reload the page: it may have been accepted or revoked already." /> : null}
    </section>
  );
}
