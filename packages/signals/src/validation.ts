import type { Static, TSchema } from '@sinclair/typebox';
import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { accept, reject, type ItemResult } from './result';

const ajv = addFormats(new Ajv({ allErrors: false, strict: false }), ['iso-date-time', 'uuid']);
// W3C trace context ids: lowercase or uppercase hex, never all zeros (an invalid id in the spec).
ajv.addFormat('trace-id', /^(?!0{32})[0-9a-fA-F]{32}$/);
ajv.addFormat('span-id', /^(?!0{16})[0-9a-fA-F]{16}$/);
// Protobuf's JSON mapping writes 64-bit integers as decimal strings.
ajv.addFormat('uint64', /^[0-9]{1,20}$/);

/** How a value of each format is described in a rejection reason. */
const FORMAT_NAMES: Record<string, string> = {
  'iso-date-time': 'an ISO 8601 date-time',
  uuid: 'a UUID',
  'trace-id': '32 hex digits, not all zero',
  'span-id': '16 hex digits, not all zero',
  uint64: 'a decimal integer string',
};

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
      return `${field} must be ${FORMAT_NAMES[String(error.params['format'])] ?? `a valid ${String(error.params['format'])}`}`;
    default:
      return `${field || 'item'} ${error.message ?? 'is invalid'}`;
  }
}

function joinPath(parent: string, child: string): string {
  return parent ? `${parent}.${child}` : child;
}
