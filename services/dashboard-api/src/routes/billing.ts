import { createHmac } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { PlanEvent } from '@tlm/api-schemas';
import { requireAddressWithinRate, sameDigest } from '@tlm/auth';
import { notFound, parseBody, rawBody, unauthorized, validationError } from '@tlm/core';
import { Router } from 'express';
import type { DashboardDeps } from '../deps';
import { changePlan } from '../plans';

export const billingConfig = {
  BILLING_WEBHOOK_SECRET: Type.Optional(
    Type.String({
      minLength: 32,
      secret: true,
      description:
        "Shared secret of a billing provider's webhook (POST /api/billing/webhook), which sets plans; the route is disabled when unset.",
    }),
  ),
};

/** A signed request older (or newer) than this is refused, so a captured one cannot be sent again later. */
const SIGNATURE_TOLERANCE_SECONDS = 300;
const MAX_EVENT_BYTES = 64 * 1024;


/** `X-TLM-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>." + body>`, checked in constant time. */
function verifySignature(header: string | undefined, body: Buffer, secret: string, nowSeconds: number): void {
  const fields = new Map((header ?? '').split(',').map((field) => field.trim().split('=', 2) as [string, string]));
  const signedAt = Number(fields.get('t'));
  const signature = fields.get('v1');
  if (!Number.isSafeInteger(signedAt) || !signature) throw unauthorized('missing or malformed X-TLM-Signature: send t=<unix seconds>,v1=<hex HMAC-SHA256>');
  if (Math.abs(nowSeconds - signedAt) > SIGNATURE_TOLERANCE_SECONDS) throw unauthorized('the signature is more than 5 minutes away from the server time');
  const expected = createHmac('sha256', secret).update(`${signedAt}.`).update(body).digest('hex');
  if (!sameDigest(signature, expected)) throw unauthorized('invalid signature');
}

/** `POST /api/billing/webhook`: a billing provider, signing with BILLING_WEBHOOK_SECRET, sets an organization's plan. */
export function billingRoutes(deps: DashboardDeps, secret: string | undefined): Router {
  const router = Router();
  router.post('/api/billing/webhook', requireAddressWithinRate(deps.limiter), rawBody(MAX_EVENT_BYTES), async (req, res) => {
    if (!secret) throw notFound('billing webhooks are disabled: set BILLING_WEBHOOK_SECRET');
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    verifySignature(req.get('x-tlm-signature'), body, secret, Math.floor(Date.now() / 1000));
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      throw validationError('the body is not JSON');
    }
    const event = parseBody(PlanEvent, parsed);
    res.json(await changePlan(deps, event.organization_id, event.plan));
  });
  return router;
}
