import type { IncomingMessage, ServerResponse } from 'node:http';
import { regionUnreachable, splitList, wrongRegion } from '@tlm/core';
import type { Request, RequestHandler } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { bearerCredential } from './session';
import { REGIONS, parseApiKey, type Region } from './keys';

export type RegionUrls = Partial<Record<Region, string>>;

/** Parses REGION_URLS ("eu=https://eu.example.com,ap=https://ap.example.com"); a malformed entry fails startup. */
export function parseRegionUrls(value: string): RegionUrls {
  const urls: RegionUrls = {};
  for (const entry of splitList(value)) {
    const [region, url] = entry.split('=', 2).map((part) => part.trim());
    // `foo:bar` parses as a URL too: only a gateway's http(s) address can be relayed to.
    if (!region || !url || !(REGIONS as readonly string[]).includes(region) || !/^https?:\/\/[^/]/.test(url) || !URL.canParse(url)) {
      throw new Error(`REGION_URLS entry "${entry}" must look like eu=https://eu.example.com`);
    }
    urls[region as Region] = url;
  }
  return urls;
}

/**
 * DECISIONS.md "Regions": a request whose key names another region is relayed, body untouched, to that region's
 * gateway and its answer returned; with no URL for that region the answer is 421 WRONG_REGION. Legacy keys (no
 * region segment) belong here. Must run before any body parser.
 */
export function regionRouting(
  local: Region,
  urls: RegionUrls,
  credentialOf: (req: Request) => string | undefined = (req) => bearerCredential(req.headers.authorization),
): RequestHandler {
  const proxies = new Map<Region, RequestHandler>();
  const proxyTo = (region: Region, target: string): RequestHandler => {
    let proxy = proxies.get(region);
    if (!proxy) {
      proxy = createProxyMiddleware<IncomingMessage, ServerResponse>({
        target,
        changeOrigin: true,
        xfwd: true,
        on: {
          error: (_error, _req, res) => {
            const response = res as ServerResponse;
            if (response.headersSent) return response.end();
            const failure = regionUnreachable(region);
            response.writeHead(failure.status, { 'content-type': 'application/json' });
            response.end(JSON.stringify(failure.toBody()));
          },
        },
      }) as unknown as RequestHandler;
      proxies.set(region, proxy);
    }
    return proxy;
  };
  return (req, res, next) => {
    const raw = credentialOf(req);
    const region = raw ? parseApiKey(raw)?.region : null;
    if (!region || region === local) return next();
    const target = urls[region];
    if (!target) throw wrongRegion(region);
    return proxyTo(region, target)(req, res, next);
  };
}
