/**
 * Where a summary may stand among the summaries in force (docs/compaction-model.md,
 * "Summary-overlap extension"), in jp's shape, for every caller: the planner, the `compact` tool
 * and the review. Pure.
 *
 * A summary that partially overlaps another would leave half of the other's turns shown twice or
 * not at all. A *derived* summary (cxc writes its text from the raw turns) therefore grows over
 * every summary it touches, transitively; a *supplied* one (its text is given, so it covers only
 * the turns it names) is refused, and the refusal names the range it would need. Positions are
 * compared as cycle positions, so whole-turn and cycle-precise summaries follow one rule.
 *
 * A summary never removes the user message of a turn that goes on after it, so a derived summary's
 * range is cut into pieces (`summaryPieces`): the rest of a turn it starts inside, the whole turns
 * in between, and the start of a turn it ends inside. A supplied summary stays one piece
 * (`suppliedPiece`), or is refused.
 */
import { activeCompactions } from "../../core/conversation/compactions.js";
import {
  type CycleFacts,
  type CycleRange,
  type CycleSpan,
  compactionPolicies,
  compactionSpan,
  comparePositions,
  HEAD,
  TURN_END,
} from "../../core/conversation/cycles.js";
import type { ConversationEvent } from "../../core/conversation/events.js";
import { describeSpan } from "../../core/present/labels.js";

/** A summary in force, or one planned earlier in the same run, as the positions it covers. */
export interface SummarySpan extends CycleSpan {
  readonly compactionId: string;
}

/** The summaries in force in `events`, as spans. */
export function summarySpansOf(events: readonly ConversationEvent[]): SummarySpan[] {
  return activeCompactions(events)
    .map((entry) => entry.compaction)
    .filter((compaction) => compactionPolicies(compaction).summary !== undefined)
    .map((compaction) => ({ ...compactionSpan(compaction), compactionId: compaction.id }));
}

function overlaps(left: CycleSpan, right: CycleSpan): boolean {
  return comparePositions(left.from, right.to) <= 0 && comparePositions(left.to, right.from) >= 0;
}

function contains(outer: CycleSpan, inner: CycleSpan): boolean {
  return comparePositions(outer.from, inner.from) <= 0 && comparePositions(outer.to, inner.to) >= 0;
}

/** True when `summary` is partly inside `span` and partly outside it. */
function splits(span: CycleSpan, summary: CycleSpan): boolean {
  return overlaps(span, summary) && !contains(span, summary);
}

/** `span` widened over every summary it splits, transitively. */
function grow(span: CycleSpan, summaries: readonly CycleSpan[]): CycleSpan {
  let current = span;
  let changed = true;
  while (changed) {
    changed = false;
    for (const summary of summaries) {
      if (!splits(current, summary)) continue;
      current = {
        from: comparePositions(summary.from, current.from) < 0 ? summary.from : current.from,
        to: comparePositions(summary.to, current.to) > 0 ? summary.to : current.to,
      };
      changed = true;
    }
  }
  return current;
}

/** A summary conflict: the summaries it would split, and the range that would cover them. */
export interface SummaryConflict {
  readonly message: string;
  /** The summaries involved (0-based turns). */
  readonly conflicts: readonly { from: number; to: number; compactionId: string }[];
  /** The range the summary would need to cover them entirely. */
  readonly needed: CycleSpan;
}

/** How a summary over a span fits the summaries around it. */
export type SummaryFit =
  | {
      readonly kind: "fits";
      readonly span: CycleSpan;
      /** The summaries it grew over (none for a supplied summary). */
      readonly grownOver: readonly SummarySpan[];
    }
  | ({ readonly kind: "conflict" } & SummaryConflict);

function isWholeTurns(span: CycleSpan): boolean {
  return span.from.cycle === HEAD && span.to.cycle === TURN_END;
}

/** `the existing summary of turns 1..5`, `existing summaries of turns 1..4, 6..7`, or cycle ranges. */
function describeSplit(split: readonly CycleSpan[]): string {
  const plural = split.length === 1 ? "the existing summary of" : "existing summaries of";
  if (split.every(isWholeTurns)) {
    return `${plural} turns ${split.map((summary) => `${summary.from.turn + 1}..${summary.to.turn + 1}`).join(", ")}`;
  }
  return `${plural} ${split.map(describeSpan).join("; ")}`;
}

/**
 * Fits a summary over `span` among `summaries` (see the module comment): `grow` widens it over the
 * summaries it splits (a derived summary, or the review's agreed one, whose text is written for
 * the final range); `refuse` returns a conflict naming them and the range that would cover them.
 */
export function fitSummary(
  span: CycleSpan,
  summaries: readonly SummarySpan[],
  mode: "grow" | "refuse",
): SummaryFit {
  const grown = grow(span, summaries);
  if (mode === "grow") {
    const grownOver = summaries.filter((summary) => contains(grown, summary) && !contains(span, summary));
    return { kind: "fits", span: grown, grownOver };
  }
  const split = summaries.filter((summary) => splits(span, summary));
  if (split.length === 0) return { kind: "fits", span, grownOver: [] };
  return {
    kind: "conflict",
    message:
      `summary of ${describeSpan(span)} partially overlaps ${describeSplit(split)}; ` +
      `a supplied summary must cover an existing summary entirely or leave it alone (covering it takes ${describeSpan(grown)})`,
    conflicts: split.map((summary) => ({
      from: summary.from.turn,
      to: summary.to.turn,
      compactionId: summary.compactionId,
    })),
    needed: grown,
  };
}

/** One piece of a summary: whole turns, or `fromCycle..toCycle` inside one turn (0-based). */
export type SummaryPiece = CycleRange;

/** Whether the conversation's last turn may still go on (default) or is finished. */
export interface PieceOptions {
  readonly lastTurnFinished?: boolean;
}

/** A span ending at the last cycle of a finished turn ends with that turn. */
function endWithTurn(cycles: CycleFacts, span: CycleSpan, options: PieceOptions): CycleSpan {
  const { to } = span;
  const lastCycle = (cycles.cycleCounts[to.turn] ?? 0) - 1;
  const finished = to.turn < cycles.turnCount - 1 || options.lastTurnFinished === true;
  if (to.cycle !== TURN_END && finished && to.cycle >= lastCycle) {
    return { from: span.from, to: { turn: to.turn, cycle: TURN_END } };
  }
  return span;
}

/** The pieces of a derived summary over `span` (see the module comment). */
export function summaryPieces(
  cycles: CycleFacts,
  span: CycleSpan,
  options: PieceOptions = {},
): SummaryPiece[] {
  const lastCycle = (turn: number) => (cycles.cycleCounts[turn] ?? 0) - 1;
  const { from, to } = endWithTurn(cycles, span, options);
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

/**
 * The one range of a supplied summary over `span` (its text is given, so it is never split): a
 * message when it would remove the user message of a turn that goes on after it (it starts before
 * a turn's head and ends inside that turn). A range from a cycle through whole later turns stays
 * one event, ending at the last turn's last cycle.
 */
export function suppliedPiece(
  cycles: CycleFacts,
  span: CycleSpan,
  options: PieceOptions = {},
): SummaryPiece | { readonly problem: string } {
  const pieces = summaryPieces(cycles, span, options);
  if (pieces.length === 1) return pieces[0]!;
  const last = pieces.at(-1)!;
  if (last.toCycle !== undefined) {
    return {
      problem:
        `a summary of ${describeSpan(span)} would remove the user message of turn ${last.from + 1}, ` +
        `which goes on after it; end the range at a turn, or start it inside turn ${last.from + 1}`,
    };
  }
  const first = pieces[0]!;
  const lastCycle = (cycles.cycleCounts[last.to] ?? 0) - 1;
  if (lastCycle < 0) {
    return {
      problem: `a summary of ${describeSpan(span)} would end at turn ${last.to + 1}, which has no reply yet`,
    };
  }
  return { from: first.from, to: last.to, fromCycle: first.fromCycle!, toCycle: lastCycle };
}
