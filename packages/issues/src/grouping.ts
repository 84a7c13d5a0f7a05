import { namedUuid } from '@tlm/core';
import type { ErrorRecord, StackFrame } from '@tlm/signals';
import { culpritFileOf, culpritFrame, fingerprintOf, type Fingerprint } from './fingerprint';
import { memoized } from './memo';

/** Longest title kept; the full value stays on every error row. */
const MAX_TITLE_LENGTH = 256;

/** An error with what grouping derives from it. */
export interface GroupedError {
  record: ErrorRecord;
  fingerprint: Fingerprint;
  issueId: string;
  title: string;
  culprit: string;
  /** Who the error happened to, for the issue's distinct-user count; null when the event names nobody. */
  userKey: string | null;
}

/** Deriving an id is a SHA-256, and a batch mostly repeats a few issues. */
const issueIdOfKey = memoized(namedUuid);

/**
 * The issue's id as a function of (project, fingerprint) (`namedUuid`): error rows can name their issue before the
 * issue's row exists, and every processor instance names the same issue the same way.
 */
export function issueIdOf(projectId: string, fingerprintHash: string): string {
  return issueIdOfKey(`${projectId}\u0000${fingerprintHash}`);
}

/** `type: value` (first line of the value), or whichever of the two the error has. */
export function titleOf(record: Pick<ErrorRecord, 'type' | 'value'>): string {
  const newline = record.value.indexOf('\n');
  const value = (newline === -1 ? record.value : record.value.slice(0, newline)).trim();
  const title = record.type && value ? `${record.type}: ${value}` : record.type || value || '(no message)';
  return title.length > MAX_TITLE_LENGTH ? `${title.slice(0, MAX_TITLE_LENGTH - 1)}…` : title;
}

/**
 * The culprit of each frame object, remembered: errors with equal frames share the frame objects (signals' framesOf),
 * and so one culprit text.
 */
const frameCulprits = new WeakMap<StackFrame, string>();

/** `function in file` of the culprit frame; without frames, the transaction the error happened in, if known. */
export function culpritOf(record: Pick<ErrorRecord, 'frames' | 'tags'>): string {
  const frame = culpritFrame(record.frames);
  if (!frame) return typeof record.tags['transaction'] === 'string' ? record.tags['transaction'] : '';
  let culprit = frameCulprits.get(frame);
  if (culprit === undefined) {
    const file = culpritFileOf(frame);
    culprit = frame.function && file ? `${frame.function} in ${file}` : (frame.function ?? file);
    frameCulprits.set(frame, culprit);
  }
  return culprit;
}

/** A user is their id, else their email, else their IP address, else their username. */
export function userKeyOf(record: Pick<ErrorRecord, 'user'>): string | null {
  for (const field of ['id', 'email', 'ip', 'username']) {
    const value = record.user[field];
    if ((typeof value === 'string' && value !== '') || typeof value === 'number') return `${field}:${String(value)}`;
  }
  return null;
}

export function groupError(record: ErrorRecord): GroupedError {
  const fingerprint = fingerprintOf(record);
  return {
    record,
    fingerprint,
    issueId: issueIdOf(record.projectId, fingerprint.hash),
    title: titleOf(record),
    culprit: culpritOf(record),
    userKey: userKeyOf(record),
  };
}
