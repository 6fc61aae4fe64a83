/**
 * Human-friendly relative times ("3 minutes ago", "in 2 days", "just now") for listings, details
 * and messages. Pure: the caller passes `now`.
 */

const UNITS: readonly { readonly name: string; readonly seconds: number }[] = [
  { name: "year", seconds: 365 * 24 * 3600 },
  { name: "month", seconds: 30 * 24 * 3600 },
  { name: "week", seconds: 7 * 24 * 3600 },
  { name: "day", seconds: 24 * 3600 },
  { name: "hour", seconds: 3600 },
  { name: "minute", seconds: 60 },
  { name: "second", seconds: 1 },
];

/** `timestamp` relative to `nowMs`; an unparseable timestamp is returned as it is. */
export function formatRelativeTime(timestamp: string, nowMs: number): string {
  const then = Date.parse(timestamp);
  if (Number.isNaN(then)) return timestamp;
  const deltaSeconds = Math.round((nowMs - then) / 1000);
  const magnitude = Math.abs(deltaSeconds);
  if (magnitude < 10) return "just now";
  const unit = UNITS.find((candidate) => magnitude >= candidate.seconds) ?? UNITS[UNITS.length - 1]!;
  const count = Math.floor(magnitude / unit.seconds);
  const phrase = `${count} ${unit.name}${count === 1 ? "" : "s"}`;
  return deltaSeconds >= 0 ? `${phrase} ago` : `in ${phrase}`;
}
