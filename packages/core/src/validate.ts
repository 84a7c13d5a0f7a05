import type { Static, TSchema } from '@sinclair/typebox';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { validationError } from './errors';

const ajv = addFormats(new Ajv({ allErrors: false, strict: false, coerceTypes: false }), ['email', 'uri', 'iso-date-time', 'uuid']);
const compiled = new WeakMap<TSchema, ValidateFunction>();

/** A string restricted to listed values, as a plain JSON Schema `enum` so errors can list them. */
export { StringEnum } from '@tlm/api-schemas';

/** Checks a request body (or query object) against a TypeBox schema; 400 VALIDATION_ERROR naming the field otherwise. */
export function parseBody<S extends TSchema>(schema: S, body: unknown, what = 'request body'): Static<S> {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(body)) return body as Static<S>;
  throw validationError(`${what}: ${explain(validate.errors?.[0])}`);
}

function explain(error: ErrorObject | undefined): string {
  if (!error) return 'invalid';
  const field = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (error.keyword === 'required') return `${field ? `${field}.` : ''}${String(error.params['missingProperty'])} is required`;
  if (error.keyword === 'enum') return `${field} must be one of ${(error.params['allowedValues'] as unknown[]).join(', ')}`;
  if (error.keyword === 'additionalProperties') return `unknown field ${String(error.params['additionalProperty'])}`;
  return `${field || 'body'} ${error.message ?? 'is invalid'}`;
}

/** ISO 8601 UTC with milliseconds (DECISIONS.md), or null. */
export function isoTime(value: Date | string | number): string;
export function isoTime(value: Date | string | number | null | undefined): string | null;
export function isoTime(value: Date | string | number | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return new Date(value).toISOString();
}
