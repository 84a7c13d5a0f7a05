import { complete, type SchemaDocument } from './complete';

const schema: SchemaDocument = {
  log_properties: [
    { key: 'route', type: 'string', examples: ['/checkout', '/login'], volume: 120 },
    { key: 'user.plan', type: 'string', examples: ['pro', 'free plan'], volume: 40 },
    { key: 'amount', type: 'number', examples: [12.5], volume: 30 },
  ],
  event_properties: [{ key: 'plan', type: 'string', examples: ['pro'], volume: 9 }],
  event_names: [
    { name: 'pageview', volume: 100 },
    { name: 'signup', volume: 10 },
  ],
};

const texts = (text: string, cursor?: number) => complete(text, cursor, schema).suggestions.map((suggestion) => suggestion.text);

describe('complete', () => {
  it('suggests sources after from:', () => {
    const { suggestions } = complete('from:', 5, schema);
    expect(suggestions.map((suggestion) => suggestion.text)).toEqual(['logs', 'events', 'errors', 'issues', 'alerts', 'alert_events', 'spans', 'vitals', 'sessions']);
    expect(suggestions.every((suggestion) => suggestion.kind === 'source')).toBe(true);
    expect(texts('from:al')).toEqual(['alerts', 'alert_events']);
  });

  it('suggests the fields of the source: columns, aliases and discovered properties by volume', () => {
    const fields = complete('from:logs ', undefined, schema).suggestions.filter((suggestion) => suggestion.kind === 'field');
    expect(fields.map((field) => field.text)).toEqual([
      'timestamp',
      'id',
      'severity',
      'message',
      'trace_id',
      'span_id',
      'received_at',
      'level',
      'route',
      'user.plan',
      'amount',
      'properties.',
    ]);
    expect(fields.find((field) => field.text === 'route')).toEqual({ text: 'route', description: 'property (string), seen 120 times', kind: 'field' });
    expect(texts('from:events pl')).toEqual(['plan']);
    expect(texts('from:logs | count by us')).toEqual(['user.plan']);
  });

  it('quotes property names that would not read back as the property: spaces, operators, keywords', () => {
    const odd: SchemaDocument = {
      log_properties: ['order id', 'limit', 'Limit', 'http:status', '-x', '$browser'].map((key) => ({ key, type: 'string', examples: ['v'], volume: 1 })),
      event_properties: [],
      event_names: [],
    };
    const fields = complete('from:logs ', undefined, odd).suggestions.filter((suggestion) => suggestion.kind === 'field').map((suggestion) => suggestion.text);
    expect(fields.slice(8, -1)).toEqual(['"order id"', '"limit"', '"Limit"', '"http:status"', '"-x"', '$browser']);
    expect(complete('from:logs ord', undefined, odd).suggestions.map((suggestion) => suggestion.text)).toEqual(['"order id"']);
    expect(complete('from:logs "ord', undefined, odd).suggestions.map((suggestion) => suggestion.text)).toEqual(['"order id"']);
    expect(complete('"order id":', undefined, odd).suggestions.map((suggestion) => suggestion.text)).toEqual(['v']);
    // Each suggestion, written as the condition's field, names that property.
    for (const text of fields.slice(8, -1)) {
      expect(complete(`${text}:v`, undefined, odd).parsed.filters).toEqual([{ field: JSON.parse(text.startsWith('"') ? text : `"${text}"`), op: '=', value: 'v' }]);
    }
  });

  it('suggests operators after a field', () => {
    const { suggestions } = complete('severity ', 9, schema);
    expect(suggestions.slice(0, 8).map((suggestion) => suggestion.text)).toEqual([':', '=', '!=', '>', '>=', '<', '<=', 'in']);
    expect(suggestions[0]!.kind).toBe('operator');
  });

  it('suggests known values: severities, statuses, event names and property examples', () => {
    expect(complete('severity:', 9, schema).suggestions).toEqual(
      ['debug', 'info', 'warn', 'error', 'fatal'].map((text) => ({ text, description: 'severity value', kind: 'value' })),
    );
    expect(texts('level:e')).toEqual(['error']);
    expect(texts('from:issues status:')).toEqual(['unresolved', 'resolved', 'ignored', 'regressed']);
    expect(texts('from:events event_name = ')).toEqual(['pageview', 'signup']);
    expect(texts('route:')).toEqual(['/checkout', '/login']);
    expect(texts('user.plan in [pro, ')).toEqual(['pro', '"free plan"']);
    expect(texts('from:alerts enabled:')).toEqual(['true', 'false']);
  });

  it('suggests the examples of a property named with its bag: properties.route: as route:', () => {
    expect(texts('properties.route:')).toEqual(['/checkout', '/login']);
    expect(texts('properties.user.plan = ')).toEqual(['pro', '"free plan"']);
    expect(texts('from:events properties.plan:')).toEqual(['pro']);
    // properties.severity is a property, not the column: the column's severities are no examples of it.
    expect(texts('properties.severity:')).toEqual([]);
  });

  it('suggests functions and stages after |', () => {
    const { suggestions } = complete('from:logs | ', 12, schema);
    expect(suggestions.slice(0, 5).map((suggestion) => suggestion.text)).toEqual(['count', 'count_distinct(', 'sum(', 'avg(', 'min(']);
    expect(suggestions[0]!.kind).toBe('function');
    expect(texts('from:logs | p9')).toEqual(['p90(', 'p95(', 'p99(']);
    expect(texts('count ')).toContain('by');
    expect(texts('last ')).toEqual(['15m', '1h', '24h', '7d', '30d']);
  });

  it('completes at the cursor, not at the end of the text', () => {
    expect(texts('from:ev | count', 7)).toEqual(['events']);
  });

  it('says whether the whole query is valid and what it parsed', () => {
    expect(complete('from:events signup | count', undefined, schema)).toMatchObject({
      valid: true,
      parsed: { source: 'events', filters: [{ field: '_text', op: 'search', value: 'signup' }] },
    });
    expect(complete('from:events | count by', undefined, schema)).toMatchObject({ valid: false, parsed: { source: 'events', filters: [] } });
    expect(complete('from:nowhere x:1', undefined, schema)).toMatchObject({ valid: false, parsed: { source: 'nowhere' } });
  });

  it('never throws on broken input', () => {
    for (const text of ['"', '(((', ')', '!', 'a:[', '\u0000', 'x'.repeat(20_000)]) {
      expect(() => complete(text, 3, schema)).not.toThrow();
      expect(() => complete(text, -5, undefined)).not.toThrow();
    }
  });
});
