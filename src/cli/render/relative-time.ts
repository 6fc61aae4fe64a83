/**
 * Timestamps as people read them: in the local time zone, to the second, with the zone's offset
 * (`2026-01-01 11:00:00 +01:00`), or `UTC` when the local zone is UTC. Relative times ("3 minutes
 * ago") are core's (src/core/present/relative-time.ts).
 */

/** `2026-01-01T10:00:00.000Z` → `2026-01-01 11:00:00 +01:00` in Paris; unparseable text as it is. */
export function formatTimestamp(timestamp: string): string {
  const milliseconds = Date.parse(timestamp);
  if (Number.isNaN(milliseconds)) return timestamp;
  const date = new Date(milliseconds);
  const two = (value: number): string => String(value).padStart(2, "0");
  const day = `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}`;
  const time = `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
  const offset = -date.getTimezoneOffset();
  if (offset === 0) return `${day} ${time} UTC`;
  const sign = offset > 0 ? "+" : "-";
  const magnitude = Math.abs(offset);
  return `${day} ${time} ${sign}${two(Math.floor(magnitude / 60))}:${two(magnitude % 60)}`;
}
