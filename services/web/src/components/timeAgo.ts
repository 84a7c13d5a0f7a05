/** "3 s ago", "1 h 50 min ago", "in 29 d": the distance from `now` to an ISO time, in the largest unit that fits. */
export function relativeTime(iso: string, now: number = Date.now()): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return iso;
  const seconds = Math.round((now - time) / 1000);
  const past = seconds >= 0;
  const size = Math.abs(seconds);
  const whole = past ? Math.floor : Math.round;
  let amount: string;
  if (size < 1) return 'just now';
  if (size < 60) amount = `${size} s`;
  else if (size < 3_600) amount = `${Math.floor(size / 60)} min`;
  else if (size < 36_000) {
    // Under ten hours the minutes tell times apart ("1 h 50 min" and "1 h 5 min" both read "1 h" otherwise).
    const minutes = Math.floor((size % 3_600) / 60);
    amount = `${Math.floor(size / 3_600)} h${minutes > 0 ? ` ${minutes} min` : ''}`;
  } else if (size < 86_400) amount = `${Math.floor(size / 3_600)} h`;
  // Days and longer: what has passed counts whole units; what is to come the nearest, so an invitation that expires
  // in seven days less a second reads "in 7 d", not "in 6 d", and keeps reading so for half a day.
  else if (size < 86_400 * 60) amount = `${whole(size / 86_400)} d`;
  else if (size < 86_400 * 730) amount = `${whole(size / (86_400 * 30))} mo`;
  else amount = `${whole(size / (86_400 * 365))} y`;
  return past ? `${amount} ago` : `in ${amount}`;
}
