import { Type } from '@sinclair/typebox';
import { ApiError } from './errors';
import { matches, parseBody, parsePath, parseQuery } from './validate';

const Query = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000 })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  deleted: Type.Optional(Type.Boolean()),
  name: Type.Optional(Type.String({ maxLength: 5 })),
  id: Type.Optional(Type.String({ pattern: '^[a-z]+$', title: 'lowercase letters' })),
  code: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  q: Type.String(),
});

function refusal(query: Record<string, unknown>): string {
  try {
    parseQuery(Query, query);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).code).toBe('VALIDATION_ERROR');
    return (error as ApiError).message;
  }
  throw new Error(`accepted ${JSON.stringify(query)}`);
}

describe('parseQuery: query parameters against the TypeBox schema the route is described with', () => {
  it('reads integers written in digits and booleans written true or false, and keeps text as text', () => {
    expect(parseQuery(Query, { q: 'from:logs', limit: '20', offset: '007', deleted: 'false', name: '12' })).toEqual({
      q: 'from:logs',
      limit: 20,
      offset: 7,
      deleted: false,
      name: '12',
    });
    expect(parseQuery(Query, { q: 'x', deleted: 'true' }).deleted).toBe(true);
  });

  it('takes an empty parameter as absent and ignores parameters the schema does not name', () => {
    expect(parseQuery(Query, { q: 'x', limit: '', deleted: '', _: '1700000000000', other: ['a', 'b'] })).toEqual({ q: 'x' });
    expect(refusal({ q: '' })).toBe('query parameter q is required');
  });

  it.each([
    ['a fraction', { limit: '2.5' }, 'query parameter limit must be an integer from 1 to 1000'],
    ['an exponent', { limit: '2e1' }, 'query parameter limit must be an integer from 1 to 1000'],
    ['a sign', { limit: '+5' }, 'query parameter limit must be an integer from 1 to 1000'],
    ['a space', { limit: ' 5' }, 'query parameter limit must be an integer from 1 to 1000'],
    ['a word', { limit: 'ten' }, 'query parameter limit must be an integer from 1 to 1000'],
    ['under the minimum', { limit: '0' }, 'query parameter limit must be an integer from 1 to 1000'],
    ['over the maximum', { limit: '1001' }, 'query parameter limit must be an integer from 1 to 1000'],
    ['a negative offset', { offset: '-1' }, 'query parameter offset must be an integer of at least 0'],
    ['a flag that is neither true nor false', { deleted: 'yes' }, 'query parameter deleted must be true or false'],
    ['a flag in capitals', { deleted: 'TRUE' }, 'query parameter deleted must be true or false'],
    ['a parameter given twice', { limit: ['1', '2'] }, 'query parameter limit must be given once'],
    ['text over its length', { name: 'longer' }, 'query parameter name is longer than 5 characters'],
    ['text off a pattern with a title', { id: 'Abc' }, 'query parameter id must be lowercase letters'],
    ['text off a pattern without one', { code: 'x1' }, 'query parameter code must match pattern "^[0-9]+$"'],
  ])('refuses %s with 400 VALIDATION_ERROR naming the parameter', (_what, query, message) => {
    expect(refusal({ q: 'x', ...query })).toBe(message);
  });
});

describe('parsePath: path parameters against the schema the route is described with', () => {
  const Path = Type.Object({ id: Type.String({ pattern: '^[a-z]+$', title: 'lowercase letters' }), seq: Type.Integer({ minimum: 0, maximum: 9 }) });

  it('reads an integer from its digits and keeps text as text', () => {
    expect(parsePath(Path, { id: 'abc', seq: '7' })).toEqual({ id: 'abc', seq: 7 });
  });

  it.each([
    [{ id: 'abc', seq: '10' }, 'path parameter seq must be an integer from 0 to 9'],
    [{ id: 'abc', seq: '1.5' }, 'path parameter seq must be an integer from 0 to 9'],
    [{ id: 'ABC', seq: '1' }, 'path parameter id must be lowercase letters'],
    [{ id: 'abc', seq: '-0' }, 'path parameter seq must be an integer from 0 to 9'],
  ])('refuses %j with 400 VALIDATION_ERROR naming the parameter', (params, message) => {
    expect(() => parsePath(Path, params)).toThrow(expect.objectContaining({ status: 400, code: 'VALIDATION_ERROR', message }));
  });
});

describe('parseBody: a body against its TypeBox schema', () => {
  const Body = Type.Object({ key: Type.String({ pattern: '^[A-Z]{3}$', title: 'three capital letters' }), code: Type.Optional(Type.String({ pattern: '^[0-9]+$' })) });

  it.each([
    ['text off a pattern with a title, in its words', { key: 'abc' }, 'request body: key must be three capital letters'],
    ['text off a pattern without one, by the pattern', { key: 'ABC', code: 'x' }, 'request body: code must match pattern "^[0-9]+$"'],
  ])('refuses %s with 400 VALIDATION_ERROR', (_what, body, message) => {
    expect(() => parseBody(Body, body)).toThrow(expect.objectContaining({ status: 400, code: 'VALIDATION_ERROR', message }));
  });
});

describe('matches', () => {
  it('tells whether a value satisfies a schema', () => {
    const Batch = Type.Object({ batch: Type.Array(Type.Unknown(), { maxItems: 2 }) });
    expect([matches(Batch, { batch: [1, 2] }), matches(Batch, { batch: [1, 2, 3] }), matches(Batch, [1]), matches(Batch, null)]).toEqual([true, false, false, false]);
  });
});
