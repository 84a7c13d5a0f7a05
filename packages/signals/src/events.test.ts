import { isUuid } from '@tlm/core';
import type { IngestContext } from './context';
import { toEventRecord, type EventRecord } from './events';

const RECEIVED_AT = Date.parse('2026-05-01T12:00:00.000Z');

const context = (overrides: Partial<IngestContext> = {}): IngestContext => ({
  projectId: '0190d6a4-7c3e-7a51-9e4b-3f0c2a1b5d6e',
  retentionDays: 3,
  receivedAt: RECEIVED_AT,
  client: {},
  ...overrides,
});

function accepted(input: unknown, ingest = context()): EventRecord {
  const result = toEventRecord(input, ingest);
  if (!result.ok) throw new Error(`expected the event to be accepted, got: ${result.reason}`);
  return result.value;
}

function rejection(input: unknown): string {
  const result = toEventRecord(input, context());
  if (result.ok) throw new Error('expected the event to be rejected');
  return result.reason;
}

describe('toEventRecord: the record', () => {
  it('builds the record of a minimal event with server time, a fresh id and the context', () => {
    const record = accepted({ event: 'signup' });
    expect(isUuid(record.id)).toBe(true);
    expect(record).toEqual({
      id: record.id,
      projectId: '0190d6a4-7c3e-7a51-9e4b-3f0c2a1b5d6e',
      timestamp: RECEIVED_AT,
      receivedAt: RECEIVED_AT,
      event: 'signup',
      distinctId: null,
      properties: {},
      retentionDays: 3,
    });
  });

  it('uses the item timestamp, reading one without a zone as UTC', () => {
    expect(accepted({ event: 'e', timestamp: '2026-04-30T23:59:59.999Z' }).timestamp).toBe(Date.parse('2026-04-30T23:59:59.999Z'));
    expect(accepted({ event: 'e', timestamp: '2026-04-30T23:59:59.999' }).timestamp).toBe(Date.parse('2026-04-30T23:59:59.999Z'));
  });

  it('flattens nested properties into dotted keys', () => {
    expect(accepted({ event: 'purchase', properties: { cart: { total: 19.99, items: ['a'] }, coupon: null } }).properties).toEqual({
      'cart.total': 19.99,
      'cart.items': ['a'],
    });
  });

  it('adds the server-injected client fields, letting the item describe itself but never set $ip', () => {
    const ingest = context({ client: { $browser: 'Firefox', $device: 'Desktop', $ip: '198.51.100.4' } });
    expect(accepted({ event: 'e', properties: { $device: 'Mobile', $ip: '1.2.3.4' } }, ingest).properties).toEqual({
      $device: 'Mobile',
      $browser: 'Firefox',
      $ip: '198.51.100.4',
    });
  });
});

describe('toEventRecord: distinct id', () => {
  it('accepts distinctId and stores it as properties.distinct_id', () => {
    const record = accepted({ event: 'signup', distinctId: 'user-1' });
    expect(record.distinctId).toBe('user-1');
    expect(record.properties).toEqual({ distinct_id: 'user-1' });
  });

  it('accepts distinct_id as well', () => {
    const record = accepted({ event: 'signup', distinct_id: 'user-2' });
    expect(record.distinctId).toBe('user-2');
    expect(record.properties).toEqual({ distinct_id: 'user-2' });
  });

  it('falls back to properties.distinct_id', () => {
    expect(accepted({ event: 'signup', properties: { distinct_id: 'user-3' } }).distinctId).toBe('user-3');
  });

  it('prefers distinctId over distinct_id over properties.distinct_id', () => {
    const all = accepted({ event: 'e', distinctId: 'camel', distinct_id: 'snake', properties: { distinct_id: 'property' } });
    expect([all.distinctId, all.properties['distinct_id']]).toEqual(['camel', 'camel']);
    const two = accepted({ event: 'e', distinct_id: 'snake', properties: { distinct_id: 'property' } });
    expect([two.distinctId, two.properties['distinct_id']]).toEqual(['snake', 'snake']);
  });

  it('stores a numeric distinct id as a string', () => {
    const record = accepted({ event: 'e', distinctId: 42 });
    expect(record.distinctId).toBe('42');
    expect(record.properties['distinct_id']).toBe('42');
  });

  it('treats an empty distinct id as none', () => {
    const record = accepted({ event: 'e', distinctId: '' });
    expect(record.distinctId).toBeNull();
    expect(record.properties).toEqual({});
  });
});

describe('toEventRecord: validation messages', () => {
  it.each([
    ['a missing event name', { distinctId: 'u' }, 'event is required'],
    ['an empty event name', { event: '' }, 'event must NOT have fewer than 1 characters'],
    ['an event name over 400 characters', { event: 'e'.repeat(401) }, 'event must NOT have more than 400 characters'],
    ['an event name that is not a string', { event: 7 }, 'event must be string'],
    ['a distinct id over 400 characters', { event: 'e', distinctId: 'u'.repeat(401) }, 'distinctId must NOT have more than 400 characters'],
    ['a distinct id that is an object', { event: 'e', distinct_id: { id: 1 } }, 'distinct_id must be string'],
    ['properties that are an array', { event: 'e', properties: [1, 2] }, 'properties must be object'],
    ['a timestamp that is not ISO 8601', { event: 'e', timestamp: '01/05/2026' }, 'timestamp must be an ISO 8601 date-time'],
    ['a timestamp more than 24 hours ahead', { event: 'e', timestamp: '2026-05-03T00:00:00Z' }, 'timestamp is more than 24 hours in the future'],
    ['an item that is not an object', [{ event: 'e' }], 'item must be object'],
  ])('rejects %s', (_label, input, message) => {
    expect(rejection(input)).toBe(message);
  });

  it('accepts an event name of exactly 400 characters', () => {
    expect(accepted({ event: 'e'.repeat(400) }).event).toHaveLength(400);
  });

  it('rejects an event with a property key longer than 256 characters', () => {
    expect(rejection({ event: 'e', properties: { ['k'.repeat(257)]: 1 } })).toBe(
      `property key longer than 256 characters: ${'k'.repeat(40)}…`,
    );
  });

  it('counts dotted keys toward the key length limit', () => {
    const parent = 'p'.repeat(200);
    const child = 'c'.repeat(56);
    expect(accepted({ event: 'e', properties: { [parent]: { [child.slice(1)]: 1 } } }).properties).toEqual({
      [`${parent}.${child.slice(1)}`]: 1,
    });
    expect(rejection({ event: 'e', properties: { [parent]: { [child]: 1 } } })).toBe(
      `property key longer than 256 characters: ${'p'.repeat(40)}…`,
    );
  });
});
