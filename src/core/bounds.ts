/**
 * Turn range bounds and their resolution against a conversation (jp reference §5). Pure.
 *
 * Three layers:
 * - the core bound (`TurnBound`: absolute index, offset from the end, after the last compaction)
 *   and `resolveRange`, which turns a pair of optional bounds into an inclusive 0-based range or
 *   nothing (§5.1);
 * - the rule bound of `keep_first`/`keep_last` (`RuleBound`: a count, `@N`, `-N`, a duration or
 *   `last-compaction`, §5.2) and its conversion to a core bound (§5.3);
 * - the command-line bounds `--from/--to/--first/--last/--turn` (§5.4).
 *
 * Durations are resolved against turn start times (the timestamp of a turn's first event); the
 * caller passes `now` in as an RFC 3339 string. Error texts are jp's, word for word.
 */
import { activeCompactions } from "./compactions.js";
import { type ConversationEvent, compareTimestamps } from "./events.js";
import { groupTurns } from "./turns.js";

/** A success value or a user-facing error message. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/** A bound as the core resolves it. Indices are 0-based. */
export type TurnBound =
  | { kind: "absolute"; index: number }
  /** The index `last - offset`. */
  | { kind: "from-end"; offset: number }
  /** The first turn after every compaction in force. */
  | { kind: "after-last-compaction" };

/** An inclusive, 0-based range of turns. */
export interface TurnRange {
  from: number;
  to: number;
}

/** What range resolution needs to know about a conversation, computed once per snapshot. */
export interface StreamFacts {
  turnCount: number;
  /** One past the highest `to_turn` of the active compactions; 0 when there are none. */
  afterLastCompaction: number;
  /** Start time (timestamp of the first event) of each turn. */
  turnStarts: readonly string[];
}

/** Collects the facts range resolution needs (see StreamFacts). */
export function describeStream(events: readonly ConversationEvent[]): StreamFacts {
  const turns = groupTurns(events);
  let afterLastCompaction = 0;
  for (const { compaction } of activeCompactions(events)) {
    afterLastCompaction = Math.max(afterLastCompaction, compaction.to_turn + 1);
  }
  return {
    turnCount: turns.length === 0 ? 0 : turns[turns.length - 1]!.index + 1,
    afterLastCompaction,
    turnStarts: turns.map((turn) => turn.events[0]!.ts),
  };
}

/** Resolves optional bounds to a range, or undefined for "nothing" (§5.1). */
export function resolveRange(
  events: readonly ConversationEvent[] | StreamFacts,
  from?: TurnBound,
  to?: TurnBound,
): TurnRange | undefined {
  const facts = "turnCount" in events ? events : describeStream(events);
  if (facts.turnCount === 0) return undefined;
  const last = facts.turnCount - 1;
  let start = 0;
  if (from?.kind === "absolute") start = from.index;
  else if (from?.kind === "from-end") start = Math.max(last - from.offset, 0);
  else if (from?.kind === "after-last-compaction") start = facts.afterLastCompaction;
  if (start > last) return undefined;
  let end = last;
  if (to?.kind === "absolute") end = Math.min(to.index, last);
  else if (to?.kind === "from-end") {
    if (to.offset > last) return undefined;
    end = last - to.offset;
  } else if (to?.kind === "after-last-compaction") end = Math.min(facts.afterLastCompaction, last);
  return start > end ? undefined : { from: start, to: end };
}

// ---------------------------------------------------------------------------------------------
// Timestamps and durations

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

/** Shifts an RFC 3339 UTC timestamp by `milliseconds`; undefined if unreadable or out of range. */
export function shiftTimestamp(timestamp: string, milliseconds: number): string | undefined {
  const match = TIMESTAMP.exec(timestamp);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, fraction = ""] = match;
  const wholeMs = Date.UTC(
    Number(year),
    Number(month) - 1,
    Number(day),
    Number(hour),
    Number(minute),
    Number(second),
  );
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

/** The last turn whose start is at or before `time`; undefined if `time` precedes the first turn. */
export function turnAtTime(
  events: readonly ConversationEvent[] | StreamFacts,
  time: string,
): number | undefined {
  const starts = "turnStarts" in events ? events.turnStarts : describeStream(events).turnStarts;
  let found: number | undefined;
  for (let turn = 0; turn < starts.length; turn++) {
    // Start times are assumed not to decrease (jp's rule): the first later start ends the search.
    if (compareTimestamps(starts[turn]!, time) > 0) break;
    found = turn;
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// Rule bounds (`keep_first`, `keep_last`, the `-k` DSL)

/** A `keep_first`/`keep_last` value (§5.2). */
export type RuleBound =
  /** A count of turns to keep. */
  | { kind: "turns"; count: number }
  /** `@N`: a 1-based turn position. */
  | { kind: "absolute"; turn: number }
  /** `-N`: an offset from the end. */
  | { kind: "from-end"; count: number }
  /** A time window, e.g. `5h`. */
  | { kind: "duration"; milliseconds: number }
  /** `last-compaction` (alias `last`). */
  | { kind: "after-last-compaction" };

function isLastCompaction(text: string): boolean {
  const lower = text.toLowerCase();
  return lower === "last-compaction" || lower === "last";
}

/** Parses the string form of a rule bound, in jp's order of checks. */
export function parseRuleBound(text: string): Parsed<RuleBound> {
  if (isLastCompaction(text)) return { ok: true, value: { kind: "after-last-compaction" } };
  if (text.startsWith("@")) {
    const digits = text.slice(1);
    if (!/^\d+$/.test(digits)) return { ok: false, message: `invalid absolute turn \`${text}\`` };
    if (Number(digits) === 0) {
      return { ok: false, message: `absolute turns are 1-based; \`${text}\` is not a valid turn` };
    }
    return { ok: true, value: { kind: "absolute", turn: Number(digits) } };
  }
  if (text.startsWith("-")) {
    const digits = text.slice(1);
    if (!/^\d+$/.test(digits)) return { ok: false, message: `invalid from-end bound \`${text}\`` };
    return { ok: true, value: { kind: "from-end", count: Number(digits) } };
  }
  if (/^\d+$/.test(text)) return { ok: true, value: { kind: "turns", count: Number(text) } };
  const duration = parseDuration(text);
  if (!duration.ok) return { ok: false, message: `invalid range bound \`${text}\`: ${duration.message}` };
  return { ok: true, value: { kind: "duration", milliseconds: duration.value } };
}

/** Reads a rule bound from config: an integer count or a string (§5.2). */
export function readRuleBound(value: unknown): Parsed<RuleBound> {
  if (typeof value === "number") {
    if (!Number.isInteger(value))
      return { ok: false, message: `turn count must be an integer, got \`${value}\`` };
    if (value < 0) return { ok: false, message: `turn count must be non-negative, got \`${value}\`` };
    return { ok: true, value: { kind: "turns", count: value } };
  }
  if (typeof value === "string") return parseRuleBound(value);
  return { ok: false, message: "expected a turn count or a string bound" };
}

/** The config form of a rule bound: a number for a count, otherwise its canonical string. */
export function formatRuleBound(bound: RuleBound): number | string {
  switch (bound.kind) {
    case "turns":
      return bound.count;
    case "absolute":
      return `@${bound.turn}`;
    case "from-end":
      return `-${bound.count}`;
    case "duration":
      return formatDuration(bound.milliseconds);
    case "after-last-compaction":
      return "last-compaction";
  }
}

/** A bound after conversion: none (use the default), a core bound, or "this compacts nothing". */
export type BoundResolution = { kind: "default" } | { kind: "bound"; bound: TurnBound } | { kind: "empty" };

const DEFAULT: BoundResolution = { kind: "default" };
const EMPTY: BoundResolution = { kind: "empty" };
const bound = (value: TurnBound): BoundResolution => ({ kind: "bound", bound: value });

/** `keep_first` → the range's start (§5.3). */
export function convertKeepFirst(keepFirst: RuleBound, facts: StreamFacts): BoundResolution {
  switch (keepFirst.kind) {
    case "turns":
      return bound({ kind: "absolute", index: keepFirst.count });
    case "absolute":
      return bound({ kind: "absolute", index: keepFirst.turn - 1 });
    case "from-end":
      return bound({ kind: "from-end", offset: keepFirst.count });
    case "after-last-compaction":
      return bound({ kind: "after-last-compaction" });
    case "duration": {
      const firstStart = facts.turnStarts[0];
      if (firstStart === undefined) return EMPTY;
      const windowEnd = shiftTimestamp(firstStart, keepFirst.milliseconds);
      if (windowEnd === undefined) return EMPTY;
      const active = turnAtTime(facts, windowEnd);
      return bound({ kind: "absolute", index: active === undefined ? 0 : active + 1 });
    }
  }
}

/** `keep_last` → the range's end (§5.3). `now` is an RFC 3339 timestamp. */
export function convertKeepLast(keepLast: RuleBound, facts: StreamFacts, now: string): BoundResolution {
  switch (keepLast.kind) {
    case "turns":
    case "from-end":
      return bound({ kind: "from-end", offset: keepLast.count });
    case "absolute":
      return bound({ kind: "absolute", index: keepLast.turn - 1 });
    case "after-last-compaction":
      return DEFAULT;
    case "duration": {
      const cutoff = shiftTimestamp(now, -keepLast.milliseconds);
      const active = cutoff === undefined ? undefined : turnAtTime(facts, cutoff);
      return active === undefined ? EMPTY : bound({ kind: "absolute", index: active });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Command-line bounds

/** A `--from`/`--to` value: a core bound, or a duration cutoff computed when parsed. */
export type CliBound = TurnBound | { kind: "cutoff"; time: string };

function parseCliBound(text: string, now: string, flag: "--from" | "--to"): Parsed<CliBound> {
  if (isLastCompaction(text)) {
    if (flag === "--to") {
      return {
        ok: false,
        message: "`last-compaction` is only valid for `--from` (it marks the most recent compaction)",
      };
    }
    return { ok: true, value: { kind: "after-last-compaction" } };
  }
  if (/^-\d+$/.test(text)) {
    const count = Number(text.slice(1));
    if (count === 0)
      return { ok: false, message: "from-end offsets are 1-based; use `-1` for the last turn" };
    return { ok: true, value: { kind: "from-end", offset: count - 1 } };
  }
  if (/^\d+$/.test(text)) {
    const turn = Number(text);
    if (turn === 0) return { ok: false, message: "turn numbers are 1-based; `0` is not a valid turn" };
    return { ok: true, value: { kind: "absolute", index: turn - 1 } };
  }
  const duration = parseDuration(text);
  if (!duration.ok) return { ok: false, message: `invalid range bound \`${text}\`: ${duration.message}` };
  const time = shiftTimestamp(now, -duration.value);
  if (time === undefined)
    return { ok: false, message: `invalid range bound \`${text}\`: number is too large` };
  return { ok: true, value: { kind: "cutoff", time } };
}

/** Parses `--from` (§5.4). */
export function parseFromBound(text: string, now: string): Parsed<CliBound> {
  return parseCliBound(text, now, "--from");
}

/** Parses `--to` (§5.4); `last-compaction` is refused. */
export function parseToBound(text: string, now: string): Parsed<CliBound> {
  return parseCliBound(text, now, "--to");
}

/** `--from` as the range's start: a cutoff starts after the turn active at it. */
export function convertFromBound(from: CliBound, facts: StreamFacts): BoundResolution {
  if (from.kind !== "cutoff") return bound(from);
  const active = turnAtTime(facts, from.time);
  if (active === undefined) return bound({ kind: "absolute", index: 0 });
  return active + 1 >= facts.turnCount ? EMPTY : bound({ kind: "absolute", index: active + 1 });
}

/** `--to` as the range's end: a cutoff ends at the turn active at it, inclusive. */
export function convertToBound(to: CliBound, facts: StreamFacts): BoundResolution {
  if (to.kind !== "cutoff") return bound(to);
  const active = turnAtTime(facts, to.time);
  return active === undefined ? EMPTY : bound({ kind: "absolute", index: active });
}

/** `--first N`, `--last N` or `--turn A..B` (1-based, either end open). Each sets both ends. */
export type TurnSelector =
  | { kind: "first"; count: number }
  | { kind: "last"; count: number }
  | { kind: "turns"; from?: number; to?: number };

function parseTurnNumber(text: string): Parsed<number> {
  if (!/^\d+$/.test(text)) return { ok: false, message: `invalid turn number \`${text}\`` };
  const turn = Number(text);
  if (turn === 0) return { ok: false, message: "turn numbers are 1-based; `0` is not a valid turn" };
  return { ok: true, value: turn };
}

/** Parses the value of `--turn`: `N`, `A..B`, `A..`, `..B` or `..`. */
export function parseTurnSelector(text: string): Parsed<TurnSelector> {
  const separator = text.indexOf("..");
  if (separator < 0) {
    const turn = parseTurnNumber(text);
    return turn.ok ? { ok: true, value: { kind: "turns", from: turn.value, to: turn.value } } : turn;
  }
  const selector: TurnSelector = { kind: "turns" };
  for (const [side, part] of [
    ["from", text.slice(0, separator)],
    ["to", text.slice(separator + 2)],
  ] as const) {
    if (part === "") continue;
    const turn = parseTurnNumber(part);
    if (!turn.ok) return turn;
    selector[side] = turn.value;
  }
  return { ok: true, value: selector };
}

/** `turn N out of range (conversation has C turns)` for a `--turn` end past the conversation. */
export function checkTurnSelector(selector: TurnSelector, turnCount: number): string | undefined {
  if (selector.kind !== "turns") return undefined;
  for (const turn of [selector.from, selector.to]) {
    if (turn !== undefined && turn > turnCount) {
      return `turn ${turn} out of range (conversation has ${turnCount} turns)`;
    }
  }
  return undefined;
}

/** The start and end a selector sets (§5.4). `--first 0`/`--last 0` select nothing. */
export function selectorBounds(selector: TurnSelector): { from: BoundResolution; to: BoundResolution } {
  if (selector.kind === "first") {
    if (selector.count === 0) return { from: EMPTY, to: EMPTY };
    return {
      from: bound({ kind: "absolute", index: 0 }),
      to: bound({ kind: "absolute", index: selector.count - 1 }),
    };
  }
  if (selector.kind === "last") {
    if (selector.count === 0) return { from: EMPTY, to: EMPTY };
    return {
      from: bound({ kind: "from-end", offset: selector.count - 1 }),
      to: bound({ kind: "from-end", offset: 0 }),
    };
  }
  return {
    from: bound({ kind: "absolute", index: (selector.from ?? 1) - 1 }),
    to:
      selector.to === undefined
        ? bound({ kind: "from-end", offset: 0 })
        : bound({ kind: "absolute", index: selector.to - 1 }),
  };
}

/** Resolves a start and an end that may be default or empty; undefined means nothing selected. */
export function resolveResolutions(
  facts: StreamFacts,
  from: BoundResolution,
  to: BoundResolution,
): TurnRange | undefined {
  if (from.kind === "empty" || to.kind === "empty") return undefined;
  return resolveRange(
    facts,
    from.kind === "bound" ? from.bound : undefined,
    to.kind === "bound" ? to.bound : undefined,
  );
}
