/**
 * The one HTTP client of the web app. The session is an httpOnly cookie the server sets at log-in, so no token is
 * ever held by page scripts; every request carries the CSRF header the server requires of cookie-authenticated
 * writes. Components never call this directly: they use the TanStack Query hooks in ./hooks.
 */

import { createParser } from 'eventsource-parser';

/** Sent on every request; a cross-site form cannot set it, so the server refuses cookie writes without it. */
export const CSRF_HEADER = 'x-tlm-csrf';

/** An error answer of the API: `{error: {code, message, details?}}` with its HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

type Listener = () => void;
const unauthorizedListeners = new Set<Listener>();

/** Called when any request answers 401: the session has expired or was never there. */
export function onUnauthorized(listener: Listener): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  signal?: AbortSignal;
  /** Log-in and sign-up answer 401 for wrong credentials, which is not an expired session. */
  expectUnauthorized?: boolean;
}

/** Sends a request with the session cookie and the CSRF header; a network failure is an ApiError of status 0. */
async function send(method: string, path: string, options: RequestOptions, accept: string): Promise<Response> {
  const url = new URL(path, window.location.origin);
  for (const [name, value] of Object.entries(options.query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  const headers: Record<string, string> = { [CSRF_HEADER]: '1', accept };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  try {
    return await fetch(url, {
      method,
      headers,
      credentials: 'same-origin',
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, 'NETWORK_ERROR', 'the server cannot be reached; check that it is running');
  }
}

/** The ApiError of an answer that is not 2xx, telling the listeners when it is a 401. */
function failure(response: Response, parsed: unknown, options: RequestOptions): ApiError {
  const error = (parsed as { error?: { code?: string; message?: string; details?: Record<string, unknown> } } | undefined)?.error;
  if (response.status === 401 && !options.expectUnauthorized) unauthorizedListeners.forEach((listener) => listener());
  return new ApiError(response.status, error?.code ?? 'INTERNAL_ERROR', error?.message ?? `the server answered ${response.status}`, error?.details);
}

export async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const response = await send(method, path, options, 'application/json');
  const text = await response.text();
  const parsed = text ? safeJson(text) : undefined;
  if (!response.ok) throw failure(response, parsed, options);
  return parsed as T;
}

/**
 * POSTs a body and reads the answer as server-sent events, handing each to `onEvent` as it arrives (the AI chat's
 * stream). A refusal comes as a JSON error before any event, thrown as an ApiError as `request` throws it.
 */
export async function postEventStream(path: string, body: unknown, onEvent: (event: string, data: string) => void, signal?: AbortSignal): Promise<void> {
  const options: RequestOptions = { body, signal };
  const response = await send('POST', path, options, 'text/event-stream');
  if (!response.ok || !response.body) {
    const text = await response.text();
    throw failure(response, text ? safeJson(text) : undefined, options);
  }
  const parser = createParser({ onEvent: (message) => onEvent(message.event ?? 'message', message.data) });
  const decoder = new TextDecoder();
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export const api = {
  get: <T>(path: string, options?: RequestOptions) => request<T>('GET', path, options),
  post: <T>(path: string, body?: unknown, options?: RequestOptions) => request<T>('POST', path, { ...options, body }),
  patch: <T>(path: string, body?: unknown, options?: RequestOptions) => request<T>('PATCH', path, { ...options, body }),
  delete: <T>(path: string, options?: RequestOptions) => request<T>('DELETE', path, options),
};
