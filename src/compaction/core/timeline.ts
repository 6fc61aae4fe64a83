/**
 * The timeline printed after `compact` and under `--dry-run` (docs/compaction-model.md, "The timeline"). Pure.
 *
 *   Would have kept turn 1.
 *   Compacted turns 2..6 (5 total, already compacted).
 *   Would have compacted turns 7..9 (3 total, reasoning + tools).
 *   Would have kept turns 10..11.
 *
 * Segments are the compactions already in force (labelled `already compacted`) and the new ones.
 * A dry run says the new lines and the kept turns in the conditional; a compaction already in
 * force is a fact and stays `Compacted` (jp's timeline_dry_run_keeps_pre_existing_compactions_factual).
 * It lists a compaction in force that a new one covers whole only as `over N compactions in force`
 * on the new line (cxc's: jp lists such a range twice). Sorted by start, existing first on ties; overlapping
 * segments each get their own line and no gap line between them. Numbers are 1-based. A kept gap
 * of one whole turn is said as jp says it, `Kept turn 1.` (jp's timeline tests in
 * compact_tests.rs); every other range is `turns A..B`, one turn too (`Compacted turns 3..3`).
 *
 * A segment may start or end at a cycle (docs/decisions/006-tool-cycle-bounds.md):
 *
 *   Compacted turns 1..3, turn 3 to cycle 20 (3 turns, tool responses).
 *   Kept turn 3, from cycle 21.
 */
import { activeCompactions } from "../../core/conversation/compactions.js";
import {
  type CyclePosition,
  type CycleSpan,
  comparePositions,
  HEAD,
  TURN_END,
} from "../../core/conversation/cycles.js";
import type { ConversationEvent } from "../../core/conversation/events.js";
import {
  describePolicies,
  describeSizedRange,
  describeSpan,
  formatCount,
} from "../../core/present/labels.js";
import type { CompactionSegment } from "./plan.js";

/** One compacted range of the timeline (0-based turns). */
export interface TimelineSegment {
  from: number;
  to: number;
  /** First cycle of `from` (absent: from its start). */
  fromCycle?: number;
  /** Last cycle of `to` (absent: to its end). */
  toCycle?: number;
  label?: string;
  /** True for a compaction that was already in the conversation. */
  existing: boolean;
}

/** The label of the compactions already in force. */
export const EXISTING_LABEL = "already compacted";

/** The compactions in force as timeline segments. */
export function existingTimelineSegments(events: readonly ConversationEvent[]): TimelineSegment[] {
  return activeCompactions(events).map(({ compaction }) => ({
    from: compaction.from_turn,
    to: compaction.to_turn,
    ...(compaction.cycles?.from === undefined ? {} : { fromCycle: compaction.cycles.from }),
    ...(compaction.cycles === undefined ? {} : { toCycle: compaction.cycles.to }),
    label: EXISTING_LABEL,
    existing: true,
  }));
}

/** The timeline segment of a planned segment (cycle bounds included). */
export function plannedTimelineSegment(segment: CompactionSegment, label?: string): TimelineSegment {
  return {
    from: segment.from,
    to: segment.to,
    ...(segment.fromCycle === undefined ? {} : { fromCycle: segment.fromCycle }),
    ...(segment.toCycle === undefined ? {} : { toCycle: segment.toCycle }),
    existing: false,
    ...(label === undefined ? {} : { label }),
  };
}

/**
 * A new segment's label: `summary: <path>` for a summary whose text was copied to `summaryPath`,
 * `summary` without one, otherwise the policy label (or none).
 */
export function plannedSegmentLabel(segment: CompactionSegment, summaryPath?: string): string | undefined {
  if (segment.summary !== undefined) return summaryPath === undefined ? "summary" : `summary: ${summaryPath}`;
  return describePolicies({ reasoning: segment.reasoning, tool_calls: segment.toolCalls });
}

function spanOf(segment: TimelineSegment): CycleSpan {
  return {
    from: { turn: segment.from, cycle: segment.fromCycle ?? HEAD },
    to: { turn: segment.to, cycle: segment.toCycle ?? TURN_END },
  };
}

/** The first position after `end`: the next cycle, or the next turn's head. */
function after(end: CyclePosition, cycleCounts: readonly number[] | undefined): CyclePosition {
  if (end.cycle === TURN_END) return { turn: end.turn + 1, cycle: HEAD };
  const count = cycleCounts?.[end.turn];
  if (count !== undefined && end.cycle + 1 >= count) return { turn: end.turn + 1, cycle: HEAD };
  return { turn: end.turn, cycle: end.cycle + 1 };
}

/**
 * The last position before `start` worth naming: the previous turn's end when `start` is a head
 * or the first cycle (a segment from cycle 1 of a turn leaves only that turn's user message, which
 * its own line implies), else the previous cycle.
 */
function before(start: CyclePosition): CyclePosition {
  if (start.cycle <= 0) return { turn: start.turn - 1, cycle: TURN_END };
  return { turn: start.turn, cycle: start.cycle - 1 };
}

function keptLine(span: CycleSpan, dryRun: boolean): string {
  const { from, to } = span;
  const oneWholeTurn = from.turn === to.turn && from.cycle === HEAD && to.cycle === TURN_END;
  const range = oneWholeTurn ? `turn ${from.turn + 1}` : describeSpan(span);
  return `${dryRun ? "Would have kept" : "Kept"} ${range}.`;
}

function compactedLine(segment: TimelineSegment, dryRun: boolean, over = 0): string {
  // A compaction already in force is a fact that predates this run: it stays "Compacted" in a
  // dry run too (jp's timeline_dry_run_keeps_pre_existing_compactions_factual).
  const verb = dryRun && !segment.existing ? "Would have compacted" : "Compacted";
  const inForce = over === 0 ? undefined : `over ${formatCount(over, "compaction")} in force`;
  const label = [segment.label, inForce].filter((part) => part !== undefined).join(", ");
  return `${verb} ${describeSizedRange(segment, label === "" ? undefined : label)}.`;
}

function contains(outer: CycleSpan, inner: CycleSpan): boolean {
  return comparePositions(outer.from, inner.from) <= 0 && comparePositions(inner.to, outer.to) <= 0;
}

/**
 * A dry run lists a range once: a compaction in force that a new one covers whole is not listed
 * again, the new line says how many it stands over.
 */
function foldCovered(segments: readonly TimelineSegment[]): { segment: TimelineSegment; over: number }[] {
  const folded = new Map<TimelineSegment, number>();
  const kept: TimelineSegment[] = [];
  for (const segment of segments) {
    if (!segment.existing) {
      kept.push(segment);
      continue;
    }
    const span = spanOf(segment);
    const cover = segments.find((other) => !other.existing && contains(spanOf(other), span));
    if (cover === undefined) kept.push(segment);
    else folded.set(cover, (folded.get(cover) ?? 0) + 1);
  }
  return kept.map((segment) => ({ segment, over: folded.get(segment) ?? 0 }));
}

/**
 * The timeline lines for `turnCount` turns (see the module comment). `cycleCounts` (cycles per
 * turn) lets a gap after a segment that ends at a turn's last cycle start at the next turn.
 */
export function formatTimeline(
  segments: readonly TimelineSegment[],
  options: { turnCount: number; dryRun: boolean; cycleCounts?: readonly number[] },
): string[] {
  const lastTurn = Math.max(options.turnCount - 1, 0);
  const listed = options.dryRun ? foldCovered(segments) : segments.map((segment) => ({ segment, over: 0 }));
  const ordered = listed
    .map(({ segment, over }, order) => ({ segment, over, order, span: spanOf(segment) }))
    .sort(
      (left, right) =>
        comparePositions(left.span.from, right.span.from) ||
        Number(right.segment.existing) - Number(left.segment.existing) ||
        left.order - right.order,
    );
  const lines: string[] = [];
  let covered: CyclePosition | undefined;
  for (const { segment, over, span } of ordered) {
    const next = covered === undefined ? { turn: 0, cycle: HEAD } : after(covered, options.cycleCounts);
    const gapEnd = before(span.from);
    if (comparePositions(next, gapEnd) <= 0) lines.push(keptLine({ from: next, to: gapEnd }, options.dryRun));
    lines.push(compactedLine(segment, options.dryRun, over));
    covered = covered === undefined || comparePositions(span.to, covered) > 0 ? span.to : covered;
  }
  const tail = covered === undefined ? { turn: 0, cycle: HEAD } : after(covered, options.cycleCounts);
  const end = { turn: lastTurn, cycle: TURN_END };
  if (comparePositions(tail, end) <= 0) lines.push(keptLine({ from: tail, to: end }, options.dryRun));
  return lines;
}
