/**
 * The results of a `compact` run (docs/compaction-model.md, "One compact run", steps 5–8), as
 * `render.ts` prints them: a dry run from its preparation (src/compaction/core/prepare.ts: ranges,
 * labels, tokens before and after), a real run from what the compaction step wrote
 * (src/compaction/compact.ts), each with its timeline and the summary checks.
 *
 * Every event written has `source: "user"`, the `--note`, and for a summary `source: derived` with
 * the `recipe` (the model id or `builtin/digest`).
 */
import type { CompactionReport } from "../../compaction/compact.js";
import type { CompactionCost } from "../../compaction/core/advisor/cache-cost.js";
import type { NextRequestContext } from "../../compaction/core/advisor/next-request.js";
import type { CompactionSegment } from "../../compaction/core/plan.js";
import type { Preparation } from "../../compaction/core/prepare.js";
import { layoutCycles } from "../../core/conversation/cycles.js";
import type { Compaction, ConversationEvent } from "../../core/conversation/events.js";
import { countTurns } from "../../core/conversation/turns.js";
import {
  existingTimelineSegments,
  formatTimeline,
  plannedSegmentLabel,
  plannedTimelineSegment,
  type TimelineSegment,
} from "../../compaction/core/timeline.js";
import type { SummaryLosses } from "../../compaction/core/summary/check.js";

/** One new compaction of a run (0-based turns). */
export interface RunSegment {
  readonly segment: CompactionSegment;
  readonly label: string | undefined;
  /** The event to append (a real run only). */
  readonly compaction?: Compaction;
  readonly summary?: { readonly modelId: string; readonly path?: string; readonly losses: SummaryLosses };
  /** Estimated tokens of the turns it covers, before and after (a dry run only). */
  readonly tokens?: { readonly before: number; readonly after: number };
  /** True when it saves less than 1 % of its turns' tokens (compaction/core/preview.ts). */
  readonly savesLittle?: boolean;
}

/** The outcome of a run. */
export type CompactionRunResult =
  | {
      readonly kind: "nothing";
      readonly message: string;
      /** Why (stderr, and `reason` in JSON): what the rules keep, how many turns there are. */
      readonly reason?: string;
    }
  | {
      readonly kind: "planned";
      readonly dryRun: boolean;
      readonly turnCount: number;
      readonly segments: readonly RunSegment[];
      readonly existing: readonly TimelineSegment[];
      readonly timeline: readonly string[];
      /** Whole projected view before and after (a dry run only). */
      readonly totals?: { readonly before: number; readonly after: number };
      /** The events the dry run previewed (never appended). */
      readonly previewed?: readonly Compaction[];
      /** The context of the next request before and after (a dry run; compaction/core/advisor/next-request.ts). */
      readonly context?: {
        readonly before: NextRequestContext;
        readonly after: NextRequestContext;
        /** What they cost with the prompt cache (compaction/core/advisor/cache-cost.ts). */
        readonly cost?: CompactionCost;
      };
    };

function timelineOf(
  events: readonly ConversationEvent[],
  segments: readonly RunSegment[],
  dryRun: boolean,
): { existing: TimelineSegment[]; timeline: string[]; turnCount: number } {
  const existing = existingTimelineSegments(events);
  const planned = segments.map(({ segment, label }) => plannedTimelineSegment(segment, label));
  const turnCount = countTurns(events);
  const { cycleCounts } = layoutCycles(events);
  return {
    existing,
    timeline: formatTimeline([...existing, ...planned], { turnCount, dryRun, cycleCounts }),
    turnCount,
  };
}

/**
 * The result of a real run, from what the compaction step wrote (src/compaction/compact.ts); each
 * compaction's saving is judged on the preview of the events as written, the dry run's preview.
 */
export function appliedResult(report: CompactionReport): CompactionRunResult {
  if (report.kind === "nothing") {
    return {
      kind: "nothing",
      message: report.message,
      ...(report.reason === undefined ? {} : { reason: report.reason }),
    };
  }
  const steps = report.preview?.savesLittle;
  const segments: RunSegment[] = report.segments.map(({ segment, compaction, summary }, index) => ({
    segment,
    label: plannedSegmentLabel(segment, summary?.path),
    compaction,
    ...(steps === undefined ? {} : { savesLittle: steps[index]! }),
    ...(summary === undefined
      ? {}
      : {
          summary: {
            modelId: summary.summarizer,
            losses: summary.losses ?? EMPTY_LOSSES,
            ...(summary.path === undefined ? {} : { path: summary.path }),
          },
        }),
  }));
  return { kind: "planned", dryRun: false, segments, ...timelineOf(report.events, segments, false) };
}

const EMPTY_LOSSES: SummaryLosses = { items: [], checked: 0 };

/**
 * The dry run (a preparation counted: core/prepare.ts): every planned segment with its label and
 * the estimated tokens of the turns it covers before and after it. A summary's size is estimated
 * with the digest (no model is called).
 */
export function dryRunResult(preparation: Preparation): CompactionRunResult {
  if (preparation.kind !== "planned") {
    return {
      kind: "nothing",
      message: preparation.message,
      ...(preparation.reason === undefined ? {} : { reason: preparation.reason }),
    };
  }
  const preview = preparation.preview!;
  const segments: RunSegment[] = preparation.plan.segments.map((segment, position) => ({
    segment,
    label: plannedSegmentLabel(segment),
    tokens: preview.steps[position]!.covered,
    savesLittle: preview.savesLittle[position]!,
  }));
  return {
    kind: "planned",
    dryRun: true,
    segments,
    totals: preview.totals,
    previewed: preparation.estimated,
    ...timelineOf(preparation.events, segments, true),
  };
}
