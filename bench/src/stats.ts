/** Median of repeated measurements: robust to one disturbed run on a shared machine. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export async function repeat<T>(times: number, run: (attempt: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let attempt = 0; attempt < times; attempt++) results.push(await run(attempt));
  return results;
}

export const rate = (value: number) => `${Math.round(value).toLocaleString('en-US')}/s`;
export const millis = (value: number) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;
export const megabytes = (bytesPerSecond: number) => `${(bytesPerSecond / 1e6).toFixed(1)} MB/s`;

/** Request bytes of bodies as sent. */
export const bytesOf = (bodies: readonly Buffer[]) => bodies.reduce((sum, body) => sum + body.length, 0);
