/**
 * Durations and timestamp arithmetic for range bounds (docs/compaction-model.md, "Range bounds"): humantime-like
 * durations (`5h`, `2days`, `1h 30m`) and shifting RFC 3339 UTC timestamps at full nanosecond
 * precision. Pure: the current time is always passed in. Error texts are jp's, word for word.
 */
import type { Parsed } from "../parsed.js";

const UNIT_MILLISECONDS: ReadonlyMap<string, number> = new Map([
  ...["s", "sec", "secs", "second", "seconds"].map((unit) => [unit, 1000] as const),
  ...["m", "min", "mins", "minute", "minutes"].map((unit) => [unit, 60_000] as const),
  ...["h", "hr", "hrs", "hour", "hours"].map((unit) => [unit, 3_600_000] as const),
  ...["d", "day", "days"].map((unit) => [unit, 86_400_000] as const),
  ...["w", "week", "weeks"].map((unit) => [unit, 604_800_000] as const),
]);

/** Parses a humantime-like duration (`5h`, `2days`, `1h 30m`, `90min`) into milliseconds. */
export function parseDuration(text: string): Parsed<number> {
  const input = text.trim();
  if (input === "") return { ok: false, message: "value was empty" };
  const part = /\s*(\d+)\s*([a-zA-Z]*)\s*/y;
  let total = 0;
  while (part.lastIndex < input.length) {
    const offset = part.lastIndex;
    const match = part.exec(input);
    if (match === null) return { ok: false, message: `expected number at ${offset}` };
    const unit = match[2]!;
    if (unit === "")
      return { ok: false, message: `time unit needed, for example ${match[1]}sec or ${match[1]}min` };
    const scale = UNIT_MILLISECONDS.get(unit.toLowerCase());
    if (scale === undefined) {
      return { ok: false, message: `unknown time unit \`${unit}\`, supported units: s, m, h, d, w` };
    }
    total += Number(match[1]) * scale;
    if (!Number.isSafeInteger(total)) return { ok: false, message: "number is too large" };
  }
  return { ok: true, value: total };
}

/** Formats milliseconds as a duration `parseDuration` reads back (`1h 30m`, `2d`, `0s`). */
export function formatDuration(milliseconds: number): string {
  const parts: string[] = [];
  let rest = Math.floor(milliseconds / 1000);
  for (const [unit, seconds] of [
    ["w", 604_800],
    ["d", 86_400],
    ["h", 3600],
    ["m", 60],
    ["s", 1],
  ] as const) {
    const amount = Math.floor(rest / seconds);
    if (amount > 0) parts.push(`${amount}${unit}`);
    rest -= amount * seconds;
  }
  return parts.length === 0 ? "0s" : parts.join(" ");
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z?$/;

const NANOSECONDS_PER_SECOND = 1_000_000_000n;

/**
 * Milliseconds since the epoch of a UTC date and time given as the digit groups of a timestamp:
 * year, month (1-based), day, hour, minute, second. NaN when a group is not a number.
 */
export function utcMilliseconds(fields: readonly (string | undefined)[]): number {
  const [year, month, day, hour, minute, second] = fields.map(Number);
  return Date.UTC(year!, month! - 1, day!, hour!, minute!, second!);
}

/** Shifts an RFC 3339 UTC timestamp by `milliseconds`; undefined if unreadable or out of range. */
export function shiftTimestamp(timestamp: string, milliseconds: number): string | undefined {
  const match = TIMESTAMP.exec(timestamp);
  if (!match) return undefined;
  const fraction = match[7] ?? "";
  const wholeMs = utcMilliseconds(match.slice(1, 7));
  if (!Number.isFinite(wholeMs)) return undefined;
  // Exact integer nanoseconds, so a shift by zero returns the same instant at full precision.
  const shifted =
    BigInt(wholeMs) * 1_000_000n +
    BigInt(fraction.padEnd(9, "0")) +
    BigInt(Math.trunc(milliseconds)) * 1_000_000n;
  let seconds = shifted / NANOSECONDS_PER_SECOND;
  let nanoseconds = shifted % NANOSECONDS_PER_SECOND;
  if (nanoseconds < 0n) {
    seconds -= 1n;
    nanoseconds += NANOSECONDS_PER_SECOND;
  }
  const secondsNumber = Number(seconds);
  if (Math.abs(secondsNumber) > 8.64e12) return undefined;
  const whole = new Date(secondsNumber * 1000).toISOString().slice(0, 19);
  return `${whole}.${nanoseconds.toString().padStart(9, "0")}Z`;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]/;

/**
 * Parses a moment as the range flags and `fork --from/--until` take it: a duration ago (`5h`,
 * `2days`, before `now`), a date (`2026-03-01`, midnight UTC) or an RFC 3339 time. Returns an RFC
 * 3339 UTC time; the message for anything else is the duration parser's (jp's).
 */
export function parseTimePoint(text: string, now: string): Parsed<string> {
  const value = text.trim();
  const duration = parseDuration(value);
  if (duration.ok) {
    const time = shiftTimestamp(now, -duration.value);
    return time === undefined ? { ok: false, message: "number is too large" } : { ok: true, value: time };
  }
  const stamp = DATE.test(value) ? `${value}T00:00:00Z` : DATE_TIME.test(value) ? value : undefined;
  const milliseconds = stamp === undefined ? Number.NaN : Date.parse(stamp);
  if (!Number.isNaN(milliseconds)) {
    // Offsets other than UTC are read by Date; cxc's times are UTC, at full precision when given so.
    const utc = shiftTimestamp(stamp!, 0) ?? shiftTimestamp(new Date(milliseconds).toISOString(), 0);
    if (utc !== undefined) return { ok: true, value: utc };
  }
  return duration;
}
