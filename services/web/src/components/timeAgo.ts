/** "3 s ago", "1 h 50 min ago", "in 29 d": the distance from `now` to an ISO time, in the largest unit that fits. */
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
  else if (size < 36_000) {
    // Under ten hours the minutes tell times apart ("1 h 50 min" and "1 h 5 min" both read "1 h" otherwise).
    const minutes = Math.floor((size % 3_600) / 60);
    amount = `${Math.floor(size / 3_600)} h${minutes > 0 ? ` ${minutes} min` : ''}`;
  } else if (size < 86_400) amount = `${Math.floor(size / 3_600)} h`;
  else if (size < 86_400 * 60) amount = `${Math.floor(size / 86_400)} d`;
  else if (size < 86_400 * 730) amount = `${Math.floor(size / (86_400 * 30))} mo`;
  else amount = `${Math.floor(size / (86_400 * 365))} y`;
  return past ? `${amount} ago` : `in ${amount}`;
}
