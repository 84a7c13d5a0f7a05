import { attributesOf } from './common';
import { decodeOtlpLogsRequest, decodeOtlpTraceRequest, encodeOtlpResponse, encodeOtlpTraceRequest } from './protobuf';

const span = {
  traceId: '5b8efff798038103d269b633813fc60c',
  spanId: 'eee19b7ec3c1b174',
  parentSpanId: '00f067aa0ba902b7',
  name: 'GET /cart',
  kind: 2,
  startTimeUnixNano: '1714564800000000000',
  endTimeUnixNano: '1714564800012345678',
  attributes: [
    { key: 'http.route', value: { stringValue: '/cart' } },
    { key: 'big', value: { intValue: '9007199254740993' } },
    { key: 'ratio', value: { doubleValue: 0.5 } },
    { key: 'list', value: { arrayValue: { values: [{ boolValue: true }, { stringValue: 'x' }] } } },
  ],
  events: [{ name: 'retry', timeUnixNano: '1714564800001000000', attributes: [{ key: 'attempt', value: { intValue: '2' } }] }],
  status: { code: 2, message: 'upstream 502' },
};
const request = { resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'cart' } }] }, scopeSpans: [{ scope: { name: 'manual', version: '1' }, spans: [span] }] }] };

describe('OTLP protobuf', () => {
  it('decodes a trace request into the object its OTLP/JSON form parses to: hex ids, 64-bit integers as text, enums as numbers', () => {
    expect(decodeOtlpTraceRequest(encodeOtlpTraceRequest(request))).toEqual({
      ok: true,
      value: { resourceSpans: [{ resource: request.resourceSpans[0]!.resource, scopeSpans: [{ scope: { name: 'manual', version: '1', attributes: [] }, spans: [span] }] }] },
    });
  });

  it('leaves fields at their default out, as a JSON encoder does, keeps empty lists, and gives spans and events their empty name', () => {
    const bare = { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: span.traceId, spanId: span.spanId, name: '', events: [{ name: '' }] }] }] }] };
    expect(decodeOtlpTraceRequest(encodeOtlpTraceRequest(bare))).toEqual({
      ok: true,
      value: {
        resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: span.traceId, spanId: span.spanId, name: '', attributes: [], events: [{ name: '', attributes: [] }] }] }] }],
      },
    });
    expect(decodeOtlpLogsRequest(Buffer.alloc(0))).toEqual({ ok: true, value: { resourceLogs: [] } });
  });

  it('keeps bytes values binary until read, then as base64 text like the JSON mapping', () => {
    const withBytes = { resourceSpans: [{ scopeSpans: [{ spans: [{ ...span, attributes: [{ key: 'blob', value: { bytesValue: 'AAEC/w==' } }] }] }] }] };
    const decoded = decodeOtlpTraceRequest(encodeOtlpTraceRequest(withBytes));
    if (!decoded.ok) throw new Error(decoded.reason);
    const [decodedSpan] = ((decoded.value['resourceSpans'] as any[])[0].scopeSpans[0].spans as { attributes: unknown[] }[]);
    expect(attributesOf(decodedSpan!.attributes)).toEqual({ blob: 'AAEC/w==' });
  });

  it('turns NUL in any string into U+FFFD, as JSON bodies are repaired, and leaves bytes values as they are', () => {
    const withNul = {
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'ca\u0000rt' } }] },
          scopeSpans: [{ spans: [{ ...span, name: 'GET\u0000/cart', attributes: [{ key: 'k\u0000', value: { stringValue: 'v\u0000' } }, { key: 'blob', value: { bytesValue: 'AAEC/w==' } }] }] }],
        },
      ],
    };
    const decoded = decodeOtlpTraceRequest(encodeOtlpTraceRequest(withNul));
    if (!decoded.ok) throw new Error(decoded.reason);
    const [resourceSpans] = decoded.value['resourceSpans'] as any[];
    expect(attributesOf(resourceSpans.resource.attributes)).toEqual({ 'service.name': 'ca\ufffdrt' });
    const [decodedSpan] = resourceSpans.scopeSpans[0].spans as { name: string; attributes: unknown[] }[];
    expect(decodedSpan!.name).toBe('GET\ufffd/cart');
    expect(attributesOf(decodedSpan!.attributes)).toEqual({ 'k\ufffd': 'v\ufffd', blob: 'AAEC/w==' });
  });

  it('names the message a body does not decode as', () => {
    expect(decodeOtlpLogsRequest(Buffer.from([0x0a, 0x05, 0x01]))).toEqual({
      ok: false,
      reason: 'the body is not a protobuf ExportLogsServiceRequest: index out of range',
    });
  });

  it('encodes the answers: nothing for full success, the partial success otherwise', () => {
    expect(encodeOtlpResponse('traces', {})).toEqual(Buffer.alloc(0));
    expect(encodeOtlpResponse('logs', { partialSuccess: { rejectedLogRecords: 2, errorMessage: 'x' } }).toString('hex')).toBe('0a050802120178');
  });
});
