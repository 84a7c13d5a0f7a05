import type { Properties } from './properties';

/**
 * The contract between the gateways that make errors (envelope `event` items, the log scanner) and the issues
 * processor that fingerprints and stores them. The wire → record function lives beside it once written.
 */

export type ErrorLevel = 'fatal' | 'error' | 'warning' | 'info' | 'debug';

export interface StackFrame {
  function: string | null;
  filename: string | null;
  module: string | null;
  lineno: number | null;
  colno: number | null;
  in_app: boolean;
  abs_path: string | null;
  context_line: string | null;
  /** The position before symbolication, kept beside the original one (issue 5, source maps). */
  minified?: { filename: string | null; function: string | null; lineno: number | null; colno: number | null };
}

export interface Breadcrumb {
  category: string | null;
  message: string | null;
  /** ISO 8601. */
  timestamp: string | null;
  level: string | null;
  type: string | null;
  data: Record<string, unknown> | null;
}

export interface ErrorRecord {
  /** UUID; a Sentry event_id (32 hex digits) in UUID form, so retries of one event keep their id. */
  id: string;
  projectId: string;
  /** Epoch milliseconds. */
  timestamp: number;
  receivedAt: number;
  /** Exception type, e.g. TypeError; empty for a captured message. */
  type: string;
  /** Exception value or the message. */
  value: string;
  level: ErrorLevel;
  release: string | null;
  environment: string | null;
  platform: string | null;
  /** `window.onerror`, `unhandledRejection`, or the SDK mechanism's type. */
  source: string | null;
  traceId: string | null;
  spanId: string | null;
  /** id, email, ip_address, username… flat. */
  user: Properties;
  tags: Properties;
  /** Flat; `chain` holds the chained exceptions, `synthetic` = 'logs' for scanner-made errors. */
  extra: Properties;
  /** Innermost frame last, at most 250. */
  frames: StackFrame[];
  /** The latest 50. */
  breadcrumbs: Breadcrumb[];
  /** A client's fingerprint override (`{{ default }}` expands to the default), or null. */
  fingerprint: string[] | null;
  retentionDays: number;
}
