import { StatsTally } from './stats';

const NOV = Date.UTC(2026, 10, 15);
const DEC = Date.UTC(2026, 11, 1);

const record = (projectId: string, receivedAt: number, properties: Record<string, string | number | boolean | unknown[]>) => ({
  projectId,
  receivedAt,
  properties,
});

describe('StatsTally', () => {
  it('counts every property per project and signal, with the type and up to five distinct examples in first-seen order', () => {
    const tally = new StatsTally();
    tally.addRecords('logs', [
      record('p1', NOV, { route: '/a', n: 1 }),
      record('p1', NOV, { route: '/b', n: 2 }),
      record('p1', NOV, { route: '/a' }),
      ...['/c', '/d', '/e', '/f'].map((route) => record('p1', NOV, { route })),
      record('p2', NOV, { route: '/z' }),
      record('p1', NOV, { route: '/g' }),
    ]);
    tally.addRecords('events', [record('p1', NOV, { route: '/events' })]);
    const { properties } = tally.take();
    expect(properties).toEqual(
      expect.arrayContaining([
        { projectId: 'p1', signal: 'logs', key: 'route', type: 'string', examples: ['/a', '/b', '/c', '/d', '/e'], volume: 8 },
        { projectId: 'p1', signal: 'logs', key: 'n', type: 'number', examples: [1, 2], volume: 2 },
        { projectId: 'p2', signal: 'logs', key: 'route', type: 'string', examples: ['/z'], volume: 1 },
        { projectId: 'p1', signal: 'events', key: 'route', type: 'string', examples: ['/events'], volume: 1 },
      ]),
    );
    expect(properties).toHaveLength(4);
  });

  it("reports a key seen with two types as 'mixed', shows arrays as JSON and cuts long examples", () => {
    const tally = new StatsTally();
    tally.addRecords('logs', [
      record('p', NOV, { id: 'abc', tags: ['a', 'b'], long: 'x'.repeat(150) }),
      record('p', NOV, { id: 42 }),
    ]);
    const byKey = Object.fromEntries(tally.take().properties.map((delta) => [delta.key, delta]));
    expect(byKey['id']).toMatchObject({ type: 'mixed', examples: ['abc', 42], volume: 2 });
    expect(byKey['tags']).toMatchObject({ type: 'array', examples: ['["a","b"]'] });
    expect(byKey['long']!.examples).toEqual([`${'x'.repeat(100)}…`]);
  });

  it('counts usage per project and calendar month of receipt, across interleaved runs', () => {
    const tally = new StatsTally();
    tally.addRecords('logs', [
      record('p1', NOV, {}),
      record('p1', NOV + 1, {}),
      record('p2', NOV, {}),
      record('p1', DEC, {}),
      record('p1', NOV, {}),
      record('p1', DEC - 1, {}),
    ]);
    expect(tally.take().usage.sort((a, b) => `${a.projectId}${a.month}`.localeCompare(`${b.projectId}${b.month}`))).toEqual([
      { projectId: 'p1', signal: 'logs', month: '2026-11-01', items: 4 },
      { projectId: 'p1', signal: 'logs', month: '2026-12-01', items: 1 },
      { projectId: 'p2', signal: 'logs', month: '2026-11-01', items: 1 },
    ]);
  });

  it('counts event names per project, across interleaved runs of projects', () => {
    const tally = new StatsTally();
    tally.addEventNames([
      { projectId: 'p', event: 'signup' },
      { projectId: 'q', event: 'signup' },
      { projectId: 'p', event: 'signup' },
      { projectId: 'p', event: 'login' },
    ]);
    tally.addEventNames([{ projectId: 'q', event: 'signup' }]);
    expect(tally.take().eventNames).toEqual([
      { projectId: 'p', name: 'signup', volume: 2 },
      { projectId: 'p', name: 'login', volume: 1 },
      { projectId: 'q', name: 'signup', volume: 2 },
    ]);
  });

  it('is empty after take, and restore puts back a failed flush merged with what arrived since', () => {
    const tally = new StatsTally();
    tally.addRecords('logs', [record('p', NOV, { route: '/a' })]);
    tally.addEventNames([{ projectId: 'p', event: 'e' }]);
    const failed = tally.take();
    expect(tally.empty).toBe(true);
    tally.addRecords('logs', [record('p', NOV, { route: '/b' })]);
    tally.restore(failed);
    const merged = tally.take();
    expect(merged.properties).toEqual([{ projectId: 'p', signal: 'logs', key: 'route', type: 'string', examples: ['/b', '/a'], volume: 2 }]);
    expect(merged.usage).toEqual([{ projectId: 'p', signal: 'logs', month: '2026-11-01', items: 2 }]);
    expect(merged.eventNames).toEqual([{ projectId: 'p', name: 'e', volume: 1 }]);
  });
});
