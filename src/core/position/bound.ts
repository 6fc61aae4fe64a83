/**
 * The position algebra: one `Bound`, one range of bounds, and one resolver against the facts of a
 * conversation (docs/compaction-model.md, "Range bounds"; docs/decisions/009-one-position-algebra.md).
 * Pure.
 *
 * Every surface that names a place in a conversation is a thin parser into a `Bound` (parse.ts):
 * the configured rules' `keep_first`/`keep_last`, the `-k` DSL, the range flags of `compact`,
 * `print`'s and `fork`'s selectors, the assistant's `compact` tool, the review's
 * `propose_compaction` and automatic compaction's cut. A range is a start and an end bound, either
 * open; `resolveBoundRange` turns it into the positions it covers, or nothing, or one of the few
 * position errors, worded here once.
 *
 * A bound is read on the side it stands: a start names the first element the range covers, an end
 * the last. The elements are turns, each a head (its user message) and its cycles (model round
 * trips, docs/decisions/006-tool-cycle-bounds.md). A range whose bounds name cycles or tool calls
 * is *precise*: it is resolved to cycles, and never covers the conversation's last cycle (its calls
 * may still be waiting for their results). Other ranges cover whole turns.
 */
import { activeCompactions } from "../conversation/compactions.js";
import {
  type CycleFacts,
  type CyclePosition,
  type CycleSpan,
  comparePositions,
  describeCycles,
  flatIndexOf,
  HEAD,
  positionOfCycle,
  TURN_END,
} from "../conversation/cycles.js";
import { type ConversationEvent, compareTimestamps } from "../conversation/events.js";
import { groupTurns } from "../conversation/turns.js";
import { formatCount } from "../present/labels.js";
import { shiftTimestamp } from "./duration.js";

/** What a count bound counts: whole turns, cycles (model responses), or tool calls. */
export type CountUnit = "turns" | "cycles" | "calls";

/** A moment a time bound is read at. */
export type TimePoint =
  /** An RFC 3339 time. */
  | { readonly at: string }
  /** This long after the first turn started (`keep_first = "2h"`). */
  | { readonly afterFirstTurn: number }
  /** This long before the run (`keep_last = "2h"`). */
  | { readonly beforeNow: number };

/** A place in a conversation. Turns and cycles are 0-based. */
export type Bound =
  /**
   * Turn `turn` (or its cycle `cycle`), covered: as a start, the range begins there; as an end, it
   * ends there. `exact`: a turn the conversation does not have is an error, never clamped (`--turn`).
   * A cycle the turn does not have is an error too, unless `lenient` (a default that moves on to
   * the next turn's head, or back to the turn's end).
   */
  | {
      readonly kind: "turn";
      readonly turn: number;
      readonly cycle?: number;
      readonly exact?: boolean;
      readonly lenient?: boolean;
    }
  /**
   * The cut with `count` units on the `from` side of it: a start after the first `count` turns
   * (`keep_first = 3`), an end before the last `count` (`keep_last = 3`, `..-3`), the last five
   * tool calls left out (`-5calls`). A count of 0 turns is the very start or the very end. A cut by
   * calls falls at the cycle holding the counted call: the cycle is kept.
   */
  | {
      readonly kind: "count";
      readonly unit: CountUnit;
      readonly count: number;
      readonly from: "start" | "end";
    }
  /** The cut after the turn in progress at a moment (before every turn when none was). */
  | { readonly kind: "time"; readonly time: TimePoint }
  /**
   * The cut before the first turn that started at or after a moment (`fork --from/--until`): a
   * turn starting at the very moment is after it, where `time` puts it before.
   */
  | { readonly kind: "started"; readonly time: TimePoint }
  /** The cut after every compaction in force (`last-compaction`). */
  | { readonly kind: "after-last-compaction" };

/** A range of bounds; an absent side is open (the start or the end of the conversation). */
export interface BoundRange {
  readonly start?: Bound;
  readonly end?: Bound;
}

/** The open start or end: a count of nothing. */
export const OPEN_START: Bound = Object.freeze({ kind: "count", unit: "turns", count: 0, from: "start" });
export const OPEN_END: Bound = Object.freeze({ kind: "count", unit: "turns", count: 0, from: "end" });

/** True for a bound that names cycles or tool calls. */
export function isCycleBound(bound: Bound | undefined): boolean {
  if (bound === undefined) return false;
  if (bound.kind === "count") return bound.unit !== "turns";
  return bound.kind === "turn" && bound.cycle !== undefined;
}

/** True for a range resolved to cycles (see the module comment). */
export function isPreciseRange(range: BoundRange): boolean {
  return isCycleBound(range.start) || isCycleBound(range.end);
}

// ---------------------------------------------------------------------------------------------
// The facts a range is resolved against

/** What resolution needs to know about a conversation, computed once per snapshot. */
export interface PositionFacts {
  readonly turnCount: number;
  /** One past the highest `to_turn` of the compactions in force; 0 when there are none. */
  readonly afterLastCompaction: number;
  /** The start time (timestamp of the first event) of each turn. */
  readonly turnStarts: readonly string[];
  /** RFC 3339 time of the run, for `beforeNow`. */
  readonly now: string;
  /** The cycles of every turn, laid out on first use (only precise ranges need them). */
  cycles(): CycleFacts;
}

/** Collects the facts of a conversation (see PositionFacts). */
export function describePositions(events: readonly ConversationEvent[], now: string): PositionFacts {
  const turns = groupTurns(events);
  let afterLastCompaction = 0;
  for (const { compaction } of activeCompactions(events)) {
    afterLastCompaction = Math.max(afterLastCompaction, compaction.to_turn + 1);
  }
  let cycles: CycleFacts | undefined;
  return {
    turnCount: turns.length === 0 ? 0 : turns[turns.length - 1]!.index + 1,
    afterLastCompaction,
    turnStarts: turns.map((turn) => turn.events[0]!.ts),
    now,
    cycles: () => {
      cycles ??= describeCycles(events);
      return cycles;
    },
  };
}

/** The last turn whose start is at or before `time`; undefined if `time` precedes the first turn. */
export function turnAtTime(turnStarts: readonly string[], time: string): number | undefined {
  let found: number | undefined;
  for (let turn = 0; turn < turnStarts.length; turn++) {
    // Start times are assumed not to decrease (jp's rule): the first later start ends the search.
    if (compareTimestamps(turnStarts[turn]!, time) > 0) break;
    found = turn;
  }
  return found;
}

/** The first turn whose start is at or after `time`; the turn count when none is. */
function firstTurnFrom(turnStarts: readonly string[], time: string): number {
  const before = turnStarts.findIndex((start) => compareTimestamps(start, time) >= 0);
  return before < 0 ? turnStarts.length : before;
}

/** The moment a time bound is read at, or undefined when it cannot be told (no turns, overflow). */
function momentOf(facts: PositionFacts, time: TimePoint): string | undefined {
  if ("at" in time) return time.at;
  if ("beforeNow" in time) return shiftTimestamp(facts.now, -time.beforeNow);
  const first = facts.turnStarts[0];
  return first === undefined ? undefined : shiftTimestamp(first, time.afterFirstTurn);
}

// ---------------------------------------------------------------------------------------------
// Resolving

/** What a range covers: its positions, nothing, or why it cannot be resolved. */
export type RangeResolution =
  | { readonly kind: "span"; readonly span: CycleSpan; readonly precise: boolean }
  | { readonly kind: "empty" }
  | { readonly kind: "invalid"; readonly message: string };

const EMPTY: RangeResolution = Object.freeze({ kind: "empty" });

/** `turn 9 out of range (conversation has 5 turns)`: a turn an exact bound names is not there. */
export function describeTurnOutOfRange(turn: number, turnCount: number): string {
  return `turn ${turn + 1} out of range (conversation has ${formatCount(turnCount, "turn")})`;
}

/** `turn 2 has 2 cycles; there is no cycle 5`: a cycle a position names is not in its turn. */
export function describeCycleOutOfRange(turn: number, cycleCount: number, cycle: number): string {
  return `turn ${turn + 1} has ${formatCount(cycleCount, "cycle")}; there is no cycle ${cycle + 1}`;
}

/** A bound that names a turn (or a cycle of it). */
export type TurnBound = Extract<Bound, { kind: "turn" }>;

/** What is wrong with a turn bound: the turn (exact) or the cycle is not in the conversation. */
export type BoundProblem =
  | { readonly kind: "turn"; readonly turn: number; readonly turnCount: number }
  | { readonly kind: "cycle"; readonly turn: number; readonly cycle: number; readonly cycleCount: number };

/**
 * The problem of a turn bound against the conversation (see Bound), as data: every surface
 * resolves with this check, and one that names its own fields (the review's) words it itself.
 */
export function boundProblem(facts: PositionFacts, bound: TurnBound): BoundProblem | undefined {
  if (bound.exact && bound.turn >= facts.turnCount)
    return { kind: "turn", turn: bound.turn, turnCount: facts.turnCount };
  if (bound.cycle === undefined || bound.lenient || bound.turn >= facts.turnCount) return undefined;
  const cycleCount = facts.cycles().cycleCounts[bound.turn] ?? 0;
  return bound.cycle >= cycleCount
    ? { kind: "cycle", turn: bound.turn, cycle: bound.cycle, cycleCount }
    : undefined;
}

/** The first problem of a range's bounds (see Bound), worded once for every surface. */
function checkExact(facts: PositionFacts, range: BoundRange): string | undefined {
  for (const bound of [range.start, range.end]) {
    if (bound?.kind !== "turn") continue;
    const problem = boundProblem(facts, bound);
    if (problem?.kind === "turn") return describeTurnOutOfRange(problem.turn, problem.turnCount);
    if (problem?.kind === "cycle")
      return describeCycleOutOfRange(problem.turn, problem.cycleCount, problem.cycle);
  }
  return undefined;
}

/**
 * The positions two turn bounds name, read without the conversation: from the first's head (or
 * its cycle) to the last's end (or its cycle).
 */
export function spanOfTurnBounds(start: TurnBound, end: TurnBound): CycleSpan {
  return {
    from: { turn: start.turn, cycle: start.cycle ?? HEAD },
    to: { turn: end.turn, cycle: end.cycle ?? TURN_END },
  };
}

/** The first whole turn a start bound covers, or undefined for nothing. */
function turnStart(facts: PositionFacts, bound: Bound | undefined): number | undefined {
  const last = facts.turnCount - 1;
  const within = (turn: number) => (turn <= last ? turn : undefined);
  if (bound === undefined) return within(0);
  switch (bound.kind) {
    case "turn":
      return within(bound.turn);
    case "count":
      // Counts of cycles or calls only stand in precise ranges (cycleStart).
      return within(bound.from === "start" ? bound.count : Math.max(facts.turnCount - bound.count, 0));
    case "time": {
      const moment = momentOf(facts, bound.time);
      if (moment === undefined) return undefined;
      const active = turnAtTime(facts.turnStarts, moment);
      return within(active === undefined ? 0 : active + 1);
    }
    case "started": {
      const moment = momentOf(facts, bound.time);
      return moment === undefined ? undefined : within(firstTurnFrom(facts.turnStarts, moment));
    }
    case "after-last-compaction":
      return within(facts.afterLastCompaction);
  }
}

/** The last whole turn an end bound covers, or undefined for nothing. */
function turnEnd(facts: PositionFacts, bound: Bound | undefined): number | undefined {
  const last = facts.turnCount - 1;
  const clamped = (turn: number) => (turn < 0 ? undefined : Math.min(turn, last));
  if (bound === undefined) return clamped(last);
  switch (bound.kind) {
    case "turn":
      return clamped(bound.turn);
    case "count":
      return clamped(bound.from === "start" ? bound.count - 1 : last - bound.count);
    case "time": {
      const moment = momentOf(facts, bound.time);
      const active = moment === undefined ? undefined : turnAtTime(facts.turnStarts, moment);
      return active === undefined ? undefined : clamped(active);
    }
    case "started": {
      const moment = momentOf(facts, bound.time);
      return moment === undefined ? undefined : clamped(firstTurnFrom(facts.turnStarts, moment) - 1);
    }
    case "after-last-compaction":
      return clamped(facts.afterLastCompaction - 1);
  }
}

/** The flat index of the cycle holding the `count`-th tool call from the start, if there is one. */
function cycleOfCall(cycles: CycleFacts, count: number): number | undefined {
  let seen = 0;
  for (let index = 0; index < cycles.calls.length; index++) {
    seen += cycles.calls[index]!;
    if (seen >= count) return index;
  }
  return undefined;
}

/** The flat index of the cycle holding the `count`-th tool call from the end, if there is one. */
function cycleOfCallFromEnd(cycles: CycleFacts, count: number): number | undefined {
  let seen = 0;
  for (let index = cycles.calls.length - 1; index >= 0; index--) {
    seen += cycles.calls[index]!;
    if (seen >= count) return index;
  }
  return undefined;
}

/** A start at a cycle its turn does not have moves to the next turn's head. */
function normalizeStart(cycles: CycleFacts, position: CyclePosition): CyclePosition | undefined {
  if (position.turn >= cycles.turnCount) return undefined;
  if (position.cycle === HEAD || position.cycle < (cycles.cycleCounts[position.turn] ?? 0)) return position;
  return position.turn + 1 < cycles.turnCount ? { turn: position.turn + 1, cycle: HEAD } : undefined;
}

/** The first position a start bound covers in a precise range, or undefined for nothing. */
function cycleStart(facts: PositionFacts, bound: Bound | undefined): CyclePosition | undefined {
  const cycles = facts.cycles();
  const total = cycles.turnOf.length;
  if (bound?.kind === "turn" && bound.cycle !== undefined) {
    return normalizeStart(cycles, { turn: bound.turn, cycle: bound.cycle });
  }
  if (bound?.kind === "count" && bound.unit !== "turns") {
    let first: number | undefined;
    if (bound.unit === "cycles") first = bound.from === "start" ? bound.count : total - bound.count;
    else if (bound.from === "start") {
      const holding = bound.count === 0 ? -1 : cycleOfCall(cycles, bound.count);
      first = holding === undefined ? undefined : holding + 1;
    } else first = bound.count === 0 ? total : cycleOfCallFromEnd(cycles, bound.count);
    return first === undefined || first >= total ? undefined : positionOfCycle(cycles, Math.max(first, 0));
  }
  const turn = turnStart(facts, bound);
  return turn === undefined ? undefined : { turn, cycle: HEAD };
}

/** The flat index of the last cycle an end bound covers in a precise range (before the clamp). */
function cycleEnd(facts: PositionFacts, bound: Bound | undefined): number | undefined {
  const cycles = facts.cycles();
  const total = cycles.turnOf.length;
  if (bound?.kind === "turn" && bound.cycle !== undefined) {
    if (bound.turn >= cycles.turnCount) return total - 1;
    if ((cycles.cycleCounts[bound.turn] ?? 0) === 0) return cycles.firstCycle[bound.turn]! - 1;
    return flatIndexOf(cycles, { turn: bound.turn, cycle: bound.cycle });
  }
  if (bound?.kind === "count" && bound.unit !== "turns") {
    if (bound.unit === "cycles") return bound.from === "end" ? total - 1 - bound.count : bound.count - 1;
    if (bound.from === "start") return bound.count === 0 ? -1 : cycleOfCall(cycles, bound.count);
    if (bound.count === 0) return total - 1;
    const holding = cycleOfCallFromEnd(cycles, bound.count);
    return holding === undefined ? undefined : holding - 1;
  }
  const turn = turnEnd(facts, bound);
  if (turn === undefined) return undefined;
  return cycles.firstCycle[turn]! + (cycles.cycleCounts[turn] ?? 0) - 1;
}

/** Options of `resolveBoundRange`. */
export interface ResolveOptions {
  /** False: a precise range may cover the conversation's last cycle. Default true (see the module comment). */
  readonly keepLastCycle?: boolean;
}

/** The positions a range covers, or nothing, or why it cannot be resolved; see the module comment. */
export function resolveBoundRange(
  facts: PositionFacts,
  range: BoundRange,
  options: ResolveOptions = {},
): RangeResolution {
  const problem = checkExact(facts, range);
  if (problem !== undefined) return { kind: "invalid", message: problem };
  if (!isPreciseRange(range)) {
    const start = turnStart(facts, range.start);
    const end = turnEnd(facts, range.end);
    if (start === undefined || end === undefined || start > end) return EMPTY;
    return {
      kind: "span",
      span: { from: { turn: start, cycle: HEAD }, to: { turn: end, cycle: TURN_END } },
      precise: false,
    };
  }
  const start = cycleStart(facts, range.start);
  const endIndex = cycleEnd(facts, range.end);
  if (start === undefined || endIndex === undefined) return EMPTY;
  const cycles = facts.cycles();
  // Never the conversation's last cycle: its calls may still be waiting for their results.
  const clamped = Math.min(endIndex, cycles.turnOf.length - (options.keepLastCycle === false ? 1 : 2));
  if (clamped < 0) return EMPTY;
  const end = positionOfCycle(cycles, clamped);
  return comparePositions(start, end) <= 0
    ? { kind: "span", span: { from: start, to: end }, precise: true }
    : EMPTY;
}
