/**
 * Planning rules whose bounds name cycles or tool calls (`keep_last = "5 calls"`, `-k s:..-3cycles`,
 * `@4.37`), and the events of their segments. Pure. See docs/decisions/006-tool-cycle-bounds.md.
 *
 * Both ends resolve to absolute positions against the conversation as it is now. The end never
 * covers the conversation's last cycle (the one in progress). An unset `keep_first` keeps the
 * first turn's user message: the range starts at the first cycle of turn 1. Mechanical policies
 * become one cycle-precise segment. A summary never removes the user message of a turn that goes
 * on after it, so its range is split: the rest of a turn it starts inside, the whole turns in
 * between, and the start of a turn it ends inside, each a segment with its own text. A derived
 * summary first grows over every summary it touches (positions, transitively); a supplied one that
 * would split an existing summary is a conflict.
 */
import { activeCompactions } from "../conversation/compactions.js";
import {
  type BoundResolution,
  convertKeepFirst,
  convertKeepLast,
  isCycleBound,
  type RuleBound,
  resolveRange,
  type StreamFacts,
} from "../position/bounds.js";
import {
  type CycleFacts,
  type CyclePosition,
  type CycleSpan,
  comparePositions,
  compactionPolicies,
  compactionSpan,
  describeCycles,
  flatIndexOf,
  HEAD,
  positionOfCycle,
  TURN_END,
} from "../conversation/cycles.js";
import type { ConversationEvent } from "../conversation/events.js";
import { describeSpan } from "../present/labels.js";
import type {
  CompactionPlan,
  CompactionSegment,
  ImposedBounds,
  PlanCompactionOptions,
} from "./plan-types.js";
import { type CompactionRule, DEFAULT_KEEP, toolCallsPolicyFor } from "./rules.js";

/** What a side of a cycle-precise range is resolved from. */
type Side =
  | { kind: "cycle"; bound: RuleBound }
  | { kind: "turn"; resolution: BoundResolution }
  /** The unset `keep_first` of a cycle-precise rule: from the first cycle of turn 1. */
  | { kind: "first-message" };

/** The cycle bound that wins each side, if any (imposed overrides first, then the rule's own). */
function cycleBounds(
  rule: CompactionRule,
  imposed: ImposedBounds,
): { from: RuleBound | undefined; to: RuleBound | undefined } {
  return {
    from:
      imposed.cycleFrom ??
      (imposed.from === undefined && isCycleBound(rule.keep_first) ? rule.keep_first : undefined),
    to:
      imposed.cycleTo ??
      (imposed.to === undefined && isCycleBound(rule.keep_last) ? rule.keep_last : undefined),
  };
}

/** True when a rule, with the overrides of the run, has a side that names cycles or calls. */
export function isCycleRule(rule: CompactionRule, imposed: ImposedBounds = {}): boolean {
  const bounds = cycleBounds(rule, imposed);
  return bounds.from !== undefined || bounds.to !== undefined;
}

/** What planning cycle rules needs, computed once per run. */
export interface CycleRuleContext {
  readonly facts: StreamFacts;
  readonly cycles: CycleFacts;
  readonly now: string;
  readonly supplied: boolean;
  /** The summaries in force, as spans. */
  readonly summaries: readonly SummarySpan[];
}

interface SummarySpan extends CycleSpan {
  readonly compactionId: string;
}

/** The context of a run (see CycleRuleContext). */
export function createCycleRuleContext(
  events: readonly ConversationEvent[],
  facts: StreamFacts,
  options: Pick<PlanCompactionOptions, "now" | "summarySource">,
): CycleRuleContext {
  return {
    facts,
    cycles: describeCycles(events),
    now: options.now,
    supplied: options.summarySource === "supplied",
    summaries: summarySpansOf(events),
  };
}

/** The summaries in force, as spans. */
function summarySpansOf(events: readonly ConversationEvent[]): SummarySpan[] {
  return activeCompactions(events)
    .map((entry) => entry.compaction)
    .filter((compaction) => compactionPolicies(compaction).summary !== undefined)
    .map((compaction) => ({ ...compactionSpan(compaction), compactionId: compaction.id }));
}

function totalCycles(cycles: CycleFacts): number {
  return cycles.turnOf.length;
}

/** A start position moved past a cycle its turn does not have (to the next turn's head). */
function normalizeStart(cycles: CycleFacts, position: CyclePosition): CyclePosition | undefined {
  if (position.turn >= cycles.turnCount) return undefined;
  if (position.cycle === HEAD || position.cycle < (cycles.cycleCounts[position.turn] ?? 0)) return position;
  return position.turn + 1 < cycles.turnCount ? { turn: position.turn + 1, cycle: HEAD } : undefined;
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

function resolveStart(side: Side, context: CycleRuleContext): CyclePosition | undefined {
  const { cycles } = context;
  if (side.kind === "first-message") return normalizeStart(cycles, { turn: 0, cycle: 0 });
  if (side.kind === "turn") {
    if (side.resolution.kind === "empty") return undefined;
    if (side.resolution.kind === "default") return { turn: 0, cycle: HEAD };
    const range = resolveRange(context.facts, side.resolution.bound, undefined);
    return range === undefined ? undefined : { turn: range.from, cycle: HEAD };
  }
  const bound = side.bound;
  const total = totalCycles(cycles);
  if (bound.kind === "cycles") return bound.count < total ? positionOfCycle(cycles, bound.count) : undefined;
  if (bound.kind === "calls") {
    const holding = bound.count === 0 ? -1 : cycleOfCall(cycles, bound.count);
    if (holding === undefined || holding + 1 >= total) return undefined;
    return positionOfCycle(cycles, holding + 1);
  }
  if (bound.kind === "absolute" && bound.cycle !== undefined) {
    return normalizeStart(cycles, { turn: bound.turn - 1, cycle: bound.cycle - 1 });
  }
  return undefined;
}

/** The flat index of the last cycle of the end side, before the in-progress clamp. */
function resolveEnd(side: Side, context: CycleRuleContext): number | undefined {
  const { cycles } = context;
  const total = totalCycles(cycles);
  const lastCycleOfTurn = (turn: number) => cycles.firstCycle[turn]! + (cycles.cycleCounts[turn] ?? 0) - 1;
  if (side.kind === "first-message") return undefined;
  if (side.kind === "turn") {
    if (side.resolution.kind === "empty") return undefined;
    if (side.resolution.kind === "default") return total - 1;
    const range = resolveRange(context.facts, undefined, side.resolution.bound);
    return range === undefined ? undefined : lastCycleOfTurn(range.to);
  }
  const bound = side.bound;
  if (bound.kind === "cycles") return total - 1 - bound.count;
  if (bound.kind === "calls") {
    if (bound.count === 0) return total - 1;
    const holding = cycleOfCallFromEnd(cycles, bound.count);
    return holding === undefined ? undefined : holding - 1;
  }
  if (bound.kind === "absolute" && bound.cycle !== undefined) {
    const turn = bound.turn - 1;
    if (turn >= cycles.turnCount) return total - 1;
    if ((cycles.cycleCounts[turn] ?? 0) === 0) return cycles.firstCycle[turn]! - 1;
    return flatIndexOf(cycles, { turn, cycle: bound.cycle - 1 });
  }
  return undefined;
}

/** The positions a cycle-precise rule covers now, or undefined when it covers nothing. */
export function resolveCycleRange(
  context: CycleRuleContext,
  rule: CompactionRule,
  imposed: ImposedBounds = {},
): CycleSpan | undefined {
  const bounds = cycleBounds(rule, imposed);
  const fromSide: Side =
    bounds.from !== undefined
      ? { kind: "cycle", bound: bounds.from }
      : imposed.from !== undefined
        ? { kind: "turn", resolution: imposed.from }
        : rule.keep_first === undefined
          ? { kind: "first-message" }
          : { kind: "turn", resolution: convertKeepFirst(rule.keep_first, context.facts) };
  const toSide: Side =
    bounds.to !== undefined
      ? { kind: "cycle", bound: bounds.to }
      : {
          kind: "turn",
          resolution:
            imposed.to ?? convertKeepLast(rule.keep_last ?? DEFAULT_KEEP, context.facts, context.now),
        };
  const start = resolveStart(fromSide, context);
  const endIndex = resolveEnd(toSide, context);
  if (start === undefined || endIndex === undefined) return undefined;
  // Never the conversation's last cycle: its calls may still be waiting for their results.
  const clamped = Math.min(endIndex, totalCycles(context.cycles) - 2);
  if (clamped < 0) return undefined;
  const end = positionOfCycle(context.cycles, clamped);
  return comparePositions(start, end) <= 0 ? { from: start, to: end } : undefined;
}

function overlaps(left: CycleSpan, right: CycleSpan): boolean {
  return comparePositions(left.from, right.to) <= 0 && comparePositions(left.to, right.from) >= 0;
}

function contains(outer: CycleSpan, inner: CycleSpan): boolean {
  return comparePositions(outer.from, inner.from) <= 0 && comparePositions(outer.to, inner.to) >= 0;
}

/** Widens a span over every summary it touches, transitively. */
function extendSpan(summaries: readonly CycleSpan[], span: CycleSpan): CycleSpan {
  let current = span;
  let changed = true;
  while (changed) {
    changed = false;
    for (const summary of summaries) {
      if (overlaps(current, summary) && !contains(current, summary)) {
        current = {
          from: comparePositions(summary.from, current.from) < 0 ? summary.from : current.from,
          to: comparePositions(summary.to, current.to) > 0 ? summary.to : current.to,
        };
        changed = true;
      }
    }
  }
  return current;
}

function spanOfSegment(segment: CompactionSegment): CycleSpan {
  return {
    from: { turn: segment.from, cycle: segment.fromCycle ?? HEAD },
    to: { turn: segment.to, cycle: segment.toCycle ?? TURN_END },
  };
}

/** One piece of a summary: whole turns, or `fromCycle..toCycle` inside one turn. */
type SummaryPiece = { from: number; to: number; fromCycle?: number; toCycle?: number };

/**
 * The pieces of a summary span (see the module comment), as segment ranges: whole turns, or
 * `fromCycle..toCycle` inside one turn.
 */
function splitSummarySpan(cycles: CycleFacts, span: CycleSpan): SummaryPiece[] {
  const lastCycle = (turn: number) => (cycles.cycleCounts[turn] ?? 0) - 1;
  let to = span.to;
  // Ending at the last cycle of a finished turn is ending with the turn.
  if (to.cycle !== TURN_END && to.turn < cycles.turnCount - 1 && to.cycle >= lastCycle(to.turn)) {
    to = { turn: to.turn, cycle: TURN_END };
  }
  const { from } = span;
  if (from.turn === to.turn) {
    if (from.cycle === HEAD && to.cycle === TURN_END) return [{ from: from.turn, to: to.turn }];
    const first = Math.max(from.cycle, 0);
    const last = to.cycle === TURN_END ? lastCycle(to.turn) : to.cycle;
    return [{ from: from.turn, to: to.turn, fromCycle: first, toCycle: last }];
  }
  const pieces: SummaryPiece[] = [];
  if (from.cycle !== HEAD) {
    pieces.push({ from: from.turn, to: from.turn, fromCycle: from.cycle, toCycle: lastCycle(from.turn) });
  }
  const firstWhole = from.cycle === HEAD ? from.turn : from.turn + 1;
  const lastWhole = to.cycle === TURN_END ? to.turn : to.turn - 1;
  if (firstWhole <= lastWhole) pieces.push({ from: firstWhole, to: lastWhole });
  if (to.cycle !== TURN_END) pieces.push({ from: to.turn, to: to.turn, fromCycle: 0, toCycle: to.cycle });
  return pieces;
}

/** One rule of a run, as `planCompaction` hands it over. */
export interface CycleRuleInput {
  readonly rule: CompactionRule;
  readonly ruleIndex: number;
  readonly imposed: ImposedBounds;
  /** The segments planned earlier in the run (their summaries count for overlap). */
  readonly segments: readonly CompactionSegment[];
}

/** The segments of one cycle-precise rule, or why there are none. */
export function planCycleRule(
  context: CycleRuleContext,
  input: CycleRuleInput,
):
  | { kind: "planned"; segments: CompactionSegment[] }
  | Extract<CompactionPlan, { kind: "invalid" | "conflict" }> {
  const { rule, ruleIndex } = input;
  const requested = resolveCycleRange(context, rule, input.imposed);
  if (requested === undefined) return { kind: "planned", segments: [] };
  const policies: Pick<CompactionSegment, "reasoning" | "toolCalls" | "summary"> = {};
  if (rule.reasoning !== undefined) policies.reasoning = rule.reasoning;
  if (rule.tool_calls !== undefined) policies.toolCalls = toolCallsPolicyFor(rule.tool_calls);
  if (rule.summary !== undefined) policies.summary = rule.summary;
  const requestedTurns = { from: requested.from.turn, to: requested.to.turn };
  if (rule.summary === undefined) {
    const segment: CompactionSegment = {
      ruleIndex,
      from: requested.from.turn,
      to: requested.to.turn,
      ...(requested.from.cycle === HEAD ? {} : { fromCycle: requested.from.cycle }),
      toCycle: requested.to.cycle,
      requested: requestedTurns,
      ...policies,
    };
    return { kind: "planned", segments: [segment] };
  }
  const summaries: SummarySpan[] = [
    ...context.summaries,
    ...input.segments
      .filter((segment) => segment.summary !== undefined)
      .map((segment) => ({ ...spanOfSegment(segment), compactionId: `planned:${segment.ruleIndex}` })),
  ];
  let span = requested;
  let pieces: SummaryPiece[];
  if (context.supplied) {
    const checked = checkSuppliedSpan(context.cycles, summaries, requested);
    if (checked.kind !== "planned") return checked;
    pieces = [checked.piece];
  } else {
    span = extendSpan(summaries, requested);
    pieces = splitSummarySpan(context.cycles, span);
  }
  return {
    kind: "planned",
    segments: pieces.map((piece) => ({ ruleIndex, ...piece, requested: requestedTurns, ...policies })),
  };
}

/**
 * A supplied summary over `span` (its text is given, so it is never widened or split): a conflict
 * when it would split a summary in force; refused when it would remove the user message of a turn
 * that goes on after it (it starts before a turn's head and ends inside that turn); else its one
 * range. Unlike a derived summary, a range from a cycle through whole later turns stays one event
 * (the text stands where the cycles were, the later turns go with it).
 */
function checkSuppliedSpan(
  cycles: CycleFacts,
  summaries: readonly SummarySpan[],
  span: CycleSpan,
): { kind: "planned"; piece: SummaryPiece } | Extract<CompactionPlan, { kind: "invalid" | "conflict" }> {
  const split = summaries.filter((summary) => overlaps(span, summary) && !contains(span, summary));
  if (split.length > 0) {
    const named = split.map((summary) => describeSpan(summary)).join("; ");
    const plural = split.length === 1 ? "the existing summary of" : "existing summaries of";
    return {
      kind: "conflict",
      message:
        `summary of ${describeSpan(span)} partially overlaps ${plural} ${named}; ` +
        "a supplied summary must cover an existing summary entirely or leave it alone",
      conflicts: split.map((summary) => ({
        from: summary.from.turn,
        to: summary.to.turn,
        compactionId: summary.compactionId,
      })),
    };
  }
  const pieces = splitSummarySpan(cycles, span);
  if (pieces.length === 1) return { kind: "planned", piece: pieces[0]! };
  const last = pieces.at(-1)!;
  if (last.toCycle !== undefined) {
    return {
      kind: "invalid",
      message:
        `a summary of ${describeSpan(span)} would remove the user message of turn ${last.from + 1}, ` +
        `which goes on after it; end the range at a turn, or start it inside turn ${last.from + 1}`,
    };
  }
  // From a cycle through whole later turns: one range, ending at the last turn's last cycle.
  const first = pieces[0]!;
  const lastCycle = (cycles.cycleCounts[last.to] ?? 0) - 1;
  if (lastCycle < 0) {
    return {
      kind: "invalid",
      message: `a summary of ${describeSpan(span)} would end at turn ${last.to + 1}, which has no reply yet`,
    };
  }
  return {
    kind: "planned",
    piece: { from: first.from, to: last.to, fromCycle: first.fromCycle!, toCycle: lastCycle },
  };
}

/**
 * Checks a summary whose text is given (the review's proposals, the `compact` tool) over `span`
 * against the conversation as it stands: its one range, or why it cannot stand (see
 * `checkSuppliedSpan`).
 */
export function checkSuppliedCycleSummary(
  events: readonly ConversationEvent[],
  span: CycleSpan,
): { kind: "planned"; piece: SummaryPiece } | Extract<CompactionPlan, { kind: "invalid" | "conflict" }> {
  return checkSuppliedSpan(describeCycles(events), summarySpansOf(events), span);
}

/**
 * A summary whose text is agreed in a review over `span`: grown over every summary it touches
 * (positions, transitively, as a derived summary is, so the text can be written for the final
 * range), then its one range (see `checkSuppliedSpan`).
 */
export function growSuppliedCycleSummary(
  events: readonly ConversationEvent[],
  span: CycleSpan,
): { kind: "planned"; piece: SummaryPiece } | Extract<CompactionPlan, { kind: "invalid" | "conflict" }> {
  const summaries = summarySpansOf(events);
  return checkSuppliedSpan(describeCycles(events), summaries, extendSpan(summaries, span));
}
