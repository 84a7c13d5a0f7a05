import { Link, useParams } from 'react-router';
import { useMe, useOrganization } from '../../api/hooks';
import { ErrorNotice, Loading } from '../../components/States';
import { DataRights } from './DataRights';
import { Invitations } from './Invitations';
import { Members } from './Members';
import './org.css';

/** The organization's settings: members and roles, invitations, the plan, and GDPR export and erasure. */
export default function OrganizationPage() {
  const { org = '' } = useParams();
  const me = useMe();
  const organization = useOrganization(org);
  if (me.isPending) return <Loading what="the organization" />;
  if (me.isError) return <ErrorNotice error={me.error} next="Reload the page." />;
  if (!organization) {
    return <ErrorNotice error={new Error('organization not found: you are not a member of it')} next={<Link to="/">Go to your projects</Link>} />;
  }
  const isOwner = organization.role === 'owner';
  return (
    <div className="org-page">
      <h1>
        Organization settings<span className="muted"> · {organization.name}</span>
      </h1>
      <Members org={org} me={me.data.id} isOwner={isOwner} />
      {isOwner ? <Invitations org={org} /> : null}
      <section className="panel" aria-labelledby="org-plan">
        <h2 id="org-plan" className="panel-title">
          Plan and usage
        </h2>
        <p>
          Plan <span className="badge badge-ok">{organization.plan}</span> · region <code>{organization.region}</code>.{' '}
          <Link to={`/orgs/${org}/usage`}>See this month's usage and the plan's limits</Link>.
        </p>
      </section>
      {isOwner ? <DataRights org={org} /> : null}
    </div>
  );
}
