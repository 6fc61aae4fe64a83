/**
 * The timeline printed after `compact` and under `--dry-run` (docs/compaction-model.md, "The timeline"). Pure.
 *
 *   Kept turn 1.
 *   Compacted turns 2..6 (5 total, already compacted).
 *   Would have compacted turns 7..9 (3 total, reasoning + tools).
 *   Would have kept turn 10.
 *
 * Segments are the compactions already in force (labelled `already compacted`, always told with
 * the factual verb) and the new ones. Sorted by start, existing first on ties; overlapping
 * segments each get their own line and no gap line between them. Numbers are 1-based.
 */
import { activeCompactions } from "./compactions.js";
import type { ConversationEvent } from "./events.js";
import type { CompactionSegment } from "./plan-compaction.js";
import { describePolicies } from "./rules.js";

/** One compacted range of the timeline (0-based turns). */
export interface TimelineSegment {
  from: number;
  to: number;
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
    label: EXISTING_LABEL,
    existing: true,
  }));
}

/**
 * A new segment's label: `summary: <path>` for a summary whose text was copied to `summaryPath`,
 * `summary` without one, otherwise the policy label (or none).
 */
export function plannedSegmentLabel(segment: CompactionSegment, summaryPath?: string): string | undefined {
  if (segment.summary !== undefined) return summaryPath === undefined ? "summary" : `summary: ${summaryPath}`;
  return describePolicies({ reasoning: segment.reasoning, tool_calls: segment.toolCalls });
}

function keptLine(from: number, to: number, dryRun: boolean): string {
  const verb = dryRun ? "Would have kept" : "Kept";
  return from === to ? `${verb} turn ${from + 1}.` : `${verb} turns ${from + 1}..${to + 1}.`;
}

/** The timeline lines for `turnCount` turns (see the module comment). */
export function formatTimeline(
  segments: readonly TimelineSegment[],
  options: { turnCount: number; dryRun: boolean },
): string[] {
  const lastTurn = Math.max(options.turnCount - 1, 0);
  const ordered = segments
    .map((segment, order) => ({ segment, order }))
    .sort(
      (left, right) =>
        left.segment.from - right.segment.from ||
        Number(right.segment.existing) - Number(left.segment.existing) ||
        left.order - right.order,
    )
    .map((entry) => entry.segment);
  const lines: string[] = [];
  let covered: number | undefined;
  for (const segment of ordered) {
    const next = covered === undefined ? 0 : covered + 1;
    if (segment.from > next) lines.push(keptLine(next, segment.from - 1, options.dryRun));
    const verb = options.dryRun && !segment.existing ? "Would have compacted" : "Compacted";
    const label = segment.label === undefined ? "" : `, ${segment.label}`;
    const total = segment.to - segment.from + 1;
    lines.push(`${verb} turns ${segment.from + 1}..${segment.to + 1} (${total} total${label}).`);
    covered = covered === undefined ? segment.to : Math.max(covered, segment.to);
  }
  const tail = covered === undefined ? 0 : covered + 1;
  if (tail <= lastTurn) lines.push(keptLine(tail, lastTurn, options.dryRun));
  return lines;
}
