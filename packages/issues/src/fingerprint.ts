import { createHash } from 'node:crypto';
import type { ErrorRecord, StackFrame } from '@tlm/signals';
import { memoized } from './memo';

/**
 * The grouping algorithm, versioned because it is a compatibility promise (docs/fingerprinting.md): the same error
 * must land in the same issue after every upgrade. A change to anything below is a new version, never an edit.
 */
export const FINGERPRINT_VERSION = 'fp1';

/** Read-only: errors of one fingerprint share the object. */
export interface Fingerprint {
  readonly version: typeof FINGERPRINT_VERSION;
  /** What was hashed after the version, for people: e.g. ['frame', 'TypeError', 'charge', 'src/billing.ts']. */
  readonly components: readonly string[];
  /** 32 hex digits: SHA-256 of the JSON array [version, ...components], cut to 128 bits. */
  readonly hash: string;
}

/** `{{ default }}` in a client's fingerprint list stands for the default components (Sentry's convention). */
const DEFAULT_MARKER = /^\{\{\s*default\s*\}\}$/;

/** The frame that names the culprit: the innermost in-app frame, else the innermost frame (frames run innermost last). */
export function culpritFrame(frames: readonly StackFrame[]): StackFrame | undefined {
  for (let index = frames.length - 1; index >= 0; index--) if (frames[index]!.in_app) return frames[index];
  return frames[frames.length - 1];
}

/**
 * File names without what changes between deployments of the same code: the query and fragment, the scheme and
 * host of a URL, and content hashes (8 or more hex digits between separators: `main.3f2a9c1b.js`). Remembered: each
 * error's culprit file is normalised twice (fingerprint, culprit), and a fingerprint's errors name the same file.
 */
export const normalizeFileName = memoized((fileName: string): string =>
  fileName
    .replace(/[?#].*$/s, '')
    .replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '')
    .replace(/(?<=[./_-])[0-9a-f]{8,}(?=[./_-]|$)/gi, '<hash>'),
);

/** Messages without what varies between occurrences of one error: UUIDs, hex values and numbers. */
export function normalizeMessage(message: string): string {
  return message
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>')
    .replace(/\b0x[0-9a-f]+\b/gi, '<hex>')
    .replace(/\b(?=[0-9a-f]*\d)[0-9a-f]{8,}\b/gi, '<hex>')
    .replace(/\d+(?:\.\d+)?/g, '<num>');
}

/** The default components: type, function and file of the culprit frame; with no frames, type and message. */
export function defaultComponents(record: Pick<ErrorRecord, 'type' | 'value' | 'frames'>): string[] {
  const frame = culpritFrame(record.frames);
  if (frame) return frameComponents(record.type, frame);
  return ['message', record.type, normalizeMessage(record.value)];
}

function frameComponents(type: string, frame: StackFrame): string[] {
  return ['frame', type, frame.function ?? '', culpritFileOf(frame)];
}

/** The frame's file as grouping and culprits name it: file name, else absolute path, else module, normalised. */
export function culpritFileOf(frame: StackFrame): string {
  return normalizeFileName(frame.filename ?? frame.abs_path ?? frame.module ?? '');
}

/**
 * The fingerprint of its hashed material (the JSON array [version, ...components]), remembered: a project's errors
 * mostly repeat a few fingerprints, and the errors waiting in a batch share one object instead of a copy each.
 */
const fingerprintOfMaterial = memoized((material): Fingerprint => {
  const [, ...components] = JSON.parse(material) as [string, ...string[]];
  return { version: FINGERPRINT_VERSION, components, hash: createHash('sha256').update(material).digest('hex').slice(0, 32) };
});

/** Per culprit frame object and exception type, the default fingerprint: records with equal frames share the objects. */
const defaultFingerprints = new WeakMap<StackFrame, Map<string, Fingerprint>>();

function defaultFingerprintOfFrame(type: string, frame: StackFrame): Fingerprint {
  let byType = defaultFingerprints.get(frame);
  if (!byType) defaultFingerprints.set(frame, (byType = new Map()));
  let fingerprint = byType.get(type);
  if (!fingerprint) {
    fingerprint = fingerprintOfMaterial(JSON.stringify([FINGERPRINT_VERSION, ...frameComponents(type, frame)]));
    byType.set(type, fingerprint);
  }
  return fingerprint;
}

/**
 * The fingerprint of an error: the client's list when it sent one (`{{ default }}` expanded), else the default. Equal
 * fingerprints are one shared object; nobody changes it.
 */
export function fingerprintOf(record: Pick<ErrorRecord, 'type' | 'value' | 'frames' | 'fingerprint'>): Fingerprint {
  if (!record.fingerprint?.length) {
    const frame = culpritFrame(record.frames);
    if (frame) return defaultFingerprintOfFrame(record.type, frame);
  }
  const defaults = defaultComponents(record);
  const components = record.fingerprint?.length
    ? record.fingerprint.flatMap((entry) => (DEFAULT_MARKER.test(entry) ? defaults : [entry]))
    : defaults;
  return fingerprintOfMaterial(JSON.stringify([FINGERPRINT_VERSION, ...components]));
}
