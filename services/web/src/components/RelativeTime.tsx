import { useEffect, useState } from 'react';

/** "3 s ago", "5 min ago", "in 29 d": the distance from `now` to an ISO time, in the largest unit that fits. */
export function relativeTime(iso: string, now: number = Date.now()): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return iso;
  const seconds = Math.round((now - time) / 1000);
  const past = seconds >= 0;
  const size = Math.abs(seconds);
  let amount: string;
  if (size < 1) return 'just now';
  if (size < 60) amount = `${size} s`;
  else if (size < 3_600) amount = `${Math.floor(size / 60)} min`;
  else if (size < 86_400) amount = `${Math.floor(size / 3_600)} h`;
  else if (size < 86_400 * 60) amount = `${Math.floor(size / 86_400)} d`;
  else if (size < 86_400 * 730) amount = `${Math.floor(size / (86_400 * 30))} mo`;
  else amount = `${Math.floor(size / (86_400 * 365))} y`;
  return past ? `${amount} ago` : `in ${amount}`;
}

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
  const now = useNow(intervalMs);
  if (!iso) return <span className="muted">{fallback}</span>;
  return (
    <time dateTime={iso} title={new Date(iso).toLocaleString()}>
      {relativeTime(iso, now)}
    </time>
  );
}
