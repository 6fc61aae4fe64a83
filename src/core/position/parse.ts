/**
 * The surfaces' grammars of positions, each a thin parser into the one `Bound` (bound.ts). Pure.
 * Error texts are jp's, word for word, where jp has them (docs/compaction-model.md, "Range
 * bounds"); durations and times are in duration.ts.
 *
 * - `parseKeep`: `keep_first`/`keep_last` of a configured rule, and `--keep-first`/`--keep-last`:
 *   a count, `@N`, `@N.C`, `-N`, `N cycles`, `N calls`, a duration, `last-compaction`.
 * - `parseFlagBound`: `compact --from`/`--to`: `N`, `T.C`, `-N` (1-based from the end), a time,
 *   `last-compaction` (`--from` only).
 * - `parseSpecRange`: the range of a `-k` spec: `A..B`, either end open, `N`, `T.C`, `-N`,
 *   `-Ncalls`, `-Ncycles`, and the lone shorthands.
 * - `parseTurnSpan`: `--turn N|A..B|A..|..B|..`, shared by `compact`, `print` and `fork`: exact turns.
 * - `firstTurns` / `lastTurns`: `--first N` / `--last N`.
 * - `parseMessagePosition`: `keep`/`unkeep`'s `N` (turn N) or `N.C` (cycle C of turn N).
 */
import type { Parsed } from "../parsed.js";
import { type Bound, type BoundRange, OPEN_END, OPEN_START } from "./bound.js";
import { parseDuration, parseTimePoint } from "./duration.js";

/** The side a bound stands on: where a range starts (`keep_first`, `--from`) or ends. */
export type Side = "start" | "end";

/** `last-compaction` or its alias `last`, in any case. */
export function isLastCompaction(text: string): boolean {
  const lower = text.toLowerCase();
  return lower === "last-compaction" || lower === "last";
}

const CYCLE_COUNT = /^(\d+)\s*(cycles?|calls?)$/i;

function unitOf(word: string): "cycles" | "calls" {
  return word.toLowerCase().startsWith("cycle") ? "cycles" : "calls";
}

/** A count of turns kept at the side's end of the conversation. */
function keptTurns(count: number, side: Side): Bound {
  return { kind: "count", unit: "turns", count, from: side === "start" ? "start" : "end" };
}

/**
 * Parses a `keep_first` (side `start`) or `keep_last` (side `end`) string, in jp's order of checks.
 * `-N` keeps the turns from `N` before the last one on (`keep_first`) or the last `N` (`keep_last`);
 * `last-compaction` starts after every compaction in force, and as `keep_last` keeps nothing.
 */
export function parseKeep(text: string, side: Side): Parsed<Bound> {
  if (isLastCompaction(text)) {
    return { ok: true, value: side === "start" ? { kind: "after-last-compaction" } : OPEN_END };
  }
  if (text.startsWith("@")) {
    const match = /^(\d+)(?:\.(\d+))?$/.exec(text.slice(1));
    if (!match) return { ok: false, message: `invalid absolute turn \`${text}\`` };
    if (Number(match[1]) === 0) {
      return { ok: false, message: `absolute turns are 1-based; \`${text}\` is not a valid turn` };
    }
    const turn = Number(match[1]) - 1;
    if (match[2] === undefined) return { ok: true, value: { kind: "turn", turn } };
    if (Number(match[2]) === 0) {
      return { ok: false, message: `cycles are 1-based; \`${text}\` is not a valid cycle` };
    }
    return { ok: true, value: { kind: "turn", turn, cycle: Number(match[2]) - 1 } };
  }
  const counted = CYCLE_COUNT.exec(text.trim());
  if (counted) {
    return {
      ok: true,
      value: { kind: "count", unit: unitOf(counted[2]!), count: Number(counted[1]), from: side },
    };
  }
  if (text.startsWith("-")) {
    const digits = text.slice(1);
    if (!/^\d+$/.test(digits)) return { ok: false, message: `invalid from-end bound \`${text}\`` };
    // jp's FromEnd(N): a start at `last - N`, an end keeping the last N.
    const count = Number(digits);
    return { ok: true, value: keptTurns(side === "start" ? count + 1 : count, "end") };
  }
  if (/^\d+$/.test(text)) return { ok: true, value: keptTurns(Number(text), side) };
  const duration = parseDuration(text);
  if (!duration.ok) return { ok: false, message: `invalid range bound \`${text}\`: ${duration.message}` };
  return {
    ok: true,
    value: {
      kind: "time",
      time: side === "start" ? { afterFirstTurn: duration.value } : { beforeNow: duration.value },
    },
  };
}

/** Reads a `keep_first`/`keep_last` from configuration: an integer count or a string. */
export function readKeep(value: unknown, side: Side): Parsed<Bound> {
  if (typeof value === "number") {
    if (!Number.isInteger(value))
      return { ok: false, message: `turn count must be an integer, got \`${value}\`` };
    if (value < 0) return { ok: false, message: `turn count must be non-negative, got \`${value}\`` };
    return { ok: true, value: keptTurns(value, side) };
  }
  if (typeof value === "string") return parseKeep(value, side);
  return { ok: false, message: "expected a turn count or a string bound" };
}

/**
 * Parses `compact --from` (side `start`) or `--to` (side `end`). `now` reads a duration as that
 * long ago, at parse time (jp's cutoff). `-1` is the last turn; `T.C` is cycle C of turn T.
 */
export function parseFlagBound(text: string, side: Side, now: string): Parsed<Bound> {
  if (isLastCompaction(text)) {
    if (side === "end") {
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
    // `-N` is the N-th turn from the end, covered on either side.
    return { ok: true, value: keptTurns(side === "start" ? count : count - 1, "end") };
  }
  const cycle = /^(\d+)\.(\d+)$/.exec(text);
  if (cycle !== null) {
    if (Number(cycle[1]) === 0)
      return { ok: false, message: `turn numbers are 1-based; \`${text}\` is not a valid turn` };
    if (Number(cycle[2]) === 0)
      return { ok: false, message: `cycles are 1-based; \`${text}\` is not a valid cycle` };
    return { ok: true, value: { kind: "turn", turn: Number(cycle[1]) - 1, cycle: Number(cycle[2]) - 1 } };
  }
  if (/^\d+$/.test(text)) {
    const turn = Number(text);
    if (turn === 0) return { ok: false, message: "turn numbers are 1-based; `0` is not a valid turn" };
    return { ok: true, value: { kind: "turn", turn: turn - 1 } };
  }
  const time = parseTimePoint(text, now);
  if (!time.ok) return { ok: false, message: `invalid range bound \`${text}\`: ${time.message}` };
  return { ok: true, value: { kind: "time", time: { at: time.value } } };
}

// ---------------------------------------------------------------------------------------------
// The `-k` range

/** One end of a `-k` range as written, before it stands on a side. */
type SpecEnd =
  | { readonly kind: "turn"; readonly turn: number; readonly cycle?: number }
  | { readonly kind: "from-end"; readonly count: number }
  | { readonly kind: "cycles" | "calls"; readonly count: number };

const FROM_END_COUNT = /^-(\d+)(cycles?|calls?)$/i;

function parseSpecEnd(text: string): Parsed<SpecEnd> {
  if (/^-\d+$/.test(text)) return { ok: true, value: { kind: "from-end", count: Number(text.slice(1)) } };
  const counted = FROM_END_COUNT.exec(text);
  if (counted) return { ok: true, value: { kind: unitOf(counted[2]!), count: Number(counted[1]) } };
  const cycle = /^(\d+)\.(\d+)$/.exec(text);
  if (cycle) {
    if (Number(cycle[1]) === 0)
      return { ok: false, message: "turn indices are 1-based; `0` is not a valid turn" };
    if (Number(cycle[2]) === 0)
      return { ok: false, message: `cycles are 1-based; \`${text}\` is not a valid cycle` };
    return { ok: true, value: { kind: "turn", turn: Number(cycle[1]) - 1, cycle: Number(cycle[2]) - 1 } };
  }
  if (!/^\d+$/.test(text)) return { ok: false, message: `invalid bound '${text}'` };
  if (Number(text) === 0) return { ok: false, message: "turn indices are 1-based; `0` is not a valid turn" };
  return { ok: true, value: { kind: "turn", turn: Number(text) - 1 } };
}

/** A spec end on its side: `-N` keeps N from the end (a left `-N` starts at `last - N`, jp's). */
function specBound(end: SpecEnd, side: Side): Bound {
  if (end.kind === "turn") return end;
  if (end.kind === "from-end") return keptTurns(side === "start" ? end.count + 1 : end.count, "end");
  return { kind: "count", unit: end.kind, count: end.count, from: "end" };
}

/**
 * Why a `-k` range selects nothing in any conversation: `5..2` (turn 5 comes after turn 2) or
 * `-2..-5`. cxc refuses it as a usage error; jp resolves it to nothing ("Nothing to compact.").
 */
function invertedSpec(from: SpecEnd | undefined, to: SpecEnd | undefined): string | undefined {
  if (from?.kind === "turn" && to?.kind === "turn" && from.turn > to.turn) {
    return `the range is inverted: turn ${from.turn + 1} comes after turn ${to.turn + 1}`;
  }
  if (from?.kind === "from-end" && to?.kind === "from-end" && from.count < to.count) {
    return `the range is inverted: ${from.count} from the end comes after ${to.count} from the end`;
  }
  return undefined;
}

/**
 * Parses the RANGE of a `-k` spec (docs/compaction-model.md, "The -k spec"). A lone `-N` (or
 * `-Ncalls`, `-Ncycles`) means `..-N`, a lone `N` (or `T.C`) means `N..`. An open start keeps
 * nothing at the front and an open end nothing at the back (jp's `Turns(0)`, `FromEnd(0)`).
 */
export function parseSpecRange(text: string): Parsed<BoundRange> {
  const separator = text.indexOf("..");
  let from: SpecEnd | undefined;
  let to: SpecEnd | undefined;
  if (separator < 0) {
    const single = parseSpecEnd(text);
    if (!single.ok) return single;
    if (single.value.kind === "turn") from = single.value;
    else to = single.value;
  } else {
    for (const [side, part] of [
      ["from", text.slice(0, separator)],
      ["to", text.slice(separator + 2)],
    ] as const) {
      if (part === "") continue;
      const parsed = parseSpecEnd(part);
      if (!parsed.ok) return parsed;
      if (side === "from" && (parsed.value.kind === "cycles" || parsed.value.kind === "calls")) {
        return {
          ok: false,
          message: `'${part}' counts from the end, so it can only end a range (..${part})`,
        };
      }
      if (side === "from") from = parsed.value;
      else to = parsed.value;
    }
  }
  const inverted = invertedSpec(from, to);
  if (inverted !== undefined) return { ok: false, message: inverted };
  return {
    ok: true,
    value: {
      start: from === undefined ? OPEN_START : specBound(from, "start"),
      end: to === undefined ? OPEN_END : specBound(to, "end"),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Selectors: `--turn`, `--first`, `--last`

/** Why a `--turn` value is not valid. */
export type TurnSpanProblem =
  | { readonly kind: "not-a-number"; readonly text: string }
  | { readonly kind: "zero" }
  | { readonly kind: "inverted" };

/**
 * Parses `--turn N|A..B|A..|..B|..` (1-based, inclusive) into a range of exact turns: a turn the
 * conversation does not have is an error, never clamped (jp's rule).
 */
export function parseTurnSpan(
  text: string,
): { ok: true; value: BoundRange } | { ok: false; message: string; problem: TurnSpanProblem } {
  const trimmed = text.trim();
  const separator = trimmed.indexOf("..");
  const parts =
    separator < 0 ? [trimmed, trimmed] : [trimmed.slice(0, separator), trimmed.slice(separator + 2)];
  const ends: (number | undefined)[] = [];
  for (const part of parts) {
    if (part === "") {
      ends.push(undefined);
      continue;
    }
    if (!/^\d+$/.test(part)) {
      return {
        ok: false,
        message: `invalid turn number \`${part}\``,
        problem: { kind: "not-a-number", text: part },
      };
    }
    if (Number(part) === 0) {
      return {
        ok: false,
        message: "turn numbers are 1-based; `0` is not a valid turn",
        problem: { kind: "zero" },
      };
    }
    ends.push(Number(part));
  }
  const [from, to] = ends;
  if (from !== undefined && to !== undefined && from > to) {
    return {
      ok: false,
      message: `invalid turn range ${trimmed} (the start is after the end)`,
      problem: { kind: "inverted" },
    };
  }
  return {
    ok: true,
    value: {
      start: from === undefined ? OPEN_START : { kind: "turn", turn: from - 1, exact: true },
      end: to === undefined ? OPEN_END : { kind: "turn", turn: to - 1, exact: true },
    },
  };
}

/** `--first N`: the first N turns. */
export function firstTurns(count: number): BoundRange {
  return { start: OPEN_START, end: { kind: "count", unit: "turns", count, from: "start" } };
}

/** `--last N`: the last N turns. */
export function lastTurns(count: number): BoundRange {
  return { start: { kind: "count", unit: "turns", count, from: "end" }, end: OPEN_END };
}

/** A turn, or a cycle of one (0-based), as `keep` and `unkeep` name what they pin. */
export interface MessagePosition {
  readonly turn: number;
  readonly cycle?: number;
}

/** Parses `N` or `N.C` (1-based, as `--from` reads them) into a 0-based position. */
export function parseMessagePosition(text: string): Parsed<MessagePosition> {
  if (!/^\d+(?:\.\d+)?$/.test(text)) {
    return {
      ok: false,
      message: `invalid position \`${text}\`: expected N (a turn) or N.C (cycle C of turn N)`,
    };
  }
  const bound = parseFlagBound(text, "start", "1970-01-01T00:00:00Z");
  if (!bound.ok) return bound;
  if (bound.value.kind !== "turn") return { ok: false, message: `invalid position \`${text}\`` };
  const { turn, cycle } = bound.value;
  return { ok: true, value: cycle === undefined ? { turn } : { turn, cycle } };
}
