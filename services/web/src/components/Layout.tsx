import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type ChangeEvent, type KeyboardEvent } from 'react';
import { Link, NavLink, Outlet, useLocation, useNavigate, useParams } from 'react-router';
import { api } from '../api/client';
import { useMe, useProjects } from '../api/hooks';
import { forgetConversations } from '../pages/ask/conversation';
import { EmptyState, ErrorNotice, Loading } from './States';

const LAST_ORGANIZATION = 'tlm.organization';
/** Followed by an organization's id: the project last opened in it. */
const LAST_PROJECT = 'tlm.project.';

/** What this browser remembers under `key`, '' when nothing (or storage is off). */
function remembered(key: string): string {
  try {
    return window.localStorage.getItem(key) ?? '';
  } catch {
    return '';
  }
}

function remember(key: string, id: string): void {
  try {
    window.localStorage.setItem(key, id);
  } catch {
    // Storage switched off: pages of no organization or project then show none.
  }
}

const CHOOSING_KEYS = new Set(['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'PageUp', 'PageDown', 'Home', 'End']);

/**
 * A switcher goes to another page when its choice changes, and a closed <select> changes its choice at each arrow key:
 * a keyboard user would leave the page at the first ↓. A choice made with the arrow keys is only shown until Enter
 * goes to it (leaving the switcher puts the current one back); a choice made with the pointer, or in the open list,
 * goes at once.
 */
function useSwitcher(current: string, go: (value: string) => void) {
  const [pending, setPending] = useState<string | null>(null);
  const arrowed = useRef(false);
  return {
    value: pending ?? current,
    onKeyDown: (event: KeyboardEvent<HTMLSelectElement>) => {
      if (CHOOSING_KEYS.has(event.key) && !event.altKey) arrowed.current = true;
      else if (event.key === 'Enter' && pending !== null) {
        event.preventDefault();
        setPending(null);
        go(pending);
      } else arrowed.current = false;
    },
    onChange: (event: ChangeEvent<HTMLSelectElement>) => {
      const value = event.target.value;
      if (arrowed.current) {
        arrowed.current = false;
        setPending(value === current ? null : value);
      } else {
        setPending(null);
        go(value);
      }
    },
    onBlur: () => {
      arrowed.current = false;
      setPending(null);
    },
  };
}

/** How long a page that loads its data may take to draw its heading before the focus goes to the content instead. */
const HEADING_WAIT_MS = 2_000;

/**
 * After a move to another page inside the app, a focus left on nothing (the link or button that led there is gone) is
 * put on the new page's heading, so a keyboard user carries on from the page's start and a screen reader reads where
 * they are. A page that puts the focus somewhere itself (a form's first field) keeps it; the first page keeps the
 * browser's start, where the first Tab reaches "Skip to content".
 */
function useFocusOnNavigation(pathname: string): void {
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const until = Date.now() + HEADING_WAIT_MS;
    let timer = 0;
    const settle = () => {
      if (document.activeElement && document.activeElement !== document.body) return;
      const content = document.getElementById('content');
      const heading = content?.querySelector<HTMLElement>('h1');
      const target = heading ?? (Date.now() > until ? content : null);
      if (!target) {
        timer = window.setTimeout(settle, 100);
        return;
      }
      if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
      target.focus({ preventScroll: true });
    };
    timer = window.setTimeout(settle, 0);
    return () => window.clearTimeout(timer);
  }, [pathname]);
}

/** Forgets the organization and the projects last worked in, as a log-out leaves the browser. */
function forgetWorkplace(): void {
  try {
    const keys = Array.from({ length: window.localStorage.length }, (_, index) => window.localStorage.key(index) ?? '');
    for (const key of keys) if (key === LAST_ORGANIZATION || key.startsWith(LAST_PROJECT)) window.localStorage.removeItem(key);
  } catch {
    // Storage switched off: nothing was remembered.
  }
}

/** The signed-in shell: organization and project switchers, the project's pages, the user and log-out. */
export function Layout() {
  const me = useMe();
  const { org: urlOrg = '', project = '' } = useParams();
  const navigate = useNavigate();
  const location = useLocation();
  const queryClient = useQueryClient();
  // A page of no organization (the account) keeps the one last worked in: its switcher, plan, status pages and
  // settings stay in the top bar instead of disappearing.
  const organizationIds = me.data?.organizations.map((organization) => organization.id) ?? [];
  const lastOrganization = urlOrg ? '' : remembered(LAST_ORGANIZATION);
  const org = urlOrg || (organizationIds.includes(lastOrganization) ? lastOrganization : '');
  useEffect(() => {
    if (urlOrg && organizationIds.includes(urlOrg)) remember(LAST_ORGANIZATION, urlOrg);
  }, [urlOrg, organizationIds.join()]);
  const projects = useProjects(org);
  useFocusOnNavigation(location.pathname);
  // Likewise a page of the organization (its plan, status pages, settings) keeps the project last worked in: its
  // switcher shows it and its pages stay one click away.
  const projectIds = projects.data?.map((candidate) => candidate.id) ?? [];
  const lastProject = project || !org ? '' : remembered(LAST_PROJECT + org);
  const shownProject = project || (projectIds.includes(lastProject) ? lastProject : '');
  useEffect(() => {
    if (org && project && projectIds.includes(project)) remember(LAST_PROJECT + org, project);
  }, [org, project, projectIds.join()]);
  const orgSwitcher = useSwitcher(org, (value) => navigate(`/orgs/${value}/projects`));
  const projectSwitcher = useSwitcher(shownProject, (value) => navigate(value === '__all' ? `/orgs/${org}/projects` : samePageIn(location, org, value)));
  const logout = useMutation({
    mutationFn: () => api.post('/api/auth/logout'),
    onSettled: () => {
      queryClient.clear();
      forgetConversations();
      forgetWorkplace();
      navigate('/login');
    },
  });

  if (me.isPending) return <Loading what="your account" />;
  if (me.isError) return <ErrorNotice error={me.error} />;

  const organizations = me.data.organizations;
  // An organization or project the URL names but the user's fresh lists do not hold: a wrong or stale link, said so
  // once, instead of each page's own not-found error under switchers that show another one.
  const orgListed = !org || organizations.some((organization) => organization.id === org);
  const projectListed = !project || !projects.data || projects.data.some((candidate) => candidate.id === project);
  const orgUnknown = !orgListed && !me.isFetching;
  const projectUnknown = !orgUnknown && !projectListed && !projects.isFetching;
  const base = org && shownProject && !orgUnknown && !projectUnknown ? `/orgs/${org}/projects/${shownProject}` : '';
  return (
    <div className="shell">
      <a className="skip-link" href="#content">
        Skip to content
      </a>
      <header className="topbar">
        <NavLink to="/" className="brand">
          tlm
        </NavLink>
        <label className="switcher">
          <span className="visually-hidden">Organization</span>
          <select aria-label="Organization" {...orgSwitcher}>
            {org ? null : <option value="">Choose an organization</option>}
            {orgListed ? null : <option value={org}>Unknown organization</option>}
            {organizations.map((organization) => (
              <option key={organization.id} value={organization.id}>
                {organization.name}
              </option>
            ))}
          </select>
        </label>
        {org ? (
          <label className="switcher">
            <span className="visually-hidden">Project</span>
            <select
              aria-label="Project"
              {...projectSwitcher}
            >
              {shownProject ? null : <option value="">Choose a project</option>}
              {projectListed ? null : <option value={project}>Unknown project</option>}
              {(projects.data ?? []).map((candidate) => (
                <option key={candidate.id} value={candidate.id}>
                  {candidate.name}
                </option>
              ))}
              <option value="__all">All projects…</option>
            </select>
          </label>
        ) : null}
        <span className="topbar-spacer" />
        {org ? (
          <NavLink to={`/orgs/${org}/usage`} className="topbar-link">
            Plan & usage
          </NavLink>
        ) : null}
        {org ? (
          <NavLink to={`/orgs/${org}/status-pages`} className="topbar-link">
            Status pages
          </NavLink>
        ) : null}
        {org ? (
          <NavLink to={`/orgs/${org}/settings`} className="topbar-link">
            Organization
          </NavLink>
        ) : null}
        <NavLink to="/account" className="topbar-link">
          Account
        </NavLink>
        <span className="topbar-user" title={me.data.email}>
          {me.data.name ?? me.data.email}
        </span>
        <button type="button" className="button button-small" onClick={() => logout.mutate()} disabled={logout.isPending}>
          Log out
        </button>
      </header>
      <div className="body">
        {base ? (
          <nav className="sidebar" aria-label="Project pages">
            <NavLink to={`${base}/explore`}>Explore</NavLink>
            <NavLink to={`${base}/dashboards`}>Dashboards</NavLink>
            <NavLink to={`${base}/ask`}>Ask AI</NavLink>
            <NavLink to={`${base}/issues`}>Issues</NavLink>
            <NavLink to={`${base}/traces`}>Traces</NavLink>
            <NavLink to={`${base}/services`}>Services</NavLink>
            <NavLink to={`${base}/replays`}>Replays</NavLink>
            <NavLink to={`${base}/vitals`}>Web vitals</NavLink>
            <NavLink to={`${base}/releases`}>Releases</NavLink>
            <NavLink to={`${base}/profiles`}>Profiles</NavLink>
            <NavLink to={`${base}/alerts`}>Alerts</NavLink>
            <NavLink to={`${base}/slos`}>SLOs</NavLink>
            <NavLink to={`${base}/onboarding`}>Get started</NavLink>
            <NavLink to={`${base}/exports`}>Exports</NavLink>
            <NavLink to={`${base}/keys`}>API keys</NavLink>
            <NavLink to={`${base}/settings`}>Settings</NavLink>
          </nav>
        ) : null}
        <main className="content" id="content" tabIndex={-1}>
          {project && projects.isPending ? (
            // Whether the project is this organization's is known with the list; its page waits for it.
            <Loading what="the projects" />
          ) : orgUnknown ? (
            <EmptyState title="No such organization">
              <p>You are not a member of it, or it was deleted.</p>
              <Link to="/">Your organizations</Link>
            </EmptyState>
          ) : projectUnknown ? (
            <EmptyState title="No such project in this organization">
              <p>It may have been deleted, or belong to another organization.</p>
              <Link to={`/orgs/${org}/projects`}>This organization's projects</Link>
            </EmptyState>
          ) : (
            <Outlet />
          )}
        </main>
      </div>
    </div>
  );
}

/**
 * Where the project switcher goes: the same page of the other project. A list keeps its filters (a time range, a
 * status) since they mean the same there; one issue, trace or rule belongs to its project, so its list is opened.
 */
export function samePageIn(location: { pathname: string; search: string }, org: string, project: string): string {
  const base = `/orgs/${org}/projects/${project}`;
  const [, section = 'explore', detail] = /^\/orgs\/[^/]+\/projects\/[^/]+\/?([^/]*)\/?([^/]*)/.exec(location.pathname) ?? [];
  if (!section) return `${base}/explore`;
  return detail ? `${base}/${section}` : `${base}/${section}${location.search}`;
}
