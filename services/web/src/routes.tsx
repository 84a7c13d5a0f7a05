import { lazy, Suspense, type ComponentType } from 'react';
import { createBrowserRouter, Navigate, useLocation, type RouteObject } from 'react-router';
import { ApiError } from './api/client';
import { useMe } from './api/hooks';
import { Layout } from './components/Layout';
import { ErrorNotice, Loading } from './components/States';

/** Each page is its own chunk, loaded on first visit, so the shell stays small. */
function page(load: () => Promise<{ default: ComponentType }>, what: string) {
  const Page = lazy(load);
  return (
    <Suspense fallback={<Loading what={what} />}>
      <Page />
    </Suspense>
  );
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
  { path: '/login', element: page(() => import('./pages/auth/LoginPage'), 'log-in') },
  { path: '/signup', element: page(() => import('./pages/auth/SignupPage'), 'sign-up') },
  { path: '/accept-invitation', element: page(() => import('./pages/auth/AcceptInvitationPage'), 'the invitation') },
  { path: '/forgot-password', element: page(() => import('./pages/auth/ForgotPasswordPage'), 'password reset') },
  { path: '/reset-password', element: page(() => import('./pages/auth/ResetPasswordPage'), 'password reset') },
  {
    element: <RequireSession />,
    children: [
      { index: true, element: page(() => import('./pages/home/HomePage'), 'your projects') },
      { path: '/orgs/:org/projects', element: page(() => import('./pages/projects/ProjectsPage'), 'projects') },
      { path: '/orgs/:org/usage', element: page(() => import('./pages/usage/UsagePage'), 'plan and usage') },
      { path: '/orgs/:org/status-pages', element: page(() => import('./pages/status/StatusPagesPage'), 'status pages') },
      { path: '/orgs/:org/status-pages/:slug', element: page(() => import('./pages/status/StatusPageAdminPage'), 'the status page') },
      { path: '/orgs/:org/settings', element: page(() => import('./pages/org/OrganizationPage'), 'organization settings') },
      { path: '/account', element: page(() => import('./pages/account/AccountPage'), 'your account') },
      { path: '/orgs/:org/projects/:project', element: <Navigate to="explore" replace /> },
      { path: '/orgs/:org/projects/:project/explore', element: page(() => import('./pages/explore/ExplorePage'), 'the explorer') },
      { path: '/orgs/:org/projects/:project/issues', element: page(() => import('./pages/issues/IssuesPage'), 'issues') },
      { path: '/orgs/:org/projects/:project/issues/:issue', element: page(() => import('./pages/issues/IssuePage'), 'the issue') },
      { path: '/orgs/:org/projects/:project/traces', element: page(() => import('./pages/traces/TracesPage'), 'traces') },
      { path: '/orgs/:org/projects/:project/traces/:trace', element: page(() => import('./pages/traces/TracePage'), 'the trace') },
      { path: '/orgs/:org/projects/:project/services', element: page(() => import('./pages/traces/ServicesPage'), 'services') },
      { path: '/orgs/:org/projects/:project/replays', element: page(() => import('./pages/replays/ReplaysPage'), 'replays') },
      { path: '/orgs/:org/projects/:project/replays/:replay', element: page(() => import('./pages/replays/ReplayPage'), 'the replay') },
      { path: '/orgs/:org/projects/:project/profiles', element: page(() => import('./pages/profiles/ProfilesPage'), 'profiles') },
      { path: '/orgs/:org/projects/:project/profiles/:chunk', element: page(() => import('./pages/profiles/ProfilePage'), 'the profile') },
      { path: '/orgs/:org/projects/:project/vitals', element: page(() => import('./pages/vitals/VitalsPage'), 'web vitals') },
      { path: '/orgs/:org/projects/:project/releases', element: page(() => import('./pages/releases/ReleasesPage'), 'release health') },
      { path: '/orgs/:org/projects/:project/alerts', element: page(() => import('./pages/alerts/AlertsPage'), 'alert rules') },
      { path: '/orgs/:org/projects/:project/alerts/new', element: page(() => import('./pages/alerts/AlertRuleFormPage'), 'the alert rule form') },
      { path: '/orgs/:org/projects/:project/alerts/:rule', element: page(() => import('./pages/alerts/AlertRulePage'), 'the alert rule') },
      { path: '/orgs/:org/projects/:project/alerts/:rule/edit', element: page(() => import('./pages/alerts/AlertRuleFormPage'), 'the alert rule form') },
      { path: '/orgs/:org/projects/:project/slos', element: page(() => import('./pages/slos/SlosPage'), 'SLOs') },
      { path: '/orgs/:org/projects/:project/onboarding', element: page(() => import('./pages/onboarding/OnboardingPage'), 'setup') },
      { path: '/orgs/:org/projects/:project/keys', element: page(() => import('./pages/keys/KeysPage'), 'API keys') },
      { path: '/orgs/:org/projects/:project/exports', element: page(() => import('./pages/exports/ExportsPage'), 'exports') },
      { path: '/orgs/:org/projects/:project/settings', element: page(() => import('./pages/settings/SettingsPage'), 'settings') },
      { path: '*', element: page(() => import('./pages/NotFoundPage'), 'this page') },
    ],
  },
];

export const router = createBrowserRouter(routes);
