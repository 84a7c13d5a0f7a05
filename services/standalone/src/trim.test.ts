import { createLogger, metrics } from '@tlm/core';
import { startMemoryTrim } from './trim';

const trims = async () => (await metrics.memoryTrimSeconds.get()).values.find((value) => value.metricName === 'tlm_memory_trim_seconds_count')?.value ?? 0;

describe('giving freed memory back to the system', () => {
  it("calls glibc's malloc_trim on a pool thread every interval, and stops", async () => {
    const before = await trims();
    const trim = await startMemoryTrim(20, createLogger('standalone', 'silent'));
    const deadline = Date.now() + 10_000;
    while ((await trims()) < before + 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    trim.stop();
    expect(await trims()).toBeGreaterThanOrEqual(before + 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stopped = await trims();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await trims()).toBe(stopped);
  });

  it('does nothing with an interval of 0', async () => {
    const before = await trims();
    const trim = await startMemoryTrim(0, createLogger('standalone', 'silent'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    trim.stop();
    expect(await trims()).toBe(before);
  });
});
