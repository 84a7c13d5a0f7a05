import type { IncidentRow, StatusPageRow } from '@tlm/metadata-store';
import { snapshotJson, uptimeDays, uptimePercent } from './status';

const NOW = new Date('2026-11-22T12:00:00.000Z');
const HOUR = 3_600_000;

function incident(overrides: Partial<IncidentRow>): IncidentRow {
  return {
    id: 'i',
    page_id: 'p',
    title: 't',
    status: 'resolved',
    impact: 'major',
    components: [],
    updates: [],
    created_at: new Date(NOW.getTime() - 10 * HOUR),
    updated_at: NOW,
    resolved_at: new Date(NOW.getTime() - 9 * HOUR),
    ...overrides,
  };
}

describe('uptimePercent', () => {
  it('is 100 without major or critical incidents', () => {
    expect(uptimePercent([incident({ impact: 'minor' }), incident({ impact: 'none' })], NOW)).toBe(100);
  });

  it('subtracts each outage hour once, merging overlaps and running open incidents until now', () => {
    const window = 90 * 24;
    const overlapping = [
      incident({ created_at: new Date(NOW.getTime() - 10 * HOUR), resolved_at: new Date(NOW.getTime() - 8 * HOUR) }),
      incident({ impact: 'critical', created_at: new Date(NOW.getTime() - 9 * HOUR), resolved_at: new Date(NOW.getTime() - 7 * HOUR) }),
      incident({ status: 'investigating', created_at: new Date(NOW.getTime() - HOUR), resolved_at: null }),
    ];
    expect(uptimePercent(overlapping, NOW)).toBe(Math.round((1 - 4 / window) * 100_000) / 1_000);
  });

  it('counts only the part of an outage inside the window', () => {
    const old = incident({ created_at: new Date(NOW.getTime() - 91 * 24 * HOUR), resolved_at: new Date(NOW.getTime() - 90 * 24 * HOUR + 2 * HOUR) });
    expect(uptimePercent([old], NOW)).toBe(Math.round((1 - 2 / (90 * 24)) * 100_000) / 1_000);
  });
});

describe('snapshotJson', () => {
  const page: StatusPageRow = {
    id: 'p',
    org_id: 'o',
    slug: 'acme',
    title: 'Acme',
    project_id: null,
    components: [{ name: 'API' }, { name: 'Dashboard' }],
    created_at: NOW,
    updated_at: NOW,
  };

  it('derives component and page status from the worst open incident affecting them', () => {
    const snapshot = snapshotJson(
      page,
      [
        incident({ status: 'investigating', impact: 'major', components: ['API'], resolved_at: null }),
        incident({ status: 'resolved', impact: 'critical', components: ['Dashboard'] }),
      ],
      NOW,
    );
    expect(snapshot.status).toBe('partial_outage');
    expect(snapshot.components).toEqual([
      { name: 'API', status: 'partial_outage' },
      { name: 'Dashboard', status: 'operational' },
    ]);
    expect(snapshot.incidents).toHaveLength(1);
  });

  it('is operational with no open incident; an incident naming no component affects all', () => {
    expect(snapshotJson(page, [], NOW).status).toBe('operational');
    const everywhere = snapshotJson(page, [incident({ status: 'identified', impact: 'minor', resolved_at: null })], NOW);
    expect(everywhere.status).toBe('degraded');
    expect(everywhere.components.map((component) => component.status)).toEqual(['degraded_performance', 'degraded_performance']);
  });
});

describe('uptimeDays', () => {
  const dayStart = Date.parse('2026-11-22T00:00:00.000Z');

  it('gives 90 UTC days, oldest first and today last, operational without incidents', () => {
    const days = uptimeDays([], 'API', NOW);
    expect(days).toHaveLength(90);
    expect(days[0]).toEqual({ date: '2026-08-25', level: 'operational', percent: 100, incidents: [] });
    expect(days.at(-1)!.date).toBe('2026-11-22');
  });

  it("takes a day's worst impact among incidents open during it, and its percent from major and critical ones only", () => {
    const incidents = [
      incident({ title: 'Slow', impact: 'minor', components: ['API'], created_at: new Date(dayStart - 20 * HOUR), resolved_at: new Date(dayStart - 18 * HOUR) }),
      incident({ title: 'Down', impact: 'critical', components: ['API'], created_at: new Date(dayStart - 23 * HOUR), resolved_at: new Date(dayStart - 17 * HOUR) }),
      incident({ title: 'Dashboard only', impact: 'critical', components: ['Dashboard'], created_at: new Date(dayStart - 5 * HOUR), resolved_at: new Date(dayStart - 4 * HOUR) }),
    ];
    const yesterday = uptimeDays(incidents, 'API', NOW).at(-2)!;
    expect(yesterday).toEqual({ date: '2026-11-21', level: 'major_outage', percent: 75, incidents: ['Down', 'Slow'] });
  });

  it('splits an incident across the days it spans and measures today against its elapsed part, an open incident running until now', () => {
    const open = incident({ title: 'Ongoing', impact: 'major', status: 'investigating', created_at: new Date(dayStart - 6 * HOUR), resolved_at: null });
    const days = uptimeDays([open], 'API', NOW);
    expect(days.at(-2)).toMatchObject({ level: 'partial_outage', percent: 75 });
    expect(days.at(-1)).toMatchObject({ level: 'partial_outage', percent: 0 });
  });
});

describe('a page younger than the window', () => {
  // Made at 06:00 the day before NOW; a major outage has run for the last two hours.
  const since = new Date('2026-11-21T06:00:00.000Z');
  const outage = incident({ status: 'investigating', created_at: new Date(NOW.getTime() - 2 * HOUR), resolved_at: null });

  it('has no data on the days before it existed, and counts its first day from its creation', () => {
    const days = uptimeDays([outage], 'api', NOW, 90, since);
    expect(days.slice(0, 88).every((day) => day.level === 'no_data' && day.percent === null && day.incidents.length === 0)).toBe(true);
    expect(days[88]).toEqual({ date: '2026-11-21', level: 'operational', percent: 100, incidents: [] });
    // Today: 2 of its 12 elapsed hours down.
    expect(days[89]).toMatchObject({ date: '2026-11-22', level: 'partial_outage', percent: 83.333 });
  });

  it('counts uptime from its creation, so an outage of hours shows in it', () => {
    // 2 hours down of the 30 since the page was made.
    expect(uptimePercent([outage], NOW, 90, since)).toBe(93.333);
    expect(uptimePercent([outage], NOW)).toBe(99.907);
  });
});
