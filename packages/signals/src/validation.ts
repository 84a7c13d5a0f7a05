import type { Static, TSchema } from '@sinclair/typebox';
import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { accept, reject, type ItemResult } from './result';

const ajv = addFormats(new Ajv({ allErrors: false, strict: false }), ['iso-date-time', 'uuid']);

/** Compiles a schema once; the returned function checks one item and says what is wrong in words. */
export function itemValidator<S extends TSchema>(schema: S): (item: unknown) => ItemResult<Static<S>> {
  const validate = ajv.compile(schema);
  return (item) => {
    if (validate(item)) return accept(item as Static<S>);
    return reject(describe(validate.errors?.[0]));
  };
}

function describe(error: ErrorObject | undefined): string {
  if (!error) return 'invalid item';
  const field = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  switch (error.keyword) {
    case 'required':
      return `${joinPath(field, String(error.params['missingProperty']))} is required`;
    case 'enum':
      return `${field} must be one of ${(error.params['allowedValues'] as unknown[]).join(', ')}`;
    case 'format':
      return `${field} must be an ISO 8601 date-time`;
    default:
      return `${field || 'item'} ${error.message ?? 'is invalid'}`;
  }
}

function joinPath(parent: string, child: string): string {
  return parent ? `${parent}.${child}` : child;
}
