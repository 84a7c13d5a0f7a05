import { formatRuleValue } from '../src/pages/alerts/status';

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
