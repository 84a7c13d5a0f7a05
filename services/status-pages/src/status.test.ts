import type { IncidentRow, StatusPageRow } from '@tlm/metadata-store';
import { snapshotJson, uptimePercent } from './status';

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
