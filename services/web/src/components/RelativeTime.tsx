import { useEffect, useState } from 'react';
import { formatDateTime } from './formats';
import { relativeTime } from './timeAgo';

export { relativeTime };

/** The current time, updated every `intervalMs`, so relative times keep counting. */
export function useNow(intervalMs = 1_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), intervalMs);
    return () => window.clearInterval(timer);
  }, [intervalMs]);
  return now;
}

/** A relative time that updates itself, with the exact time on hover; `fallback` when there is no time. */
export function RelativeTime({ iso, fallback = 'never', intervalMs = 10_000 }: { iso: string | null | undefined; fallback?: string; intervalMs?: number }) {
  // The interval re-renders; each render reads the clock, so a time just past never reads as "in 1 s".
  useNow(intervalMs);
  if (!iso) return <span className="muted">{fallback}</span>;
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {relativeTime(iso, Date.now())}
    </time>
  );
}
