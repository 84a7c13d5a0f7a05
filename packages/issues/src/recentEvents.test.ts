import { randomUUID } from 'node:crypto';
import { RecentEventIds } from './recentEvents';

describe('RecentEventIds', () => {
  it('remembers event ids per project', () => {
    const recent = new RecentEventIds();
    const [projectA, projectB, event] = [randomUUID(), randomUUID(), randomUUID()];
    expect(recent.has(projectA, event)).toBe(false);
    recent.add(projectA, event);
    expect(recent.has(projectA, event)).toBe(true);
    expect(recent.has(projectB, event)).toBe(false);
    recent.add(projectA, event);
    expect(recent.size).toBe(1);
  });

  it('tells apart ids that differ only where a project id ends and an event id begins', () => {
    const recent = new RecentEventIds();
    recent.add('ab', 'c');
    expect(recent.has('a', 'bc')).toBe(false);
  });

  it('keeps 20,000 ids as its tables grow, without one false answer for 20,000 others', () => {
    const recent = new RecentEventIds();
    const project = randomUUID();
    const kept = Array.from({ length: 20_000 }, () => randomUUID());
    for (const id of kept) recent.add(project, id);
    expect(recent.size).toBe(20_000);
    expect(kept.every((id) => recent.has(project, id))).toBe(true);
    expect(Array.from({ length: 20_000 }, () => randomUUID()).some((id) => recent.has(project, id))).toBe(false);
  });

  it('keeps sequential ids apart, as a client numbering its events sends them', () => {
    const recent = new RecentEventIds();
    const hex = (value: number) => value.toString(16).padStart(32, '0').replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
    for (let value = 0; value < 20_000; value += 2) recent.add('project', hex(value));
    let found = 0;
    for (let value = 0; value < 20_000; value++) if (recent.has('project', hex(value))) found += 1;
    expect(found).toBe(10_000);
  });

  it('forgets the oldest generation once the newest holds its capacity', () => {
    const recent = new RecentEventIds(3);
    const ids = Array.from({ length: 7 }, () => randomUUID());
    for (const id of ids) recent.add('project', id);
    // [0, 1, 2] went when [3, 4, 5] filled up and [6] began a generation.
    expect(ids.map((id) => recent.has('project', id))).toEqual([false, false, false, true, true, true, true]);
    expect(recent.size).toBe(4);
  });

  it('does not add to the newest generation an id the older one holds', () => {
    const recent = new RecentEventIds(2);
    const [first, second, third] = [randomUUID(), randomUUID(), randomUUID()];
    recent.add('project', first);
    recent.add('project', second);
    recent.add('project', third);
    recent.add('project', second);
    expect(recent.size).toBe(3);
  });

  it('forgets everything when cleared', () => {
    const recent = new RecentEventIds();
    const id = randomUUID();
    recent.add('project', id);
    recent.clear();
    expect(recent.has('project', id)).toBe(false);
    expect(recent.size).toBe(0);
  });
});
