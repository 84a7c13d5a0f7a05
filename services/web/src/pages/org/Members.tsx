import type { Member, Role } from '@tlm/api-schemas';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { ApiError } from '../../api/client';
import { afterSuccess } from '../../api/hooks';
import { Dialog } from '../../components/Dialog';
import { RelativeTime } from '../../components/RelativeTime';
import { ErrorNotice, Loading } from '../../components/States';
import { useChangeRole, useMembers, useRemoveMember } from './hooks';

const LAST_OWNER_NEXT = 'Make another member an owner first: an organization always keeps at least one owner.';

/** In place of "Leave" on the sole owner's row. */
const ONLY_OWNER = 'The only owner: make another member an owner to leave.';

/** What to do after a refused change: a 409 here is the last-owner rule. */
const nextStep = (error: unknown) => (error instanceof ApiError && error.status === 409 ? LAST_OWNER_NEXT : 'Reload the page and try again.');

export function Members({ org, me, isOwner }: { org: string; me: string; isOwner: boolean }) {
  const members = useMembers(org);
  const changeRole = useChangeRole(org);
  const remove = useRemoveMember(org);
  const navigate = useNavigate();
  const [removing, setRemoving] = useState<Member | null>(null);
  const leaving = removing?.user_id === me;
  // The server refuses to remove or demote the last owner (409); the sole owner is not offered to leave.
  const owners = members.data?.filter((member) => member.role === 'owner').length ?? 0;
  return (
    <section className="panel" aria-labelledby="org-members">
      <h2 id="org-members" className="panel-title">
        Members
      </h2>
      <p className="muted">
        Owners manage members, invitations and the organization's data; members use its projects and keys.{isOwner ? null : ' Ask an owner to change roles.'}
      </p>
      {members.isPending ? (
        <Loading what="the members" />
      ) : members.isError ? (
        <ErrorNotice error={members.error} next="Reload the page." />
      ) : (
        <table className="grid" aria-label="Members">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Joined</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {members.data.map((member) => (
              <tr key={member.user_id}>
                <td>
                  {member.name ?? <span className="muted">no name</span>}
                  {member.user_id === me ? <span className="muted"> (you)</span> : null}
                </td>
                <td>{member.email}</td>
                <td>
                  {isOwner ? (
                    <select
                      aria-label={`Role of ${member.email}`}
                      value={changeRole.isPending && changeRole.variables?.userId === member.user_id ? changeRole.variables.role : member.role}
                      disabled={changeRole.isPending}
                      onChange={(event) => changeRole.mutate({ userId: member.user_id, role: event.target.value as Role })}
                    >
                      <option value="owner">owner</option>
                      <option value="member">member</option>
                    </select>
                  ) : (
                    <span className={member.role === 'owner' ? 'badge badge-ok' : 'badge'}>{member.role}</span>
                  )}
                </td>
                <td>
                  <RelativeTime iso={member.joined_at} />
                </td>
                <td>
                  {member.user_id === me && member.role === 'owner' && owners === 1 ? (
                    <span className="muted">{ONLY_OWNER}</span>
                  ) : isOwner || member.user_id === me ? (
                    <button type="button" className="button button-small button-danger" onClick={() => setRemoving(member)}>
                      {member.user_id === me ? 'Leave' : 'Remove'}
                      <span className="visually-hidden"> {member.email}</span>
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {changeRole.isError ? <ErrorNotice error={changeRole.error} next={nextStep(changeRole.error)} /> : null}
      <Dialog
        open={removing !== null}
        title={leaving ? 'Leave this organization?' : `Remove ${removing?.name ?? removing?.email ?? ''}?`}
        onClose={() => {
          setRemoving(null);
          remove.reset();
        }}
      >
        <p>
          {leaving
            ? 'You lose access to its projects at once. An owner can invite you again.'
            : `${removing?.email} loses access to the organization's projects at once. You can invite them again later.`}
        </p>
        {remove.isError ? <ErrorNotice error={remove.error} next={nextStep(remove.error)} /> : null}
        <div className="row dialog-actions">
          <button
            type="button"
            className="button button-danger"
            disabled={remove.isPending}
            onClick={() =>
              afterSuccess(remove.mutateAsync(removing!.user_id), () => {
                setRemoving(null);
                if (leaving) navigate('/');
              })
            }
          >
            {remove.isPending ? 'Removing…' : leaving ? 'Leave organization' : 'Remove member'}
          </button>
          <button type="button" className="button" onClick={() => setRemoving(null)}>
            Cancel
          </button>
        </div>
      </Dialog>
    </section>
  );
}
