/**
 * The compaction timeline: jp's timeline tests in compact_tests.rs (reference §10.3), word for
 * word: a single kept turn is `Kept turn 1.`, every other range `turns A..B`.
 */
import { describe, expect, it } from "vitest";
import type { CompactionSegment } from "../../src/compaction/core/plan.js";
import {
  existingTimelineSegments,
  formatTimeline,
  plannedSegmentLabel,
  type TimelineSegment,
} from "../../src/compaction/core/timeline.js";
import { createEventBuilder } from "../helpers/builders.js";

const fresh = (from: number, to: number, label?: string): TimelineSegment => ({
  from,
  to,
  existing: false,
  ...(label ? { label } : {}),
});

describe("formatTimeline", () => {
  // jp's eight timeline tests, with jp's inputs (0-based segments, `last_turn` = turnCount - 1)
  // and jp's expected lines, word for word.
  it("keeps the first and trailing turns (timeline_keeps_genesis_and_trailing_turns)", () => {
    expect(formatTimeline([fresh(1, 7)], { turnCount: 9, dryRun: false })).toEqual([
      "Kept turn 1.",
      "Compacted turns 2..8 (7 total).",
      "Kept turn 9.",
    ]);
  });

  it("prints the gaps between compactions (timeline_interleaves_gaps_between_compactions)", () => {
    expect(formatTimeline([fresh(1, 3), fresh(6, 8)], { turnCount: 11, dryRun: false })).toEqual([
      "Kept turn 1.",
      "Compacted turns 2..4 (3 total).",
      "Kept turns 5..6.",
      "Compacted turns 7..9 (3 total).",
      "Kept turns 10..11.",
    ]);
    expect(formatTimeline([fresh(0, 2), fresh(5, 7)], { turnCount: 11, dryRun: false })).toEqual([
      "Compacted turns 1..3 (3 total).",
      "Kept turns 4..5.",
      "Compacted turns 6..8 (3 total).",
      "Kept turns 9..11.",
    ]);
  });

  it("sorts by start turn (timeline_sorts_by_start_turn_regardless_of_generation_order)", () => {
    expect(formatTimeline([fresh(6, 8), fresh(1, 3)], { turnCount: 9, dryRun: false })).toEqual([
      "Kept turn 1.",
      "Compacted turns 2..4 (3 total).",
      "Kept turns 5..6.",
      "Compacted turns 7..9 (3 total).",
    ]);
  });

  it("prints overlapping ranges without a gap line (timeline_collapses_overlapping_ranges)", () => {
    expect(formatTimeline([fresh(1, 5), fresh(3, 8)], { turnCount: 11, dryRun: false })).toEqual([
      "Kept turn 1.",
      "Compacted turns 2..6 (5 total).",
      "Compacted turns 4..9 (6 total).",
      "Kept turns 10..11.",
    ]);
  });

  it("adds the label (timeline_labels_describe_compaction_type)", () => {
    expect(formatTimeline([fresh(1, 3, "reasoning + tools")], { turnCount: 5, dryRun: false })).toEqual([
      "Kept turn 1.",
      "Compacted turns 2..4 (3 total, reasoning + tools).",
      "Kept turn 5.",
    ]);
  });

  it("uses conditional verbs under dry-run (timeline_dry_run_uses_conditional_verbs)", () => {
    expect(formatTimeline([fresh(1, 3)], { turnCount: 5, dryRun: true })).toEqual([
      "Would have kept turn 1.",
      "Would have compacted turns 2..4 (3 total).",
      "Would have kept turn 5.",
    ]);
    // A compacted single turn is still a range, as jp writes it.
    expect(formatTimeline([fresh(1, 1)], { turnCount: 4, dryRun: true })).toEqual([
      "Would have kept turn 1.",
      "Would have compacted turns 2..2 (1 total).",
      "Would have kept turns 3..4.",
    ]);
  });

  it("shows existing compactions as already compacted (timeline_reports_pre_existing_compactions_not_as_kept)", () => {
    const build = createEventBuilder();
    const events = [...build.turns(10), build.compaction({ from: 1, to: 5, reasoning: true })];
    const segments = [...existingTimelineSegments(events), fresh(6, 8)];
    expect(formatTimeline(segments, { turnCount: 10, dryRun: false })).toEqual([
      "Kept turn 1.",
      "Compacted turns 2..6 (5 total, already compacted).",
      "Compacted turns 7..9 (3 total).",
      "Kept turn 10.",
    ]);
  });

  it("keeps a compaction already in force factual under dry-run (timeline_dry_run_keeps_pre_existing_compactions_factual)", () => {
    const build = createEventBuilder();
    const events = [...build.turns(10), build.compaction({ from: 1, to: 5 })];
    const segments = [...existingTimelineSegments(events), fresh(6, 8)];
    expect(formatTimeline(segments, { turnCount: 10, dryRun: true })).toEqual([
      "Would have kept turn 1.",
      "Compacted turns 2..6 (5 total, already compacted).",
      "Would have compacted turns 7..9 (3 total).",
      "Would have kept turn 10.",
    ]);
  });

  it("lists a compaction in force that a new one covers whole only on the new line, in a dry run", () => {
    const existing: TimelineSegment = { from: 1, to: 2, existing: true, label: "already compacted" };
    const covering: TimelineSegment = { from: 1, to: 8, existing: false, label: "summary" };
    expect(formatTimeline([existing, covering], { turnCount: 10, dryRun: true })).toEqual([
      "Would have kept turn 1.",
      "Would have compacted turns 2..9 (8 total, summary, over 1 compaction in force).",
      "Would have kept turn 10.",
    ]);
    // Not covered whole: both lines stay.
    const partial: TimelineSegment = { from: 2, to: 8, existing: false, label: "summary" };
    expect(formatTimeline([existing, partial], { turnCount: 10, dryRun: true })).toHaveLength(4);
  });

  it("names a kept part of one turn by its cycles", () => {
    const segment: TimelineSegment = { from: 0, to: 2, toCycle: 4, existing: false };
    expect(formatTimeline([segment], { turnCount: 3, dryRun: false, cycleCounts: [1, 1, 9] }).at(-1)).toBe(
      "Kept turn 3, from cycle 6.",
    );
  });

  it("puts existing segments first on equal starts", () => {
    const existing: TimelineSegment = { from: 0, to: 1, existing: true, label: "already compacted" };
    expect(formatTimeline([fresh(0, 2), existing], { turnCount: 3, dryRun: false })[0]).toContain(
      "already compacted",
    );
  });
});

describe("plannedSegmentLabel", () => {
  const base: CompactionSegment = { ruleIndex: 0, from: 0, to: 1, requested: { from: 0, to: 1 } };

  it("reflects the mechanical policies (segment_label_reflects_mechanical_policies)", () => {
    expect(
      plannedSegmentLabel({
        ...base,
        reasoning: "strip",
        toolCalls: { policy: "strip", request: true, response: true },
      }),
    ).toBe("reasoning + tools");
    expect(plannedSegmentLabel(base)).toBeUndefined();
  });

  it("labels summaries with the copy's path when there is one", () => {
    expect(plannedSegmentLabel({ ...base, summary: {} })).toBe("summary");
    expect(plannedSegmentLabel({ ...base, summary: {} }, "/tmp/x-summary-0-1.md")).toBe(
      "summary: /tmp/x-summary-0-1.md",
    );
  });
});
