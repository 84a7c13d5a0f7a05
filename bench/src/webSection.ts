import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { call, provisionKey, removeDir, startServer } from './server';
import { median, millis, repeat } from './stats';

const RUNS = 5;
const DIST = path.join(__dirname, '..', '..', 'services', 'web', 'dist');
/** The web app's budget: JavaScript before the first page, gzipped. */
const SHELL_BUDGET_BYTES = 250_000;
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const MINUTE_MS = 60_000;

/** What index.html loads before any page: its entry script, the chunks it preloads and its stylesheet. */
function shellSize(): { js: number; css: number; files: string[] } {
  const html = readFileSync(path.join(DIST, 'index.html'), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)].map((match) => match[1]!);
  const gzipped = (file: string) => gzipSync(readFileSync(path.join(DIST, file))).length;
  return {
    js: files.filter((file) => file.endsWith('.js')).reduce((sum, file) => sum + gzipped(file), 0),
    css: files.filter((file) => file.endsWith('.css')).reduce((sum, file) => sum + gzipped(file), 0),
    files,
  };
}

/** A browser context signed in as the bench user: the session cookie the web app's log-in sets. */
async function signedIn(browser: Browser, url: string, token: string): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1360, height: 860 } });
  await context.addCookies([{ name: 'tlm_session', value: token, url, httpOnly: true, sameSite: 'Strict' }]);
  return context;
}

/**
 * The web app's speed: the shell's gzipped size against its budget; navigation to an interactive explorer (editor
 * ready and the first rows shown) against loading the same document with scripts off; and a query's answer to its
 * chart on 10,000 points against the answer's own time on the wire.
 */
export async function webSection(options: { port: number }) {
  console.log('\n## web');
  const shell = shellSize();
  console.log(`shell: ${(shell.js / 1000).toFixed(1)} kB of gzipped JavaScript (budget ${SHELL_BUDGET_BYTES / 1000} kB), ${(shell.css / 1000).toFixed(1)} kB of CSS`);

  const server = await startServer(options.port);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    const { key, projectId, orgId, token } = await provisionKey(server.url);
    // One log a minute for 10,000 minutes, so a per-minute series has 10,000 points.
    const start = Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS - 10_000 * MINUTE_MS;
    for (let offset = 0; offset < 10_000; offset += 500) {
      const batch = Array.from({ length: 500 }, (_, index) => ({
        severity: index % 7 === 0 ? 'error' : 'info',
        message: `bench page view ${offset + index}`,
        timestamp: new Date(start + (offset + index) * MINUTE_MS).toISOString(),
        properties: { route: `/page/${index % 20}` },
      }));
      await call(`${server.url}/v1/logs`, 'POST', { batch }, key);
    }
    const explore = `${server.url}/orgs/${orgId}/projects/${projectId}/explore`;
    const since = new Date(start).toISOString();
    const until = new Date(start + 10_000 * MINUTE_MS).toISOString();
    const seriesQuery = `from:logs since:${since} until:${until} | count by time(1m)`;

    const context = await signedIn(browser, server.url, token);
    const page = await context.newPage();
    // Warm the server's caches and the browser's HTTP cache of nothing: every run below is a fresh context.
    await page.goto(`${explore}?q=${encodeURIComponent('from:logs | last:1h')}`);
    await context.close();

    const interactive = await repeat(RUNS, async () => {
      const run = await signedIn(browser, server.url, token);
      const runPage = await run.newPage();
      const started = Date.now();
      await runPage.goto(`${explore}?q=${encodeURIComponent(`from:logs since:${since} | limit 100`)}`);
      await runPage.getByRole('textbox', { name: 'GQL query' }).waitFor();
      await runPage.getByText(/bench page view/).first().waitFor();
      const elapsed = Date.now() - started;
      await run.close();
      return elapsed;
    });
    const staticDocument = await repeat(RUNS, async () => {
      const run = await browser.newContext({ javaScriptEnabled: false });
      const runPage = await run.newPage();
      const started = Date.now();
      await runPage.goto(explore, { waitUntil: 'load' });
      const elapsed = Date.now() - started;
      await run.close();
      return elapsed;
    });

    const chart = await repeat(RUNS, async () => {
      const run = await signedIn(browser, server.url, token);
      const runPage = await run.newPage();
      const answered = runPage.waitForResponse((response) => response.url().includes('/gql?q=') && response.ok());
      await runPage.goto(`${explore}?q=${encodeURIComponent(seriesQuery)}`);
      const response = await answered;
      const timing = response.request().timing();
      await runPage.locator('figure[data-points="10000"][data-drawn-at]').waitFor({ timeout: 30_000 });
      // Both instants on the page's clock: the answer's last byte and the figure carrying its 10,000 points.
      const { answerEnd, drawn } = await runPage.evaluate(() => {
        const entry = performance.getEntriesByType('resource').find((resource) => resource.name.includes('/gql?q=')) as unknown as { responseEnd: number };
        // Runs in the page: `document` is the page's (bench compiles without the DOM library).
        const figure = (globalThis as any).document.querySelector('figure[data-points="10000"]');
        return { answerEnd: entry.responseEnd, drawn: Number(figure.getAttribute('data-drawn-at')) };
      });
      await run.close();
      return { toChart: drawn - answerEnd, answer: timing.responseEnd - timing.requestStart };
    });

    const result = {
      shell_js_gzip_bytes: shell.js,
      shell_css_gzip_bytes: shell.css,
      shell_budget_bytes: SHELL_BUDGET_BYTES,
      explorer_interactive_ms: median(interactive),
      static_document_ms: median(staticDocument),
      explorer_interactive_ratio: median(interactive) / median(staticDocument),
      answer_to_chart_ms: median(chart.map((run) => run.toChart)),
      answer_ms: median(chart.map((run) => run.answer)),
      answer_to_chart_ratio: median(chart.map((run) => run.toChart)) / median(chart.map((run) => run.answer)),
    };
    console.log(`navigation to an interactive explorer: ${millis(result.explorer_interactive_ms)} (the same document with scripts off: ${millis(result.static_document_ms)}, ratio ${result.explorer_interactive_ratio.toFixed(2)})`);
    console.log(`answer to chart, 10,000 points: ${millis(result.answer_to_chart_ms)} (the answer itself: ${millis(result.answer_ms)}, ratio ${result.answer_to_chart_ratio.toFixed(2)})`);
    return result;
  } finally {
    await browser.close();
    await server.stop();
    removeDir(server.dataDir);
  }
}
