import type { Static, TObject, TSchema } from '@sinclair/typebox';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { validationError } from './errors';

// verbose: an error carries the schema it broke, so a pattern can be named by its title (explain).
const ajv = addFormats(new Ajv({ allErrors: false, strict: false, coerceTypes: false, verbose: true }), ['email', 'uri', 'iso-date-time', 'uuid']);
const compiled = new WeakMap<TSchema, ValidateFunction>();

/** A string restricted to listed values, as a plain JSON Schema `enum` so errors can list them. */
export { StringEnum } from '@tlm/api-schemas';

/** Checks a request body against a TypeBox schema; 400 VALIDATION_ERROR naming the field otherwise. */
export function parseBody<S extends TSchema>(schema: S, body: unknown, what = 'request body'): Static<S> {
  const error = firstError(schema, body);
  if (error === null) return body as Static<S>;
  throw validationError(`${what}: ${explain(error)}`);
}

/**
 * Checks a request's query parameters against the route's TypeBox schema (the one the route registry describes it
 * with); 400 VALIDATION_ERROR naming the parameter otherwise (see `checkQuery`).
 */
export function parseQuery<S extends TObject>(schema: S, query: Record<string, unknown>): Static<S> {
  return parseParameters(schema, query, 'query parameter');
}

/**
 * Query parameters against a TypeBox schema, as a value or the reason they are refused, in words that name the
 * parameter. Parameters arrive as text: an empty one counts as absent, one the schema types as an integer is read when
 * it is written in decimal digits, a boolean when it is `true` or `false`; a parameter given more than once is
 * refused. Parameters the schema does not name are left out.
 */
export function checkQuery<S extends TObject>(schema: S, query: Record<string, unknown>): { ok: true; value: Static<S> } | { ok: false; reason: string } {
  const values: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(query)) {
    const property = schema.properties[name];
    if (value === '' || property === undefined) continue;
    if (Array.isArray(value)) return { ok: false, reason: `${name} must be given once` };
    values[name] = typeof value === 'string' ? fromText(value, property) : value;
  }
  const error = firstError(schema, values);
  if (error === null) return { ok: true, value: values as Static<S> };
  return { ok: false, reason: explainParameter(error, schema) };
}

/** Whether a value satisfies a TypeBox schema, for callers that word their own refusal. */
export function matches(schema: TSchema, value: unknown): boolean {
  return firstError(schema, value) === null;
}

/**
 * Checks a request's path parameters against the route's TypeBox schema (the registry's `params`), read as text the
 * way `checkQuery` reads query parameters; 400 VALIDATION_ERROR naming the parameter otherwise.
 */
export function parsePath<S extends TObject>(schema: S, params: Record<string, unknown>): Static<S> {
  return parseParameters(schema, params, 'path parameter');
}

function parseParameters<S extends TObject>(schema: S, values: Record<string, unknown>, kind: string): Static<S> {
  const checked = checkQuery(schema, values);
  if (checked.ok) return checked.value;
  throw validationError(`${kind} ${checked.reason}`);
}

function firstError(schema: TSchema, value: unknown): ErrorObject | null {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  // ajv lists at least one error whenever a value fails.
  return validate(value) ? null : validate.errors![0]!;
}

function fromText(text: string, schema: TSchema): unknown {
  // Decimal digits; a minus sign only before a number other than zero (`-0` is not read as 0).
  if (schema['type'] === 'integer' && /^(\d{1,15}|-[1-9]\d{0,14})$/.test(text)) return Number(text);
  if (schema['type'] === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

/** What a query parameter must be, in words where its type says more than the failed keyword. */
function explainParameter(error: ErrorObject, schema: TObject): string {
  if (error.keyword === 'required') return `${String(error.params['missingProperty'])} is required`;
  const name = error.instancePath.replace(/^\//, '');
  const property: TSchema | undefined = schema.properties[name];
  if (property?.['type'] === 'boolean') return `${name} must be true or false`;
  if (error.keyword === 'maxLength') return `${name} is longer than ${String(error.params['limit'])} characters`;
  if (property?.['type'] !== 'integer') return explain(error);
  const { minimum, maximum } = property as { minimum?: number; maximum?: number };
  if (minimum !== undefined && maximum !== undefined) return `${name} must be an integer from ${minimum} to ${maximum}`;
  if (minimum !== undefined) return `${name} must be an integer of at least ${minimum}`;
  return `${name} must be an integer${maximum === undefined ? '' : ` of at most ${maximum}`}`;
}

function explain(error: ErrorObject): string {
  const field = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (error.keyword === 'required') return `${field ? `${field}.` : ''}${String(error.params['missingProperty'])} is required`;
  if (error.keyword === 'enum') return `${field} must be one of ${(error.params['allowedValues'] as unknown[]).join(', ')}`;
  if (error.keyword === 'additionalProperties') return `unknown field ${String(error.params['additionalProperty'])}`;
  // A pattern is read by its title, the rule in words, where the schema gives one.
  const title = (error.parentSchema as { title?: unknown } | undefined)?.title;
  if (error.keyword === 'pattern' && typeof title === 'string') return `${field || 'body'} must be ${title}`;
  return `${field || 'body'} ${error.message ?? 'is invalid'}`;
}

/** ISO 8601 UTC with milliseconds (DECISIONS.md), or null. */
export function isoTime(value: Date | string | number): string;
export function isoTime(value: Date | string | number | null | undefined): string | null;
export function isoTime(value: Date | string | number | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return new Date(value).toISOString();
}
