import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useApiKeys, useProject } from '../../api/hooks';
import type { ApiKey, Project } from '../../api/types';
import { QuotaDialog, quotaDetails } from '../../components/QuotaDialog';
import { SecretValue } from '../../components/SecretValue';
import { ErrorNotice, Loading } from '../../components/States';
import { BrowserLogsChoice } from '../settings/BrowserLogsChoice';
import { useCreateStarterKeys, type StarterKeys } from './hooks';
import { Snippets } from './Snippets';
import { WaitingForData } from './WaitingForData';

const PUBLIC_PLACEHOLDER = '<your public key>';
const SECRET_PLACEHOLDER = '<your secret key>';

export default function OnboardingPage() {
  const { org = '', project = '' } = useParams();
  const projectQuery = useProject(org, project);
  const keyList = useApiKeys(org, project);
  // The values of keys made here: shown once, kept in this page's memory only.
  const [created, setCreated] = useState<StarterKeys>();
  const [quotaClosed, setQuotaClosed] = useState(false);
  const create = useCreateStarterKeys(org, project);
  const keysPage = `/orgs/${org}/projects/${project}/keys`;

  if (projectQuery.isPending || keyList.isPending) return <Loading what="the project and its keys" />;
  if (projectQuery.isError) return <ErrorNotice error={projectQuery.error} next={<Link to={`/orgs/${org}/projects`}>Back to the projects page</Link>} />;
  if (keyList.isError) return <ErrorNotice error={keyList.error} next="Reload the page to try again." />;

  const active = keyList.data.filter((key) => key.status === 'active');
  const activePublic = active.find((key) => key.type === 'public');
  const activeSecret = active.find((key) => key.type === 'secret');
  const publicKey = created?.publicKey.key ?? PUBLIC_PLACEHOLDER;
  const secretKey = created?.secretKey?.key ?? SECRET_PLACEHOLDER;
  const origin = window.location.origin;
  const dsn = `${window.location.protocol}//${publicKey}@${window.location.host}/${projectQuery.data.dsn_id}`;
  const quota = quotaClosed ? undefined : quotaDetails(create.error);

  return (
    <>
      <h1>Get started with {projectQuery.data.name}</h1>
      <p className="muted">
        Send logs, events, errors and traces with the SDK you already use. Public keys go into browsers and apps; secret keys stay on servers.
      </p>

      <section className="panel" aria-labelledby="step-keys">
        <h2 id="step-keys" className="panel-title">
          1. Keys
        </h2>
        {created ? (
          <>
            <p className="state state-warn" role="note">
              These key values are shown only here and only now: copy them before you leave this page. The{' '}
              <Link to={keysPage}>API keys page</Link> lists them by prefix, and makes new ones.
            </p>
            <SecretValue label="Public key" value={created.publicKey.key} copyLabel="Copy browser key" hint="For browsers and apps: Sentry DSN, posthog-js." />
            {created.secretKey ? (
              <SecretValue label="Secret key" value={created.secretKey.key} copyLabel="Copy server key" hint="For servers and scripts: OpenTelemetry, @tlm/client, curl." />
            ) : (
              <ErrorNotice
                error={created.secretError}
                next={
                  <>
                    The secret key was not created, so the server snippets say {SECRET_PLACEHOLDER}. Make one on the <Link to={keysPage}>API keys page</Link>{' '}
                    once there is room for it.
                  </>
                }
              />
            )}
          </>
        ) : !activePublic && !activeSecret ? (
          <>
            <p>This project has no active keys yet. Create a public key for browsers and apps ("browser") and a secret key for servers ("server"):</p>
            <button type="button" className="button button-primary" disabled={create.isPending} onClick={() => create.mutate(undefined, { onSuccess: setCreated })}>
              {create.isPending ? 'Creating keys…' : 'Create keys for this project'}
            </button>
            {create.isError && !quotaDetails(create.error) ? <ErrorNotice error={create.error} next={<>Try again, or create keys on the <Link to={keysPage}>API keys page</Link>.</>} /> : null}
            {quota ? (
              <p className="muted">
                The key limit is reached: delete a key of another project on its API keys page, or ask the operator for a larger plan.
              </p>
            ) : null}
            <QuotaDialog details={quota} what="API keys" title="Key limit reached" onClose={() => setQuotaClosed(true)} />
          </>
        ) : (
          <KnownKeys publicKey={activePublic} secretKey={activeSecret} keysPage={keysPage} />
        )}
      </section>

      <section className="panel" aria-labelledby="step-connect">
        <h2 id="step-connect" className="panel-title">
          2. Connect your app
        </h2>
        <SecretValue label="Sentry DSN" value={dsn} copyLabel="Copy DSN" hint="For Sentry SDKs (errors, traces, logs): the public key and the project's DSN id." />
        <SecretValue
          label="OTLP endpoint"
          value={`${origin}/v1/otlp`}
          copyLabel="Copy OTLP endpoint"
          hint={`Traces at ${origin}/v1/otlp/v1/traces, logs at ${origin}/v1/otlp/v1/logs, with the header Authorization: Bearer ${secretKey}`}
        />
        <SetupBrowserLogs org={org} project={projectQuery.data} />
        <Snippets values={{ origin, dsn, publicKey, secretKey }} />
      </section>

      <section className="panel" aria-labelledby="step-data">
        <h2 id="step-data" className="panel-title">
          3. Send something
        </h2>
        <p className="muted">Run one of the snippets above. This page checks every 2 seconds:</p>
        <WaitingForData org={org} project={project} />
      </section>
    </>
  );
}

/**
 * The project's "Allow browser logs" setting beside the snippets: Sentry SDKs send logs with the DSN's public key, so
 * without it the Sentry snippets' logs are refused while their errors and traces arrive.
 */
function SetupBrowserLogs({ org, project }: { org: string; project: Project }) {
  return (
    <div className="onboarding-choice">
      <BrowserLogsChoice
        org={org}
        project={project}
        hint={
          <>
            Logs sent with a public key, as Sentry SDKs and browsers send them, are refused unless this is on; events, errors and traces need
            nothing more. It is the same setting as in <Link to={`/orgs/${org}/projects/${project.id}/settings`}>Settings</Link>.
          </>
        }
      />
    </div>
  );
}

/** Keys that existed before: their values were shown once, so the snippets hold placeholders and name the keys to use. */
function KnownKeys({ publicKey, secretKey, keysPage }: { publicKey?: ApiKey; secretKey?: ApiKey; keysPage: string }) {
  return (
    <>
      <p>
        Key values are shown only once, when a key is created, so the snippets below say <code>{PUBLIC_PLACEHOLDER}</code> and{' '}
        <code>{SECRET_PLACEHOLDER}</code>: paste your keys there.
      </p>
      <ul>
        <li>
          Public key:{' '}
          {publicKey ? (
            <>
              <strong>{publicKey.name}</strong> <code>{publicKey.prefix}…</code>
            </>
          ) : (
            <span className="muted">none active</span>
          )}
        </li>
        <li>
          Secret key:{' '}
          {secretKey ? (
            <>
              <strong>{secretKey.name}</strong> <code>{secretKey.prefix}…</code>
            </>
          ) : (
            <span className="muted">none active</span>
          )}
        </li>
      </ul>
      <p>
        Lost a value, or missing a key? Make a new one on the <Link to={keysPage}>API keys page</Link>.
      </p>
    </>
  );
}
