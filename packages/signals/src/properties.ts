import { accept, reject, type ItemResult } from './result';

/** A flat property bag: nested objects become dotted keys ("user.plan"), arrays stay JSON arrays. */
export type PropertyValue = string | number | boolean | unknown[];
export type Properties = Record<string, PropertyValue>;

export const PROPERTY_LIMITS = {
  /** More keys than this in one item rejects the item. */
  maxKeys: 1_000,
  /** Longer keys reject the item. */
  maxKeyLength: 256,
  /** Objects nested deeper than this are stored as JSON text under their dotted key. */
  maxDepth: 8,
};

/**
 * Copies `source` into `target` flat: `{user: {plan: 'pro'}}` becomes `user.plan = 'pro'`. Nulls are absent
 * values and are dropped. Later calls overwrite earlier keys, so callers merge in precedence order.
 */
export function flattenInto(target: Properties, source: Record<string, unknown>, prefix = '', depth = 0): void {
  // Object.keys rather than Object.entries: no [name, value] array per property (this runs for every item's bags).
  for (const name of Object.keys(source)) flattenValue(target, prefix + name, source[name], depth);
}

/** Copies one value into `target` under `key`, flattening an object below it; `depth` is the key's nesting. */
export function flattenValue(target: Properties, key: string, value: unknown, depth: number): void {
  if (value === null || value === undefined) return;
  if (typeof value === 'object' && !Array.isArray(value)) {
    if (depth < PROPERTY_LIMITS.maxDepth) flattenInto(target, value as Record<string, unknown>, `${key}.`, depth + 1);
    else setProperty(target, key, JSON.stringify(value));
  } else if (typeof value === 'string' || typeof value === 'boolean' || Array.isArray(value)) {
    setProperty(target, key, value);
  } else if (typeof value === 'number' && Number.isFinite(value)) {
    setProperty(target, key, value);
  }
}

/** `target[key] = value`, except that a key named `__proto__` is stored as a property, not taken as the prototype. */
function setProperty(target: Properties, key: string, value: PropertyValue): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** Says why a flattened bag cannot be stored, or undefined when it can. */
export function propertyProblem(properties: Properties): string | undefined {
  const keys = Object.keys(properties);
  if (keys.length > PROPERTY_LIMITS.maxKeys) return `too many properties (${keys.length}, at most ${PROPERTY_LIMITS.maxKeys})`;
  const long = keys.find((key) => key.length > PROPERTY_LIMITS.maxKeyLength);
  if (long) return `property key longer than ${PROPERTY_LIMITS.maxKeyLength} characters: ${long.slice(0, 40)}…`;
  return undefined;
}

/** The bags flattened into one, later bags winning on a clash, or why the result cannot be stored. */
export function flatProperties(...bags: (Record<string, unknown> | undefined)[]): ItemResult<Properties> {
  const properties: Properties = {};
  for (const bag of bags) if (bag) flattenInto(properties, bag);
  const problem = propertyProblem(properties);
  return problem ? reject(problem) : accept(properties);
}

/** JSON type name of a property value as the schema document reports it. */
export function propertyType(value: PropertyValue): 'string' | 'number' | 'boolean' | 'array' {
  if (Array.isArray(value)) return 'array';
  return typeof value as 'string' | 'number' | 'boolean';
}
