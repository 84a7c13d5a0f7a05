import { bundleForBrowser, createKey, eventually, gqlRows, launchChromium, screenshot, servePage, serverWithProject, type PageServer } from '@tlm/testkit';

// Playwright's types through testkit, which depends on playwright-core.
type Browser = Awaited<ReturnType<typeof launchChromium>>;
type Page = Awaited<ReturnType<Browser['newPage']>>;

const fixture = serverWithProject();
let browser: Browser;
let site: PageServer;

/** A customer's page with the unmodified posthog-js, configured from `window.PH` (key and host). */
const PAGE_SCRIPT = `
import posthog from 'posthog-js';
const { key, host, distinctId } = (window as any).PH;
const state: any = ((window as any).phState = { flagCallbacks: [] });
posthog.init(key, {
  api_host: host,
  opt_out_useragent_filter: true,
  autocapture: false,
  capture_pageview: true,
  person_profiles: 'always',
  bootstrap: { distinctID: distinctId },
  loaded: () => { state.loaded = true; },
});
posthog.onFeatureFlags((flags, variants, context) => state.flagCallbacks.push({ flags, variants, errorsLoading: context?.errorsLoading }));
(window as any).posthog = posthog;
`;

const html = (key: string, distinctId: string) => `<!doctype html><html><head><title>Shop</title>
<script>window.PH = ${JSON.stringify({ key, host: fixture.server.url, distinctId })};</script></head>
<body><h1>Checkout</h1><button id="pay">Pay</button><script src="/app.js"></script></body></html>`;

interface Traffic {
  /** Every answered request to the service: method, path and query, status, and its Access-Control-Allow-Origin. */
  answered: { method: string; url: string; status: number; allowOrigin: string | null }[];
  failed: string[];
  console: string[];
}

/** Opens the page and records what the browser saw of the service: answers, failed requests, console messages. */
async function openPage(pageHtml: string, bundle: string): Promise<{ page: Page; traffic: Traffic; close: () => Promise<void> }> {
  site = await servePage(pageHtml, { '/app.js': bundle });
  const context = await browser.newContext();
  const page = await context.newPage();
  const traffic: Traffic = { answered: [], failed: [], console: [] };
  const service = new URL(fixture.server.url).origin;
  page.on('console', (message) => traffic.console.push(`${message.type()}: ${message.text()}`));
  page.on('requestfailed', (request) => traffic.failed.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText}`));
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (url.origin !== service) return;
    traffic.answered.push({ method: response.request().method(), url: `${url.pathname}${url.search}`, status: response.status(), allowOrigin: response.headers()['access-control-allow-origin'] ?? null });
  });
  await page.goto(site.url);
  return {
    page,
    traffic,
    close: async () => {
      await context.close();
      await site.close();
    },
  };
}

const corsErrors = (traffic: Traffic) => traffic.console.filter((line) => /CORS|Access-Control/i.test(line));

beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

describe('the unmodified posthog-js in Chromium, on a page of another origin', () => {
  let bundle: string;
  beforeAll(async () => {
    bundle = await bundleForBrowser(PAGE_SCRIPT, __dirname);
  }, 60_000);

  it('loads its remote config and flags without a CORS error or failed request, and its events are stored', async () => {
    const distinctId = `ph-browser-${Date.now()}`;
    const { page, traffic, close } = await openPage(html(fixture.setup.publicKey, distinctId), bundle);
    try {
      await page.waitForFunction('window.phState && window.phState.loaded');
      // The config says the project has no flags, so posthog-js asks for them only when told to.
      await page.evaluate('window.posthog.reloadFeatureFlags()');
      await page.waitForFunction('window.phState.flagCallbacks.length > 0');
      await page.evaluate("window.posthog.capture('ph browser checkout', { plan: 'pro', cart_items: 3 })");
      await page.click('#pay');

      const rows = await eventually(async () => {
        const found = await gqlRows(fixture.server.api, fixture.setup.secretKey, `from:events distinct_id:${distinctId} | sort event_name asc | fields event_name, properties`);
        if (found.length < 2) throw new Error(`${found.length} events so far`);
        return found;
      }, 20_000);
      expect(rows.map((row) => row['event_name'])).toEqual(['$pageview', 'ph browser checkout']);
      expect(rows[1]!['properties']).toMatchObject({ plan: 'pro', cart_items: 3, $lib: 'web', $browser: 'Chrome' });

      const flagsCalls = traffic.answered.filter((call) => call.url.startsWith('/flags/'));
      expect(flagsCalls.length).toBeGreaterThan(0);
      expect(flagsCalls.every((call) => call.method === 'POST' && call.url.includes('v=2') && call.status === 200)).toBe(true);
      // posthog-js used the answer: no flags, and no error loading them.
      expect(await page.evaluate('window.phState.flagCallbacks.at(-1)')).toEqual({ flags: [], variants: {}, errorsLoading: false });
      expect(await page.evaluate('window.posthog.featureFlags.hasLoadedFlags')).toBe(true);
      // config.js was loaded as a script and its config applied, so events go to the endpoint it names.
      const configScript = traffic.answered.find((call) => call.url === `/array/${fixture.setup.publicKey}/config.js`);
      expect(configScript).toMatchObject({ method: 'GET', status: 200 });
      expect(configScript!.allowOrigin).toBe(site.url);
      expect(await page.evaluate(`window._POSTHOG_REMOTE_CONFIG[${JSON.stringify(fixture.setup.publicKey)}].config.hasFeatureFlags`)).toBe(false);
      expect(traffic.answered.some((call) => call.url.startsWith('/i/v0/e/') && call.status === 200)).toBe(true);

      expect(traffic.answered.filter((call) => call.status >= 400)).toEqual([]);
      expect(traffic.failed).toEqual([]);
      expect(corsErrors(traffic)).toEqual([]);
      await screenshot(page, 'posthog-js-page');
    } finally {
      await close();
    }
  }, 60_000);

  it('with a revoked key: config.js and /flags answer 401 with CORS, so the browser sees the status, and nothing is stored', async () => {
    const { server, setup } = fixture;
    const key = await createKey(server.api, setup.session, setup.project.id, { type: 'public' });
    const revoke = await server.api.post(`/api/orgs/${setup.session.organization.id}/projects/${setup.project.id}/keys/${key.id}/revoke`, { token: setup.session.token });
    expect(revoke.status).toBe(200);
    const distinctId = `ph-revoked-${Date.now()}`;
    const { page, traffic, close } = await openPage(html(key.key, distinctId), bundle);
    try {
      await page.waitForFunction('window.phState && window.phState.loaded');
      await page.evaluate('window.posthog.reloadFeatureFlags()');
      await page.waitForFunction('window.phState.flagCallbacks.length > 0');
      await page.evaluate("window.posthog.capture('ph revoked event')");
      await eventually(async () => {
        if (!traffic.answered.some((call) => /^\/e\//.test(call.url))) throw new Error('no capture request yet');
      }, 20_000);

      // Without a config, posthog-js captures to its default /e/.
      const refused = traffic.answered.filter((call) => /^\/(flags\/|array\/|e\/)/.test(call.url));
      expect(refused.map((call) => call.url.split('?')[0])).toEqual(expect.arrayContaining([`/array/${key.key}/config.js`, '/flags/', '/e/']));
      expect(refused.every((call) => call.status === 401 && call.allowOrigin === site.url)).toBe(true);
      // The SDK saw a 401 (not status 0) and reports the flags as failed to load.
      expect(await page.evaluate('window.phState.flagCallbacks.at(-1).errorsLoading')).toBe(true);
      expect(corsErrors(traffic)).toEqual([]);
      expect(await gqlRows(server.api, setup.secretKey, `from:events distinct_id:${distinctId} | count`)).toEqual([{ value: 0 }]);
    } finally {
      await close();
    }
  }, 60_000);
});
