/** A level as a coloured badge: fatal and error red, warning amber, the rest grey. */
export function LevelBadge({ level }: { level: string }) {
  const tone = level === 'fatal' || level === 'error' ? 'badge-danger' : level === 'warning' ? 'badge-warn' : '';
  return <span className={`badge ${tone}`}>{level}</span>;
}
