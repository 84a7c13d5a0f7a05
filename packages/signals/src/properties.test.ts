import { PROPERTY_LIMITS, flattenInto, propertyProblem, propertyType, type Properties } from './properties';

const flat = (source: Record<string, unknown>): Properties => {
  const target: Properties = {};
  flattenInto(target, source);
  return target;
};

describe('flattenInto', () => {
  it('turns nested objects into dotted keys', () => {
    expect(flat({ user: { plan: 'pro', address: { city: 'Lyon' } }, route: '/a' })).toEqual({
      'user.plan': 'pro',
      'user.address.city': 'Lyon',
      route: '/a',
    });
  });

  it('keeps strings, finite numbers, booleans and arrays as they are', () => {
    expect(flat({ s: '', n: 0, f: -1.5, t: true, b: false, list: [1, { a: 2 }, null] })).toEqual({
      s: '',
      n: 0,
      f: -1.5,
      t: true,
      b: false,
      list: [1, { a: 2 }, null],
    });
  });

  it('drops nulls, undefined, non-finite numbers and empty objects', () => {
    expect(flat({ a: null, b: undefined, c: Number.NaN, d: Number.POSITIVE_INFINITY, e: {}, f: { g: null } })).toEqual({});
  });

  it(`stores objects nested deeper than ${PROPERTY_LIMITS.maxDepth} levels as JSON text under their dotted key`, () => {
    expect(PROPERTY_LIMITS.maxDepth).toBe(8);
    const deep = { l1: { l2: { l3: { l4: { l5: { l6: { l7: { l8: { l9: { leaf: 1 } } } } } } } } } };
    expect(flat(deep)).toEqual({ 'l1.l2.l3.l4.l5.l6.l7.l8.l9': '{"leaf":1}' });
    const withinLimit = { l1: { l2: { l3: { l4: { l5: { l6: { l7: { l8: { leaf: 1 } } } } } } } } };
    expect(flat(withinLimit)).toEqual({ 'l1.l2.l3.l4.l5.l6.l7.l8.leaf': 1 });
  });

  it('lets a later call overwrite earlier keys, so callers merge in precedence order', () => {
    const target: Properties = {};
    flattenInto(target, { plan: 'free', region: 'eu' });
    flattenInto(target, { plan: 'pro' });
    expect(target).toEqual({ plan: 'pro', region: 'eu' });
  });

  it('lets a dotted key and a nested object meet on one key; the later one wins', () => {
    expect(flat({ 'user.plan': 'flat', user: { plan: 'nested' } })).toEqual({ 'user.plan': 'nested' });
  });
});

describe('propertyProblem', () => {
  const bag = (keys: number): Properties => Object.fromEntries(Array.from({ length: keys }, (_, index) => [`k${index}`, index]));

  it('accepts up to 1,000 keys', () => {
    expect(PROPERTY_LIMITS.maxKeys).toBe(1_000);
    expect(propertyProblem(bag(1_000))).toBeUndefined();
  });

  it('rejects 1,001 keys', () => {
    expect(propertyProblem(bag(1_001))).toBe('too many properties (1001, at most 1000)');
  });

  it('accepts a key of 256 characters and rejects one of 257, quoting its start', () => {
    expect(PROPERTY_LIMITS.maxKeyLength).toBe(256);
    expect(propertyProblem({ ['a'.repeat(256)]: 1 })).toBeUndefined();
    expect(propertyProblem({ ok: 1, [`${'b'.repeat(40)}${'c'.repeat(217)}`]: 1 })).toBe(
      `property key longer than 256 characters: ${'b'.repeat(40)}…`,
    );
  });
});

describe('propertyType', () => {
  it('names the JSON type of a value', () => {
    expect([propertyType('x'), propertyType(1.5), propertyType(false), propertyType([1])]).toEqual(['string', 'number', 'boolean', 'array']);
  });
});
