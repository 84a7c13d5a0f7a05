import { gzipSync } from 'node:zlib';
import { JsonBudget } from '@tlm/core';
import type { IngestContext } from './context';
import { RecordingBudget, inspectRecording, rrwebTimeMs, toReplayChunkRecord, toReplaySessionRecord } from './replay';

const RECEIVED_AT = Date.parse('2026-05-01T12:00:00.000Z');
const context: IngestContext = { projectId: '0190d6a4-7c3e-7a51-9e4b-3f0c2a1b5d6e', retentionDays: 14, receivedAt: RECEIVED_AT, client: {} };
const inspect = (events: unknown[]) => inspectRecording(gzipSync(JSON.stringify(events)), 'gzip', new RecordingBudget(new JsonBudget(1_000_000, true)), context);

describe('rrwebTimeMs', () => {
  it.each([
    ['rrweb milliseconds', 1_777_636_800_123, 1_777_636_800_123],
    ["Sentry's float seconds", 1_777_636_800.5, 1_777_636_800_500],
    ['the last second read as seconds', 99_999_999_999, 99_999_999_999_000],
    ['the first millisecond read as milliseconds', 100_000_000_000, 100_000_000_000],
  ])('reads %s', (_case, timestamp, ms) => {
    expect(rrwebTimeMs(timestamp)).toBe(ms);
  });
});

describe('inspectRecording', () => {
  it("spans a Sentry segment's rrweb events in ms and its custom events in seconds, the earliest being a performance span", async () => {
    const start = RECEIVED_AT - 60_000;
    const result = await inspect([
      { type: 4, timestamp: start + 400 },
      { type: 2, timestamp: start + 410 },
      { type: 5, timestamp: start / 1000, data: { tag: 'performanceSpan', payload: { op: 'navigation.navigate' } } },
      { type: 5, timestamp: (start + 2_000) / 1000, data: { tag: 'breadcrumb' } },
      { type: 3, timestamp: start + 1_500 },
    ]);
    expect(result.ok && [result.value.firstTs, result.value.lastTs, result.value.eventCount]).toEqual([start, start + 2_000, 5]);
  });

  it("leaves out times before the project's retention (a zero, a relative clock) and falls back to the others", async () => {
    const result = await inspect([{ type: 4, timestamp: 0 }, { type: 3, timestamp: 1_500 }, { type: 3, timestamp: RECEIVED_AT - 1_000 }]);
    expect(result.ok && [result.value.firstTs, result.value.lastTs]).toEqual([RECEIVED_AT - 1_000, RECEIVED_AT - 1_000]);
  });
});

describe('toReplaySessionRecord', () => {
  const CHROME_ON_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
  const relayed = { ...context, client: { $ip: '203.0.113.7' } };

  it("reads the browser and system from the User-Agent the session names, the address from the connection", () => {
    const result = toReplaySessionRecord({ session_id: 's1', started_at: RECEIVED_AT - 1_000, user_agent: CHROME_ON_MAC }, relayed, 'node');
    expect(result.ok && result.value.properties).toMatchObject({ $browser: 'Chrome', $browser_version: '126.0.0.0', $os: 'Mac OS', $ip: '203.0.113.7' });
    expect(result.ok && result.value.userAgent).toBe(CHROME_ON_MAC);
  });

  it("keeps the request's client properties when the session names no User-Agent, and the session's own values over both", () => {
    const fromRequest = toReplaySessionRecord({ session_id: 's2', started_at: RECEIVED_AT - 1_000 }, { ...context, client: { $browser: 'Firefox', $ip: '198.51.100.4' } }, 'Firefox');
    expect(fromRequest.ok && fromRequest.value.properties).toEqual({ $browser: 'Firefox', $ip: '198.51.100.4' });
    const own = toReplaySessionRecord({ session_id: 's3', started_at: RECEIVED_AT - 1_000, user_agent: CHROME_ON_MAC, properties: { $os: 'Android' } }, relayed, 'node');
    expect(own.ok && own.value.properties).toMatchObject({ $browser: 'Chrome', $os: 'Android' });
    expect(own.ok && own.value.properties['$os_version']).toBeUndefined();
  });
});

describe('toReplayChunkRecord', () => {
  const recording = { gzipped: Buffer.alloc(3), eventCount: 1, firstTs: null, lastTs: null };
  const params = { sessionId: 's', seq: 0, startTs: undefined, endTs: undefined, eventCount: undefined };

  it('refuses a start_ts older than the retention, where no read would find the chunk', () => {
    const old = RECEIVED_AT - 15 * 86_400_000;
    expect(toReplayChunkRecord({ ...params, startTs: old, endTs: old }, recording, 'key', context)).toEqual({
      ok: false,
      reason: "start_ts is older than the project's retention of 14 days",
    });
  });

  it('takes the receive time when neither the parameters nor the events say when', () => {
    const result = toReplayChunkRecord(params, recording, 'key', context);
    expect(result.ok && [result.value.startTs, result.value.endTs]).toEqual([RECEIVED_AT, RECEIVED_AT]);
  });
});
