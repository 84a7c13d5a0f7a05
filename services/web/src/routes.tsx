import { lazy, Suspense, type ComponentType, type ReactNode } from 'react';
import { createBrowserRouter, Navigate, useLocation, type RouteObject } from 'react-router';
import { ApiError } from './api/client';
import { useMe } from './api/hooks';
import { Layout } from './components/Layout';
import { ErrorNotice, Loading } from './components/States';
import { useRouteTitle } from './components/useTabTitle';

/** Each page is its own chunk, loaded on first visit, so the shell stays small; `title` names its browser tab. */
function page(load: () => Promise<{ default: ComponentType }>, what: string, title: string) {
  const Page = lazy(load);
  return (
    <Titled title={title}>
      <Suspense fallback={<Loading what={what} />}>
        <Page />
      </Suspense>
    </Titled>
  );
}

/** Names the browser tab after the page until the page names it after what it shows. */
function Titled({ title, children }: { title: string; children: ReactNode }) {
  useRouteTitle(title);
  return children;
}

/** Pages behind log-in: without a session, people go to log-in and come back here afterwards. */
function RequireSession() {
  const me = useMe();
  const location = useLocation();
  if (me.error instanceof ApiError && me.error.status === 401) {
    return <Navigate to={`/login?next=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  }
  if (me.isError) return <ErrorNotice error={me.error} />;
  return <Layout />;
}

export const routes: RouteObject[] = [
  { path: '/login', element: page(() => import('./pages/auth/LoginPage'), 'log-in', 'Log in') },
  { path: '/signup', element: page(() => import('./pages/auth/SignupPage'), 'sign-up', 'Sign up') },
  { path: '/accept-invitation', element: page(() => import('./pages/auth/AcceptInvitationPage'), 'the invitation', 'Join an organization') },
  { path: '/forgot-password', element: page(() => import('./pages/auth/ForgotPasswordPage'), 'password reset', 'Reset your password') },
  { path: '/reset-password', element: page(() => import('./pages/auth/ResetPasswordPage'), 'password reset', 'Reset your password') },
  {
    element: <RequireSession />,
    children: [
      { index: true, element: page(() => import('./pages/home/HomePage'), 'your projects', 'Projects') },
      { path: '/orgs/:org/projects', element: page(() => import('./pages/projects/ProjectsPage'), 'projects', 'Projects') },
      { path: '/orgs/:org/usage', element: page(() => import('./pages/usage/UsagePage'), 'plan and usage', 'Plan & usage') },
      { path: '/orgs/:org/status-pages', element: page(() => import('./pages/status/StatusPagesPage'), 'status pages', 'Status pages') },
      { path: '/orgs/:org/status-pages/:slug', element: page(() => import('./pages/status/StatusPageAdminPage'), 'the status page', 'Status page') },
      { path: '/orgs/:org/settings', element: page(() => import('./pages/org/OrganizationPage'), 'organization settings', 'Organization') },
      { path: '/account', element: page(() => import('./pages/account/AccountPage'), 'your account', 'Account') },
      { path: '/orgs/:org/projects/:project', element: <Navigate to="explore" replace /> },
      { path: '/orgs/:org/projects/:project/explore', element: page(() => import('./pages/explore/ExplorePage'), 'the explorer', 'Explore') },
      { path: '/orgs/:org/projects/:project/ask', element: page(() => import('./pages/ask/AskPage'), 'the assistant', 'Ask AI') },
      { path: '/orgs/:org/projects/:project/dashboards', element: page(() => import('./pages/dashboards/DashboardsPage'), 'dashboards', 'Dashboards') },
      { path: '/orgs/:org/projects/:project/dashboards/:dashboard', element: page(() => import('./pages/dashboards/DashboardPage'), 'the dashboard', 'Dashboard') },
      { path: '/orgs/:org/projects/:project/issues', element: page(() => import('./pages/issues/IssuesPage'), 'issues', 'Issues') },
      { path: '/orgs/:org/projects/:project/issues/:issue', element: page(() => import('./pages/issues/IssuePage'), 'the issue', 'Issue') },
      { path: '/orgs/:org/projects/:project/traces', element: page(() => import('./pages/traces/TracesPage'), 'traces', 'Traces') },
      { path: '/orgs/:org/projects/:project/traces/:trace', element: page(() => import('./pages/traces/TracePage'), 'the trace', 'Trace') },
      { path: '/orgs/:org/projects/:project/services', element: page(() => import('./pages/traces/ServicesPage'), 'services', 'Services') },
      { path: '/orgs/:org/projects/:project/replays', element: page(() => import('./pages/replays/ReplaysPage'), 'replays', 'Replays') },
      { path: '/orgs/:org/projects/:project/replays/:replay', element: page(() => import('./pages/replays/ReplayPage'), 'the replay', 'Replay') },
      { path: '/orgs/:org/projects/:project/profiles', element: page(() => import('./pages/profiles/ProfilesPage'), 'profiles', 'Profiles') },
      { path: '/orgs/:org/projects/:project/profiles/:chunk', element: page(() => import('./pages/profiles/ProfilePage'), 'the profile', 'Profile') },
      { path: '/orgs/:org/projects/:project/vitals', element: page(() => import('./pages/vitals/VitalsPage'), 'web vitals', 'Web vitals') },
      { path: '/orgs/:org/projects/:project/releases', element: page(() => import('./pages/releases/ReleasesPage'), 'release health', 'Releases') },
      { path: '/orgs/:org/projects/:project/alerts', element: page(() => import('./pages/alerts/AlertsPage'), 'alert rules', 'Alerts') },
      { path: '/orgs/:org/projects/:project/alerts/new', element: page(() => import('./pages/alerts/AlertRuleFormPage'), 'the alert rule form', 'Alert rule') },
      { path: '/orgs/:org/projects/:project/alerts/:rule', element: page(() => import('./pages/alerts/AlertRulePage'), 'the alert rule', 'Alert rule') },
      { path: '/orgs/:org/projects/:project/alerts/:rule/edit', element: page(() => import('./pages/alerts/AlertRuleFormPage'), 'the alert rule form', 'Alert rule') },
      { path: '/orgs/:org/projects/:project/slos', element: page(() => import('./pages/slos/SlosPage'), 'SLOs', 'SLOs') },
      { path: '/orgs/:org/projects/:project/onboarding', element: page(() => import('./pages/onboarding/OnboardingPage'), 'setup', 'Get started') },
      { path: '/orgs/:org/projects/:project/keys', element: page(() => import('./pages/keys/KeysPage'), 'API keys', 'API keys') },
      { path: '/orgs/:org/projects/:project/exports', element: page(() => import('./pages/exports/ExportsPage'), 'exports', 'Exports') },
      { path: '/orgs/:org/projects/:project/settings', element: page(() => import('./pages/settings/SettingsPage'), 'settings', 'Project settings') },
      { path: '*', element: page(() => import('./pages/NotFoundPage'), 'this page', 'Page not found') },
    ],
  },
];

export const router = createBrowserRouter(routes);
