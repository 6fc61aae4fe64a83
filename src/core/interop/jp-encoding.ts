/**
 * jp's storage encodings, for the jp interop (interop/jp.ts). Pure: its timestamp format
 * (`2026-05-29 19:42:36.46732`, fraction digits kept exactly), the base64-of-UTF-8 it stores tool
 * arguments, tool output and metadata in, and the deterministic ids import derives from jp's
 * conversation id and entry positions.
 */
import { utcMilliseconds } from "../position/duration.js";

// ---------------------------------------------------------------------------------------------
// Timestamps and ids

/**
 * `2026-12-01T10:12:32.954Z`: RFC 3339 UTC with milliseconds, as `toISOString` writes it, its time
 * of day in range (below 24:00, no leap second).
 */
const ISO_MILLISECONDS = /^\d{4}-\d{2}-\d{2}T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

const DAY_MILLISECONDS = 86_400_000;

/**
 * The last day met, by `timestampMilliseconds` (its `YYYY-MM-DD`, and whether it is a real date)
 * and by `isoTimestamp` (its number since the epoch, and its `YYYY-MM-DDT`). A session's
 * timestamps fall on a few days, so checking or printing each day once, with `Date`, is enough; the
 * time of day is plain arithmetic. (`toISOString` once per event was a tenth of an import.)
 */
const lastDay = { date: "", real: false, number: Number.NaN, prefix: "" };

/** Whether `date` (`YYYY-MM-DD`) names a real day (no month 13, no February 30). */
function isRealDate(date: string): boolean {
  if (date !== lastDay.date) {
    const start = Date.parse(`${date}T00:00:00.000Z`);
    lastDay.date = date;
    lastDay.real = !Number.isNaN(start) && new Date(start).toISOString().slice(0, 10) === date;
  }
  return lastDay.real;
}

/**
 * `new Date(milliseconds).toISOString()` (`2026-12-01T10:12:32.954Z`), or undefined for a time no
 * `Date` holds.
 */
export function isoTimestamp(milliseconds: number): string | undefined {
  const time = Math.trunc(milliseconds);
  if (!(Math.abs(time) <= 8.64e15)) return undefined;
  const day = Math.floor(time / DAY_MILLISECONDS);
  if (day !== lastDay.number) {
    lastDay.number = day;
    lastDay.prefix = new Date(day * DAY_MILLISECONDS).toISOString().slice(0, -13);
  }
  let rest = time - day * DAY_MILLISECONDS;
  const millisecond = rest % 1000;
  rest = (rest - millisecond) / 1000;
  const second = rest % 60;
  rest = (rest - second) / 60;
  const minute = rest % 60;
  const hour = (rest - minute) / 60;
  return `${lastDay.prefix}${twoDigits(hour)}:${twoDigits(minute)}:${twoDigits(second)}.${millisecond < 10 ? "00" : millisecond < 100 ? "0" : ""}${millisecond}Z`;
}

function twoDigits(value: number): string {
  return value < 10 ? `0${value}` : String(value);
}

const TIMESTAMP_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})[ Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|z|[+-]\d{2}:\d{2})?$/;

/**
 * jp's `2026-05-29 19:42:36.46732` (or RFC 3339) → `2026-05-29T19:42:36.46732Z`, keeping the exact
 * fraction digits so export can write them back byte for byte. Undefined when it is not a timestamp.
 */
export function jpTimestampToRfc3339(value: string): string | undefined {
  const match = TIMESTAMP_PATTERN.exec(value);
  if (!match || !isCalendarTime(match.slice(1, 7))) return undefined;
  const [, year, month, day, hour, minute, second, fraction, zone] = match;
  const fractionText = fraction === undefined ? "" : `.${fraction}`;
  if (zone === undefined || /^(z|[+-]00:00)$/i.test(zone)) {
    return `${year}-${month}-${day}T${hour}:${minute}:${second}${fractionText}Z`;
  }
  const sign = zone.startsWith("-") ? -1 : 1;
  const offsetMinutes = sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  const local = utcMilliseconds([year, month, day, hour, minute, second]);
  const utc = new Date(local - offsetMinutes * 60_000).toISOString().slice(0, 19);
  return `${utc}${fractionText}Z`;
}

/** True when the fields name a real date and time (no month 13, no February 30, no 25:00). */
function isCalendarTime(fields: readonly (string | undefined)[]): boolean {
  const [year, month, day, hour, minute, second] = fields.map(Number) as number[];
  const date = new Date(utcMilliseconds(fields));
  return (
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month! - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute &&
    date.getUTCSeconds() === second
  );
}

/** RFC 3339 (UTC) → jp's `YYYY-MM-DD HH:MM:SS.f`: trailing zeros of the fraction trimmed, `.0` at least. */
export function rfc3339ToJpTimestamp(value: string): string | undefined {
  const normalized = jpTimestampToRfc3339(value);
  if (normalized === undefined) return undefined;
  const match = TIMESTAMP_PATTERN.exec(normalized)!;
  const fraction = (match[7] ?? "").replace(/0+$/, "") || "0";
  return `${match[1]}-${match[2]}-${match[3]} ${match[4]}:${match[5]}:${match[6]}.${fraction}`;
}

/** Milliseconds since the epoch of an RFC 3339 or jp timestamp (NaN when it is neither). */
export function timestampMilliseconds(value: string): number {
  // The form nearly every timestamp has (`toISOString`'s): the engine parses it once its day is
  // known real and its time in range (Date.parse takes February 30 and 24:00).
  if (value.length === 24 && ISO_MILLISECONDS.test(value) && isRealDate(value.slice(0, 10))) {
    return Date.parse(value);
  }
  const normalized = jpTimestampToRfc3339(value);
  if (normalized === undefined) return Number.NaN;
  const match = TIMESTAMP_PATTERN.exec(normalized)!;
  const whole = utcMilliseconds(match.slice(1, 7));
  return whole + Number((match[7] ?? "").padEnd(3, "0").slice(0, 3));
}

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";
const CROCKFORD_UPPER = CROCKFORD.toUpperCase();

function toCrockford(value: number, length: number, digits = CROCKFORD): string {
  let text = "";
  let rest = value;
  for (let position = 0; position < length; position++) {
    text = digits[rest % 32] + text;
    rest = Math.floor(rest / 32);
  }
  return text;
}

/** FNV-1a (32 bit) of `text`, salted by `seed`: a stable, cheap hash for derived ids. */
function hash32(text: string, seed: number): number {
  return hashOn((0x811c9dc5 ^ seed) >>> 0, text);
}

/** FNV-1a (32 bit) going on from `hash` (a hash of the text before) over `text`. */
function hashOn(hash: number, text: string): number {
  let next = hash;
  for (let index = 0; index < text.length; index++) {
    next ^= text.charCodeAt(index);
    next = Math.imul(next, 0x01000193) >>> 0;
  }
  return next;
}

/**
 * A ULID derived from a timestamp and a key: 10 characters of time, then 4 of the key's position
 * (so ids of one conversation sort in stream order within a millisecond) and 12 of a hash of the
 * key (so ids differ between conversations). Uppercase, like the `ulid` package's ids.
 */
export function deriveEventId(milliseconds: number, key: string): string {
  const position = Number(/:(\d+)$/.exec(key)?.[1] ?? 0);
  const hashed = toCrockford(hash32(key, 1) % 2 ** 30, 6) + toCrockford(hash32(key, 2) % 2 ** 30, 6);
  return (toCrockford(Math.max(0, milliseconds), 10) + toCrockford(position, 4) + hashed).toUpperCase();
}

/**
 * `deriveEventId(milliseconds, `${key}:${position}`)` for the positions of one key, for an
 * importer deriving thousands: the key's part of the hashes is taken once.
 */
export function eventIdDeriver(key: string): (milliseconds: number, position: number) => string {
  const first = hashOn((0x811c9dc5 ^ 1) >>> 0, `${key}:`);
  const second = hashOn((0x811c9dc5 ^ 2) >>> 0, `${key}:`);
  // The events of one record share its time: its ten characters are written once.
  let lastMilliseconds = Number.NaN;
  let time = "";
  return (milliseconds, position) => {
    if (milliseconds !== lastMilliseconds) {
      lastMilliseconds = milliseconds;
      time = toCrockford(Math.max(0, milliseconds), 10, CROCKFORD_UPPER);
    }
    const digits = String(position);
    return (
      time +
      toCrockford(position, 4, CROCKFORD_UPPER) +
      toCrockford(hashOn(first, digits) % 2 ** 30, 6, CROCKFORD_UPPER) +
      toCrockford(hashOn(second, digits) % 2 ** 30, 6, CROCKFORD_UPPER)
    );
  };
}

/** A cxc conversation id: 10 characters of creation time and 3 of a hash of the source's id. */
export function deriveConversationId(milliseconds: number, key: string): string {
  return toCrockford(milliseconds, 10) + toCrockford(hash32(key, 3) % 32768, 3);
}

// ---------------------------------------------------------------------------------------------
// Base64 of UTF-8, as jp stores tool arguments, tool output and metadata

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const BASE64_INDEX = new Map([...BASE64].map((character, index) => [character, index]));
const utf8Decoder = new TextDecoder("utf-8", { fatal: true });
const utf8Encoder = new TextEncoder();

/** Standard base64 with padding of the UTF-8 bytes of `text`. */
export function encodeBase64(text: string): string {
  const bytes = utf8Encoder.encode(text);
  let output = "";
  for (let index = 0; index < bytes.length; index += 3) {
    const chunk = (bytes[index]! << 16) | ((bytes[index + 1] ?? 0) << 8) | (bytes[index + 2] ?? 0);
    output += BASE64[(chunk >> 18) & 63]! + BASE64[(chunk >> 12) & 63]!;
    output += index + 1 < bytes.length ? BASE64[(chunk >> 6) & 63]! : "=";
    output += index + 2 < bytes.length ? BASE64[chunk & 63]! : "=";
  }
  return output;
}

/**
 * Decodes canonical standard base64 of valid UTF-8; undefined for anything else (jp then keeps the
 * string as stored). Canonical means encoding the result gives the input back, as jp's strict
 * decoder requires (padding present, no stray bits).
 */
export function decodeBase64(text: string): string | undefined {
  if (text.length % 4 !== 0) return undefined;
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const bytes = new Uint8Array((text.length / 4) * 3 - padding);
  let written = 0;
  for (let index = 0; index < text.length; index += 4) {
    let chunk = 0;
    for (let offset = 0; offset < 4; offset++) {
      const character = text[index + offset]!;
      const digit = character === "=" && index + 4 === text.length ? 0 : BASE64_INDEX.get(character);
      if (digit === undefined) return undefined;
      chunk = (chunk << 6) | digit;
    }
    for (const shift of [16, 8, 0]) if (written < bytes.length) bytes[written++] = (chunk >> shift) & 255;
  }
  let decoded: string;
  try {
    decoded = utf8Decoder.decode(bytes);
  } catch {
    return undefined;
  }
  return encodeBase64(decoded) === text ? decoded : undefined;
}

/** Decodes every string leaf; records the pointers of leaves kept as stored. */
export function decodeLeaves(
  value: unknown,
  path: readonly (string | number)[],
  undecoded: string[],
): unknown {
  if (typeof value === "string") {
    const decoded = decodeBase64(value);
    if (decoded === undefined) undecoded.push(pointer(path));
    return decoded ?? value;
  }
  if (Array.isArray(value))
    return value.map((item, index) => decodeLeaves(item, [...path, index], undecoded));
  if (isRecord(value)) {
    const result: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value))
      result[key] = decodeLeaves(item, [...path, key], undecoded);
    return result;
  }
  return value;
}

/** Encodes every string leaf except those import kept as stored. */
export function encodeLeaves(
  value: unknown,
  path: readonly (string | number)[],
  keep: ReadonlySet<string>,
): unknown {
  if (typeof value === "string") return keep.has(pointer(path)) ? value : encodeBase64(value);
  if (Array.isArray(value)) return value.map((item, index) => encodeLeaves(item, [...path, index], keep));
  if (isRecord(value)) {
    const result: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) result[key] = encodeLeaves(item, [...path, key], keep);
    return result;
  }
  return value;
}

/** A JSON pointer (RFC 6901) without the leading slash: `arguments/path`. */
function pointer(path: readonly (string | number)[]): string {
  return path.map((part) => String(part).replaceAll("~", "~0").replaceAll("/", "~1")).join("/");
}

/** True for a JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
