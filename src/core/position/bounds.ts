/**
 * Turn range bounds and their resolution against a conversation (docs/compaction-model.md, "Range bounds"). Pure.
 *
 * Three layers:
 * - the core bound (`TurnBound`: absolute index, offset from the end, after the last compaction)
 *   and `resolveRange`, which turns a pair of optional bounds into an inclusive 0-based range or
 *   nothing;
 * - the rule bound of `keep_first`/`keep_last` (`RuleBound`: a count, `@N`, `-N`, a duration or
 *   `last-compaction`) and its conversion to a core bound;
 * - the command-line bounds `--from/--to/--first/--last/--turn`, in `cli-bounds.ts`.
 * Durations and timestamp arithmetic are in `duration.ts`.
 *
 * Durations are resolved against turn start times (the timestamp of a turn's first event); the
 * caller passes `now` in as an RFC 3339 string. Error texts are jp's, word for word.
 */
import { activeCompactions } from "../conversation/compactions.js";
import { formatDuration, parseDuration, shiftTimestamp } from "./duration.js";
import { type ConversationEvent, compareTimestamps } from "../conversation/events.js";
import type { Parsed } from "../parsed.js";
import { groupTurns } from "../conversation/turns.js";

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

/** Resolves optional bounds to a range, or undefined for "nothing". */
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

/** A `keep_first`/`keep_last` value (cycle bounds: docs/decisions/006-tool-cycle-bounds.md). */
export type RuleBound =
  /** A count of turns to keep. */
  | { kind: "turns"; count: number }
  /** `@N`: a 1-based turn position; `@N.C`: cycle C (1-based) of turn N. */
  | { kind: "absolute"; turn: number; cycle?: number }
  /** `-N`: an offset from the end. */
  | { kind: "from-end"; count: number }
  /** A time window, e.g. `5h`. */
  | { kind: "duration"; milliseconds: number }
  /** `last-compaction` (alias `last`). */
  | { kind: "after-last-compaction" }
  /** `N cycles`: a count of cycles (model responses), across turns. */
  | { kind: "cycles"; count: number }
  /** `N calls`: a count of tool calls, across turns; the cut falls at a cycle boundary. */
  | { kind: "calls"; count: number };

/** True for a bound that names cycles or calls (a rule with one is cycle-precise). */
export function isCycleBound(bound: RuleBound | undefined): boolean {
  return (
    bound !== undefined &&
    (bound.kind === "cycles" ||
      bound.kind === "calls" ||
      (bound.kind === "absolute" && bound.cycle !== undefined))
  );
}

const CYCLE_COUNT = /^(\d+)\s*(cycles?|calls?)$/i;

/** `last-compaction` or its alias `last`, in any case. */
export function isLastCompaction(text: string): boolean {
  const lower = text.toLowerCase();
  return lower === "last-compaction" || lower === "last";
}

/** Parses the string form of a rule bound, in jp's order of checks. */
export function parseRuleBound(text: string): Parsed<RuleBound> {
  if (isLastCompaction(text)) return { ok: true, value: { kind: "after-last-compaction" } };
  if (text.startsWith("@")) {
    const match = /^(\d+)(?:\.(\d+))?$/.exec(text.slice(1));
    if (!match) return { ok: false, message: `invalid absolute turn \`${text}\`` };
    if (Number(match[1]) === 0) {
      return { ok: false, message: `absolute turns are 1-based; \`${text}\` is not a valid turn` };
    }
    if (match[2] === undefined) return { ok: true, value: { kind: "absolute", turn: Number(match[1]) } };
    if (Number(match[2]) === 0) {
      return { ok: false, message: `cycles are 1-based; \`${text}\` is not a valid cycle` };
    }
    return { ok: true, value: { kind: "absolute", turn: Number(match[1]), cycle: Number(match[2]) } };
  }
  const counted = CYCLE_COUNT.exec(text.trim());
  if (counted) {
    const kind = counted[2]!.toLowerCase().startsWith("cycle") ? "cycles" : "calls";
    return { ok: true, value: { kind, count: Number(counted[1]) } };
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

/** Reads a rule bound from config: an integer count or a string. */
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
      return bound.cycle === undefined ? `@${bound.turn}` : `@${bound.turn}.${bound.cycle}`;
    case "from-end":
      return `-${bound.count}`;
    case "duration":
      return formatDuration(bound.milliseconds);
    case "after-last-compaction":
      return "last-compaction";
    case "cycles":
      return `${bound.count} ${bound.count === 1 ? "cycle" : "cycles"}`;
    case "calls":
      return `${bound.count} ${bound.count === 1 ? "call" : "calls"}`;
  }
}

/** A bound after conversion: none (use the default), a core bound, or "this compacts nothing". */
export type BoundResolution = { kind: "default" } | { kind: "bound"; bound: TurnBound } | { kind: "empty" };

const DEFAULT_RESOLUTION: BoundResolution = { kind: "default" };
/** The resolution of a bound that selects nothing. */
export const EMPTY_RESOLUTION: BoundResolution = { kind: "empty" };

/** Wraps a core bound as a resolution. */
export function toBoundResolution(value: TurnBound): BoundResolution {
  return { kind: "bound", bound: value };
}

/**
 * `keep_first` → the range's start. A cycle bound has no turn-level start: it resolves with
 * `resolveCycleRange` (plan-cycles.ts), and here selects nothing.
 */
export function convertKeepFirst(keepFirst: RuleBound, facts: StreamFacts): BoundResolution {
  if (isCycleBound(keepFirst)) return EMPTY_RESOLUTION;
  switch (keepFirst.kind) {
    case "turns":
      return toBoundResolution({ kind: "absolute", index: keepFirst.count });
    case "absolute":
      return toBoundResolution({ kind: "absolute", index: keepFirst.turn - 1 });
    case "from-end":
      return toBoundResolution({ kind: "from-end", offset: keepFirst.count });
    case "after-last-compaction":
      return toBoundResolution({ kind: "after-last-compaction" });
    case "duration": {
      const firstStart = facts.turnStarts[0];
      if (firstStart === undefined) return EMPTY_RESOLUTION;
      const windowEnd = shiftTimestamp(firstStart, keepFirst.milliseconds);
      if (windowEnd === undefined) return EMPTY_RESOLUTION;
      const active = turnAtTime(facts, windowEnd);
      return toBoundResolution({ kind: "absolute", index: active === undefined ? 0 : active + 1 });
    }
    case "cycles":
    case "calls":
      return EMPTY_RESOLUTION;
  }
}

/**
 * `keep_last` → the range's end. `now` is an RFC 3339 timestamp. A cycle bound selects nothing
 * here (see `convertKeepFirst`).
 */
export function convertKeepLast(keepLast: RuleBound, facts: StreamFacts, now: string): BoundResolution {
  if (isCycleBound(keepLast)) return EMPTY_RESOLUTION;
  switch (keepLast.kind) {
    case "turns":
    case "from-end":
      return toBoundResolution({ kind: "from-end", offset: keepLast.count });
    case "absolute":
      return toBoundResolution({ kind: "absolute", index: keepLast.turn - 1 });
    case "after-last-compaction":
      return DEFAULT_RESOLUTION;
    case "duration": {
      const cutoff = shiftTimestamp(now, -keepLast.milliseconds);
      const active = cutoff === undefined ? undefined : turnAtTime(facts, cutoff);
      return active === undefined ? EMPTY_RESOLUTION : toBoundResolution({ kind: "absolute", index: active });
    }
    case "cycles":
    case "calls":
      return EMPTY_RESOLUTION;
  }
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
