import type { AnalyticsStore } from '@tlm/analytics-store';
import type { RateLimiter, Region, RegionUrls, TokenIssuer } from '@tlm/auth';
import type { BlobStore } from '@tlm/blob-store';
import type { Bus } from '@tlm/bus';
import type { Logger, PlanName } from '@tlm/core';
import type { MetadataStore } from '@tlm/metadata-store';
import type { Mailer } from '@tlm/runtime';

export interface DashboardDeps {
  metadata: MetadataStore;
  analytics: AnalyticsStore;
  /** Replay, profile and export bodies, removed with their project or person. */
  blobs: BlobStore;
  bus: Bus;
  tokens: TokenIssuer;
  /** Counts `/api` requests against their organization's, person's or client address's budget (docs/api.md). */
  limiter: RateLimiter;
  /** The region this deployment serves; new organizations belong to it. */
  region: Region;
  /** The other regions' addresses (REGION_URLS): a sign-up for one of them is answered with its address. */
  regionUrls: RegionUrls;
  /** The plan of new organizations (DEFAULT_PLAN). */
  defaultPlan: PlanName;
  /** scrypt's N for new password hashes (PASSWORD_COST). */
  passwordCost: number;
  /** The billing provider's webhook secret (BILLING_WEBHOOK_SECRET); no webhook without it. */
  billingWebhookSecret?: string;
  /** Sends invitations and password resets (SMTP_URL); without SMTP_URL it refuses to send. */
  mailer: Mailer;
  /** The web app's address for links in mails (PUBLIC_URL); default the request's own origin. */
  publicUrl?: string;
  /** Reports what fails after the answer has gone out (a password reset mail is sent after the 202). */
  logger: Logger;
}
