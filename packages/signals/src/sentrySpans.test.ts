import { sentryStatus, sentryTime, spanV2Item, transactionParts } from './sentrySpans';

describe('sentryTime and sentryStatus', () => {
  it('reads float seconds and RFC 3339 text as epoch milliseconds', () => {
    expect(sentryTime(1716000000.1234)).toBeCloseTo(1716000000123.4, 3);
    expect(sentryTime('2024-05-18T02:40:00.500Z')).toBe(Date.parse('2024-05-18T02:40:00.500Z'));
    expect(sentryTime('2024-05-18T02:40:00.500')).toBe(Date.parse('2024-05-18T02:40:00.500Z'));
    expect(sentryTime('later')).toBeUndefined();
    expect(sentryTime(undefined)).toBeUndefined();
    expect(sentryTime(Number.NaN)).toBeUndefined();
  });

  it.each([
    [undefined, 'ok'],
    ['ok', 'ok'],
    ['cancelled', 'ok'],
    ['internal_error', 'error'],
    ['unknown_error', 'error'],
    ['not_found', 'error'],
    ['deadline_exceeded', 'error'],
  ])('reduces status %j to %s', (status, expected) => {
    expect(sentryStatus(status)).toBe(expected);
  });
});

describe('transactionParts', () => {
  const event = {
    type: 'transaction',
    transaction: '/checkout',
    start_timestamp: 1716000000,
    timestamp: 1716000001.5,
    release: 'web@2',
    environment: 'prod',
    tags: { service: 'storefront', region: 'eu' },
    contexts: {
      trace: {
        trace_id: '5b8efff798038103d269b633813fc60c',
        span_id: 'aaaaaaaaaaaaaaaa',
        parent_span_id: 'bbbbbbbbbbbbbbbb',
        op: 'pageload',
        status: 'ok',
        data: { 'otel.kind': 'SERVER', region: 'data wins' },
      },
    },
    spans: [
      { span_id: 'cccccccccccccccc', parent_span_id: 'aaaaaaaaaaaaaaaa', op: 'resource.script', description: 'app.js', start_timestamp: 1716000000.1, timestamp: 1716000000.3, data: { size: 10 }, tags: { cached: 'yes' } },
      { span_id: 'dddddddddddddddd', op: 'ui.long-task', start_timestamp: 1716000000.2, timestamp: 1716000000.25, status: 'internal_error', trace_id: 'eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', data: { 'service.name': 'worker' } },
    ],
    measurements: {
      lcp: { value: 2.6, unit: 'second' },
      cls: { value: 0.05, unit: '' },
      inp: { value: 150 },
      fp: { value: 100, unit: 'millisecond' },
      ttfb: { value: 'fast' },
    },
  };

  it('makes the transaction the root span, with tags under its data', () => {
    const parts = transactionParts(event);
    expect(parts.ok && parts.value.root).toEqual({
      trace_id: '5b8efff798038103d269b633813fc60c',
      span_id: 'aaaaaaaaaaaaaaaa',
      parent_span_id: 'bbbbbbbbbbbbbbbb',
      name: '/checkout',
      op: 'pageload',
      kind: 'server',
      status: 'ok',
      start_timestamp: 1716000000000,
      end_timestamp: 1716000001500,
      attributes: { service: 'storefront', region: 'data wins', 'otel.kind': 'SERVER' },
      service: 'storefront',
      release: 'web@2',
      environment: 'prod',
    });
  });

  it("gives children the transaction's trace id, service, release and environment unless they carry their own", () => {
    const parts = transactionParts(event);
    if (!parts.ok) throw new Error(parts.reason);
    expect(parts.value.children[0]).toMatchObject({
      trace_id: '5b8efff798038103d269b633813fc60c',
      name: 'app.js',
      op: 'resource.script',
      status: 'ok',
      attributes: { size: 10, cached: 'yes' },
      service: 'storefront',
      release: 'web@2',
      environment: 'prod',
    });
    expect(parts.value.children[0]!['start_timestamp']).toBeCloseTo(1716000000100, 3);
    expect(parts.value.children[1]).toMatchObject({ trace_id: 'eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', name: 'ui.long-task', status: 'error', service: 'worker' });
  });

  it('takes the Core Web Vitals among the measurements, in milliseconds, routed by the transaction name', () => {
    const parts = transactionParts(event);
    expect(parts.ok && parts.value.vitals).toEqual([
      { name: 'lcp', value: 2600, route: '/checkout', timestamp: '2024-05-18T02:40:00.000Z', trace_id: '5b8efff798038103d269b633813fc60c', release: 'web@2', environment: 'prod' },
      { name: 'inp', value: 150, route: '/checkout', timestamp: '2024-05-18T02:40:00.000Z', trace_id: '5b8efff798038103d269b633813fc60c', release: 'web@2', environment: 'prod' },
      { name: 'cls', value: 0.05, route: '/checkout', timestamp: '2024-05-18T02:40:00.000Z', trace_id: '5b8efff798038103d269b633813fc60c', release: 'web@2', environment: 'prod' },
    ]);
  });

  it('leaves out what is absent, so the trace id can come from the traceparent header', () => {
    const parts = transactionParts({ contexts: { trace: { span_id: 'aaaaaaaaaaaaaaaa' } }, spans: [{ span_id: 'cccccccccccccccc' }] });
    expect(parts.ok && parts.value).toEqual({
      root: { span_id: 'aaaaaaaaaaaaaaaa', name: '', status: 'ok', attributes: {} },
      children: [{ span_id: 'cccccccccccccccc', name: '', status: 'ok', attributes: {} }],
      vitals: [],
    });
  });

  it('rejects a transaction without a trace context span id', () => {
    expect(transactionParts({ transaction: 'x' })).toEqual({ ok: false, reason: 'contexts.trace.span_id is required' });
  });
});

describe('spanV2Item', () => {
  it('unwraps typed attributes and reads op, release and environment from them', () => {
    const item = spanV2Item({
        trace_id: '6cf173d587eb48568a9b2e12dcfbea52',
        span_id: '438f40bd3b4a41ee',
        name: 'GET /users',
        status: 'ok',
        is_segment: true,
        start_timestamp: 1742921669.158209,
        end_timestamp: 1742921669.180536,
        attributes: {
          'sentry.op': { type: 'string', value: 'http.server' },
          'sentry.release': { type: 'string', value: '1.0.0' },
          'sentry.environment': { type: 'string', value: 'local' },
          'service.name': { type: 'string', value: 'users' },
          'otel.kind': { type: 'string', value: 'CLIENT' },
          'session.duration': { type: 'integer', value: 164, unit: 'second' },
          raw: 3,
        },
    });
    expect(item['end_timestamp']).toBeCloseTo(1742921669180.536, 3);
    expect(item).toEqual({
      trace_id: '6cf173d587eb48568a9b2e12dcfbea52',
      span_id: '438f40bd3b4a41ee',
      name: 'GET /users',
      op: 'http.server',
      kind: 'client',
      status: 'ok',
      start_timestamp: 1742921669158.209,
      end_timestamp: item['end_timestamp'],
      attributes: {
        'sentry.op': 'http.server',
        'sentry.release': '1.0.0',
        'sentry.environment': 'local',
        'service.name': 'users',
        'otel.kind': 'CLIENT',
        'session.duration': 164,
        raw: 3,
      },
      service: 'users',
      release: '1.0.0',
      environment: 'local',
    });
  });

  it('maps any status but ok to error and keeps a parent span id', () => {
    expect(spanV2Item({ status: 'error', parent_span_id: 'aaaaaaaaaaaaaaaa' })).toMatchObject({ status: 'error', parent_span_id: 'aaaaaaaaaaaaaaaa' });
  });
});
