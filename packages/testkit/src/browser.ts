import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';

/** Debian's Chromium: `.ci/run` installs it when missing; no browser is ever downloaded. */
export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Screenshots of every page the browser tests visit, to be looked at (gitignored). */
export const SCREENSHOTS = path.resolve(__dirname, '../../../.screenshots');

/** Loaded on first use, so suites without a browser do not pay for loading Playwright. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`);
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/**
 * The web app as a signed-in member sees it: a browser context on the server's origin holding the session cookie the
 * log-in sets (the same token), at a desktop size, and a page in it that waits up to 15 s for what it looks for.
 */
export async function openWebApp(browser: Browser, serverUrl: string, sessionToken: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: serverUrl, viewport: { width: 1360, height: 900 }, locale: 'en-US' });
  await context.addCookies([{ name: 'tlm_session', value: sessionToken, url: serverUrl, httpOnly: true, sameSite: 'Strict' }]);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return { context, page };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/**
 * Bundles a browser entry point (TypeScript or JavaScript source text) with its npm imports into one IIFE script,
 * as an application's build would: SDKs are tested as shipped, unmodified.
 */
export async function bundleForBrowser(source: string, resolveDir: string): Promise<string> {
  const { build } = await import('esbuild');
  const result = await build({
    stdin: { contents: source, resolveDir, loader: 'ts', sourcefile: 'page.ts' },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    write: false,
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  return result.outputFiles[0]!.text;
}

export interface PageServer {
  /** The page's origin: another port, so another origin than the service under test. */
  url: string;
  close(): Promise<void>;
}

/** Serves `html` at / and each script at its path, from 127.0.0.1 on a port of its own (a customer's site). */
export async function servePage(html: string, scripts: Record<string, string> = {}): Promise<PageServer> {
  const server: Server = createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://page').pathname;
    if (pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(html);
    } else if (scripts[pathname] !== undefined) {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
      res.end(scripts[pathname]);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
