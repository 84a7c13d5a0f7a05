import type { AnalyticsStore } from '@tlm/analytics-store';
import type { Region, TokenIssuer } from '@tlm/auth';
import type { Bus } from '@tlm/bus';
import type { MetadataStore } from '@tlm/metadata-store';

export interface DashboardDeps {
  metadata: MetadataStore;
  analytics: AnalyticsStore;
  bus: Bus;
  tokens: TokenIssuer;
  /** The region this deployment serves; new organizations default to it. */
  region: Region;
}
