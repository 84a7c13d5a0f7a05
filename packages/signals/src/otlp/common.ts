import { Type } from '@sinclair/typebox';

/**
 * Pieces every OTLP/HTTP JSON request shares (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding):
 * attributes as `[{key, value: AnyValue}]`, 64-bit integers as decimal strings or numbers, enums as integers (names
 * are accepted too), trace and span ids as hex. Fields this service does not use are ignored.
 */

/**
 * Spans or log records in one OTLP request. OpenTelemetry's batch processors export up to 512 at a time, so the OTLP
 * doors allow more than the 500 items of a `{batch}` request; the 2 MB body limit still holds.
 */
export const MAX_OTLP_ITEMS = 1_000;

export const OtlpKeyValueList = Type.Array(Type.Unknown(), { description: '[{key, value: AnyValue}]' });

export const OtlpResourceSchema = Type.Object({ attributes: Type.Optional(OtlpKeyValueList) });

export const OtlpScopeSchema = Type.Object({
  name: Type.Optional(Type.String()),
  version: Type.Optional(Type.String()),
  attributes: Type.Optional(OtlpKeyValueList),
});

/** fixed64 and int64 fields: a decimal string (the JSON mapping's form) or a number. */
export const OtlpUint64 = Type.Union([Type.String({ format: 'uint64' }), Type.Integer({ minimum: 0 })]);

/** An enum field: its integer value, or its name (`SPAN_KIND_SERVER`), which the protobuf JSON mapping also allows. */
export const OtlpEnum = Type.Union([Type.Integer(), Type.String()]);

/** Nanoseconds since the epoch as epoch milliseconds, keeping microseconds; undefined for 0 (unset). */
export function nanosToMillis(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return value > 0 ? value / 1e6 : undefined;
  if (/^0*$/.test(value)) return undefined;
  return Number(BigInt(value) / 1_000n) / 1_000;
}

/** An AnyValue as plain JSON: kvlists become objects, arrays arrays, int64 numbers when exact, bytes base64 text. */
export function anyValue(value: unknown): unknown {
  if (!value || typeof value !== 'object') return undefined;
  const any = value as Record<string, unknown>;
  if ('stringValue' in any) return typeof any['stringValue'] === 'string' ? any['stringValue'] : undefined;
  if ('boolValue' in any) return typeof any['boolValue'] === 'boolean' ? any['boolValue'] : undefined;
  if ('intValue' in any) return intValue(any['intValue']);
  if ('doubleValue' in any) return doubleValue(any['doubleValue']);
  if ('arrayValue' in any) {
    const values = (any['arrayValue'] as { values?: unknown } | null)?.values;
    return Array.isArray(values) ? values.map(anyValue).filter((item) => item !== undefined) : [];
  }
  if ('kvlistValue' in any) return attributesOf((any['kvlistValue'] as { values?: unknown } | null)?.values);
  if ('bytesValue' in any) return bytesValue(any['bytesValue']);
  return undefined;
}

/** `[{key, value}]` as an object; entries without a string key or a readable value are skipped. */
export function attributesOf(list: unknown): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  if (!Array.isArray(list)) return attributes;
  for (const entry of list) {
    const key = (entry as { key?: unknown } | null)?.key;
    if (typeof key !== 'string' || key === '') continue;
    const value = anyValue((entry as { value?: unknown }).value);
    if (value !== undefined) attributes[key] = value;
  }
  return attributes;
}

function intValue(value: unknown): number | string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || !/^-?[0-9]+$/.test(value)) return undefined;
  const parsed = Number(value);
  // Beyond 2^53 a number would silently change the value; the decimal text keeps it.
  return Number.isSafeInteger(parsed) ? parsed : value;
}

/** Base64 text: as the JSON mapping writes bytes, or from the buffer a protobuf body decodes to. */
function bytesValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  return value instanceof Uint8Array ? Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') : undefined;
}

function doubleValue(value: unknown): number | string | undefined {
  if (typeof value === 'number') return value;
  // The JSON mapping writes non-finite doubles as "NaN", "Infinity" and "-Infinity"; they are kept as text.
  return typeof value === 'string' ? value : undefined;
}

/** Hex ids: the empty string the JSON mapping uses for "unset" counts as absent. */
export function optionalId(value: unknown): unknown {
  return value === '' || value === null ? undefined : value;
}

/** The resource attributes that name where telemetry comes from, in OpenTelemetry's semantic conventions. */
export function resourceIdentity(attributes: Record<string, unknown>): { service?: string; release?: string; environment?: string } {
  const text = (...keys: string[]) => {
    for (const key of keys) {
      const value = attributes[key];
      if (typeof value === 'string' && value !== '') return value;
    }
    return undefined;
  };
  return {
    service: text('service.name'),
    release: text('service.version'),
    environment: text('deployment.environment.name', 'deployment.environment'),
  };
}
