import { sentryStatus, sentryTime, spanV2Item, spanV2Vitals, transactionParts } from './sentrySpans';

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

describe('spanV2Vitals', () => {
  const T = 1_777_636_800;
  const attribute = (value: unknown) => ({ value, type: typeof value === 'number' ? 'double' : 'string' });
  const span = (fields: Record<string, unknown>, attributes: Record<string, unknown>) =>
    spanV2Item({ trace_id: 'a'.repeat(32), start_timestamp: T, end_timestamp: T + 1, status: 'ok', ...fields, attributes: Object.fromEntries(Object.entries(attributes).map(([name, value]) => [name, attribute(value)])) });
  const pageload = span(
    { span_id: 'p'.repeat(16), name: 'Pageload', is_segment: true },
    { 'sentry.op': 'pageload', 'url.path': '/checkout', 'browser.web_vital.ttfb.value': 120, 'browser.web_vital.fcp.value': 240, 'browser.web_vital.fp.value': 240, 'sentry.release': 'shop@1' },
  );
  const lcpSpan = (value: number) =>
    span({ span_id: 'l'.repeat(16), parent_span_id: 'p'.repeat(16), name: 'Largest contentful paint' }, { 'sentry.op': 'ui.webvital.lcp', 'browser.web_vital.lcp.value': value, 'sentry.pageload.span_id': 'p'.repeat(16), 'sentry.segment.name': 'Pageload' });

  it("makes TTFB and FCP of the pageload span and LCP of its ui.webvital span into vitals of the page's path, not the span name", () => {
    expect(spanV2Vitals([pageload, lcpSpan(300)])).toEqual([
      { name: 'ttfb', value: 120, route: '/checkout', timestamp: new Date(T * 1000).toISOString(), trace_id: 'a'.repeat(32), release: 'shop@1' },
      { name: 'fcp', value: 240, route: '/checkout', timestamp: new Date(T * 1000).toISOString(), trace_id: 'a'.repeat(32), release: 'shop@1' },
      { name: 'lcp', value: 300, route: '/checkout', timestamp: new Date(T * 1000).toISOString(), trace_id: 'a'.repeat(32) },
    ]);
  });

  it('finds the route of a vital span sent after its pageload span, in another item, from the remembered page routes', () => {
    const remembered = new Map<string, string>();
    spanV2Vitals([pageload], remembered);
    expect(spanV2Vitals([lcpSpan(300)], remembered).map((vital) => vital['route'])).toEqual(['/checkout']);
    expect(spanV2Vitals([lcpSpan(300)]).map((vital) => vital['route'])).toEqual(['Pageload']);
  });

  it('counts a vital given both as a pageload attribute and as a ui.webvital span once, with the span\'s value, in either order', () => {
    const withLcp = span({ span_id: 'p'.repeat(16), name: 'Pageload' }, { 'sentry.op': 'pageload', 'url.path': '/', 'browser.web_vital.lcp.value': 250 });
    for (const order of [[withLcp, lcpSpan(310)], [lcpSpan(310), withLcp]]) {
      expect(spanV2Vitals(order).filter((vital) => vital['name'] === 'lcp').map((vital) => vital['value'])).toEqual([310]);
    }
  });

  it('takes the route template a router set before the path, and leaves out measurements that are no Core Web Vital', () => {
    const routed = span({ span_id: 'n'.repeat(16), name: '/users/:id' }, { 'sentry.op': 'navigation', 'url.template': '/users/:id', 'url.path': '/users/7', 'browser.web_vital.fp.value': 90, 'browser.web_vital.ttfb.value': 'fast' });
    expect(spanV2Vitals([routed])).toEqual([]);
    const inp = span({ span_id: 'i'.repeat(16), parent_span_id: 'n'.repeat(16), name: 'Click' }, { 'sentry.op': 'ui.interaction.click', 'browser.web_vital.inp.value': 48 });
    expect(spanV2Vitals([routed, inp]).map((vital) => [vital['name'], vital['route']])).toEqual([['inp', '/users/:id']]);
  });
});
