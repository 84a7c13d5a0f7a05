import type { AlertRule } from '@tlm/api-schemas';
import { formatRuleValue, ruleStatus } from '../src/pages/alerts/status';

describe("an alert rule's evaluated value as the alert pages show it", () => {
  it('rounds floating-point noise to six significant digits and groups the digits of whole numbers', () => {
    expect(formatRuleValue(195.57999999999998)).toBe('195.58');
    expect(formatRuleValue(0.012345678)).toBe('0.0123457');
    expect(formatRuleValue(1234567)).toBe('1,234,567');
    expect(formatRuleValue(123456.789)).toBe('123,457');
    expect(formatRuleValue(0)).toBe('0');
    expect(formatRuleValue(-2.5)).toBe('-2.5');
  });
});

describe("an alert rule's status as its badge shows it", () => {
  const rule = (fields: Partial<AlertRule>): AlertRule =>
    ({ enabled: true, muted_until: null, state: 'ok', last_evaluated_at: '2026-12-01T08:00:00.000Z', ...fields }) as AlertRule;
  const now = Date.parse('2026-12-01T08:30:00.000Z');

  it('is pending until the first evaluation, not ok: a new rule has said nothing yet', () => {
    expect(ruleStatus(rule({ last_evaluated_at: null }), now)).toBe('pending');
    expect(ruleStatus(rule({}), now)).toBe('ok');
    expect(ruleStatus(rule({ state: 'firing' }), now)).toBe('firing');
  });

  it('says disabled and muted before anything else, evaluated or not', () => {
    expect(ruleStatus(rule({ enabled: false, last_evaluated_at: null }), now)).toBe('disabled');
    expect(ruleStatus(rule({ muted_until: '2026-12-01T09:00:00.000Z', last_evaluated_at: null }), now)).toBe('muted');
    expect(ruleStatus(rule({ muted_until: '2026-12-01T08:00:00.000Z', state: 'firing' }), now)).toBe('firing');
  });
});
