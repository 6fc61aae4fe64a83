/**
 * The timeline printed after `compact` and under `--dry-run` (docs/compaction-model.md, "The timeline"). Pure.
 *
 *   Kept turns 1..1.
 *   Compacted turns 2..6 (5 total, already compacted).
 *   Would have compacted turns 7..9 (3 total, reasoning + tools).
 *   Would have kept turns 10..10.
 *
 * Segments are the compactions already in force (labelled `already compacted`, always told with
 * the factual verb) and the new ones. Sorted by start, existing first on ties; overlapping
 * segments each get their own line and no gap line between them. Numbers are 1-based.
 *
 * A segment may start or end at a cycle (docs/decisions/006-tool-cycle-bounds.md):
 *
 *   Compacted turns 1..3, turn 3 to cycle 20 (3 turns, tool responses).
 *   Kept turn 3, from cycle 21.
 */
import { activeCompactions } from "../conversation/compactions.js";
import {
  type CyclePosition,
  type CycleSpan,
  comparePositions,
  HEAD,
  TURN_END,
} from "../conversation/cycles.js";
import type { ConversationEvent } from "../conversation/events.js";
import { describePolicies, describeSizedRange, describeSpan } from "./labels.js";
import type { CompactionSegment } from "../compaction/plan.js";

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
  return `${dryRun ? "Would have kept" : "Kept"} ${describeSpan(span)}.`;
}

function compactedLine(segment: TimelineSegment, dryRun: boolean): string {
  const verb = dryRun && !segment.existing ? "Would have compacted" : "Compacted";
  return `${verb} ${describeSizedRange(segment, segment.label)}.`;
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
  const ordered = segments
    .map((segment, order) => ({ segment, order, span: spanOf(segment) }))
    .sort(
      (left, right) =>
        comparePositions(left.span.from, right.span.from) ||
        Number(right.segment.existing) - Number(left.segment.existing) ||
        left.order - right.order,
    );
  const lines: string[] = [];
  let covered: CyclePosition | undefined;
  for (const { segment, span } of ordered) {
    const next = covered === undefined ? { turn: 0, cycle: HEAD } : after(covered, options.cycleCounts);
    const gapEnd = before(span.from);
    if (comparePositions(next, gapEnd) <= 0) lines.push(keptLine({ from: next, to: gapEnd }, options.dryRun));
    lines.push(compactedLine(segment, options.dryRun));
    covered = covered === undefined || comparePositions(span.to, covered) > 0 ? span.to : covered;
  }
  const tail = covered === undefined ? { turn: 0, cycle: HEAD } : after(covered, options.cycleCounts);
  const end = { turn: lastTurn, cycle: TURN_END };
  if (comparePositions(tail, end) <= 0) lines.push(keptLine({ from: tail, to: end }, options.dryRun));
  return lines;
}
