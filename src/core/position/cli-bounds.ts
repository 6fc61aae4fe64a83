/**
 * The command-line bounds of `compact` (docs/compaction-model.md, "Range bounds"): `--from`/`--to` (a turn, `-N` from the
 * end, `last-compaction`, or a duration before `now`) and the selectors `--first N`, `--last N`,
 * `--turn A..B`, each of which sets both ends. Pure: `now` is passed in as an RFC 3339 string.
 * Error texts are jp's, word for word. cxc adds `T.C` (turn T, cycle C, both 1-based) to `--from`
 * and `--to`: the range starts or ends at that cycle (docs/decisions/006-tool-cycle-bounds.md).
 */
import {
  type BoundResolution,
  EMPTY_RESOLUTION,
  isLastCompaction,
  type RuleBound,
  type StreamFacts,
  type TurnBound,
  toBoundResolution,
  turnAtTime,
} from "./bounds.js";
import { parseDuration, shiftTimestamp } from "./duration.js";
import type { Parsed } from "../parsed.js";

/** A `--from`/`--to` value: a core bound, a duration cutoff computed when parsed, or a cycle. */
export type CliBound =
  | TurnBound
  | { kind: "cutoff"; time: string }
  /** `T.C`: cycle C of turn T, both 1-based. */
  | { kind: "cycle"; turn: number; cycle: number };

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
  const cycle = /^(\d+)\.(\d+)$/.exec(text);
  if (cycle !== null) {
    if (Number(cycle[1]) === 0)
      return { ok: false, message: `turn numbers are 1-based; \`${text}\` is not a valid turn` };
    if (Number(cycle[2]) === 0)
      return { ok: false, message: `cycles are 1-based; \`${text}\` is not a valid cycle` };
    return { ok: true, value: { kind: "cycle", turn: Number(cycle[1]), cycle: Number(cycle[2]) } };
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

/** Parses `--from` (see "Range bounds"). */
export function parseFromBound(text: string, now: string): Parsed<CliBound> {
  return parseCliBound(text, now, "--from");
}

/** Parses `--to` (see "Range bounds"); `last-compaction` is refused. */
export function parseToBound(text: string, now: string): Parsed<CliBound> {
  return parseCliBound(text, now, "--to");
}

/** A `T.C` flag as the rule bound cycle-precise planning reads (`@T.C`), else undefined. */
export function cycleFlagBound(bound: CliBound | undefined): RuleBound | undefined {
  return bound?.kind === "cycle" ? { kind: "absolute", turn: bound.turn, cycle: bound.cycle } : undefined;
}

/**
 * `--from` as the range's start: a cutoff starts after the turn active at it; `T.C` stands for its
 * turn here (cycle-precise planning reads the cycle through `cycleFlagBound`).
 */
export function convertFromBound(from: CliBound, facts: StreamFacts): BoundResolution {
  if (from.kind === "cycle") return toBoundResolution({ kind: "absolute", index: from.turn - 1 });
  if (from.kind !== "cutoff") return toBoundResolution(from);
  const active = turnAtTime(facts, from.time);
  if (active === undefined) return toBoundResolution({ kind: "absolute", index: 0 });
  return active + 1 >= facts.turnCount
    ? EMPTY_RESOLUTION
    : toBoundResolution({ kind: "absolute", index: active + 1 });
}

/** `--to` as the range's end: a cutoff ends at the turn active at it, inclusive; `T.C` as for `--from`. */
export function convertToBound(to: CliBound, facts: StreamFacts): BoundResolution {
  if (to.kind === "cycle") return toBoundResolution({ kind: "absolute", index: to.turn - 1 });
  if (to.kind !== "cutoff") return toBoundResolution(to);
  const active = turnAtTime(facts, to.time);
  return active === undefined ? EMPTY_RESOLUTION : toBoundResolution({ kind: "absolute", index: active });
}

/** `--first N`, `--last N` or `--turn A..B` (1-based, either end open). Each sets both ends. */
export type TurnSelector =
  | { kind: "first"; count: number }
  | { kind: "last"; count: number }
  | { kind: "turns"; from?: number; to?: number };

/** Why a `--turn` value is not valid; each caller words the error its own way. */
export type TurnRangeProblem =
  /** An end that is not a whole number (`text` is the offending end, or the whole value). */
  | { kind: "not-a-number"; text: string }
  /** An end of 0: turns are 1-based. */
  | { kind: "zero" };

/** The 1-based ends of a `--turn` value; a missing end is open. */
export type TurnRangeEnds =
  | { ok: true; from?: number; to?: number }
  | { ok: false; problem: TurnRangeProblem };

function readTurnNumber(text: string): { ok: true; turn: number } | { ok: false; problem: TurnRangeProblem } {
  if (!/^\d+$/.test(text)) return { ok: false, problem: { kind: "not-a-number", text } };
  const turn = Number(text);
  return turn === 0 ? { ok: false, problem: { kind: "zero" } } : { ok: true, turn };
}

/** The grammar of `--turn` (`N`, `A..B`, `A..`, `..B` or `..`), shared by `compact` and `print`/`fork`. */
export function splitTurnRange(text: string): TurnRangeEnds {
  const separator = text.indexOf("..");
  if (separator < 0) {
    const turn = readTurnNumber(text);
    return turn.ok ? { ok: true, from: turn.turn, to: turn.turn } : turn;
  }
  const ends: { ok: true; from?: number; to?: number } = { ok: true };
  for (const [side, part] of [
    ["from", text.slice(0, separator)],
    ["to", text.slice(separator + 2)],
  ] as const) {
    if (part === "") continue;
    const turn = readTurnNumber(part);
    if (!turn.ok) return turn;
    ends[side] = turn.turn;
  }
  return ends;
}

/** Parses the value of `--turn`: `N`, `A..B`, `A..`, `..B` or `..`. */
export function parseTurnSelector(text: string): Parsed<TurnSelector> {
  const ends = splitTurnRange(text);
  if (!ends.ok) {
    const message =
      ends.problem.kind === "zero"
        ? "turn numbers are 1-based; `0` is not a valid turn"
        : `invalid turn number \`${ends.problem.text}\``;
    return { ok: false, message };
  }
  if (ends.from !== undefined && ends.to !== undefined && ends.from > ends.to) {
    return { ok: false, message: `invalid turn range ${text.trim()} (the start is after the end)` };
  }
  return {
    ok: true,
    value: {
      kind: "turns",
      ...(ends.from === undefined ? {} : { from: ends.from }),
      ...(ends.to === undefined ? {} : { to: ends.to }),
    },
  };
}

/** `turn N out of range (conversation has C turns)` for a `--turn` end past the conversation. */
export function checkTurnSelector(selector: TurnSelector, turnCount: number): string | undefined {
  if (selector.kind !== "turns") return undefined;
  const turn = findTurnPastEnd(selector, turnCount);
  return turn === undefined ? undefined : `turn ${turn} out of range (conversation has ${turnCount} turns)`;
}

/**
 * The first end of a `--turn` range (1-based) past a conversation of `turnCount` turns. Ends are
 * never clamped (jp's rule): such an end is an error, worded by the caller.
 */
export function findTurnPastEnd(ends: { from?: number; to?: number }, turnCount: number): number | undefined {
  return [ends.from, ends.to].find((turn) => turn !== undefined && turn > turnCount);
}

/** The start and end a selector sets (see "Range bounds"). `--first 0`/`--last 0` select nothing. */
export function selectorBounds(selector: TurnSelector): { from: BoundResolution; to: BoundResolution } {
  if (selector.kind === "first") {
    if (selector.count === 0) return { from: EMPTY_RESOLUTION, to: EMPTY_RESOLUTION };
    return {
      from: toBoundResolution({ kind: "absolute", index: 0 }),
      to: toBoundResolution({ kind: "absolute", index: selector.count - 1 }),
    };
  }
  if (selector.kind === "last") {
    if (selector.count === 0) return { from: EMPTY_RESOLUTION, to: EMPTY_RESOLUTION };
    return {
      from: toBoundResolution({ kind: "from-end", offset: selector.count - 1 }),
      to: toBoundResolution({ kind: "from-end", offset: 0 }),
    };
  }
  return {
    from: toBoundResolution({ kind: "absolute", index: (selector.from ?? 1) - 1 }),
    to:
      selector.to === undefined
        ? toBoundResolution({ kind: "from-end", offset: 0 })
        : toBoundResolution({ kind: "absolute", index: selector.to - 1 }),
  };
}
