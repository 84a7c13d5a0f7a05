import { Link, Navigate } from 'react-router';
import { useMe, useProjects } from '../../api/hooks';
import { EmptyState, ErrorNotice, Loading } from '../../components/States';

/** Sends people to their first organization's first project, or to its projects page to create one. */
export default function HomePage() {
  const me = useMe();
  const org = me.data?.organizations[0]?.id ?? '';
  const projects = useProjects(org);
  if (me.isPending) return <Loading what="your account" />;
  if (me.isError) return <ErrorNotice error={me.error} next="Reload the page, or log in again." />;
  if (!org) {
    return (
      <EmptyState title="You do not belong to an organization">
        <p>Ask an owner of an organization to add you as a member, then reload this page.</p>
      </EmptyState>
    );
  }
  if (projects.isPending) return <Loading what="your projects" />;
  if (projects.isError) return <ErrorNotice error={projects.error} next={<Link to={`/orgs/${org}/projects`}>Open the projects page</Link>} />;
  const first = projects.data[0];
  return <Navigate to={first ? `/orgs/${org}/projects/${first.id}/explore` : `/orgs/${org}/projects`} replace />;
}
