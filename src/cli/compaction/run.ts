/**
 * One `compact` run over a snapshot of a conversation (docs/compaction-model.md, "One compact run", steps 5–8), without the
 * store: plan the rules, preview the plan (`--dry-run`: ranges, labels, tokens before and after),
 * and turn what the compaction pipeline applied (src/compaction/apply.ts: summaries, events,
 * one append under the lock) into the timeline and the summary checks that `render.ts` prints.
 *
 * Every event written has `source: "user"`, the `--note`, and for a summary `source: derived` with
 * the `recipe` (the model id or `builtin/digest`).
 */
import type { NextRequestContext } from "../../compaction/core/advisor/next-request.js";
import type { Keeping } from "../../compaction/core/keeping.js";
import { type CompactionPlan, type CompactionSegment, planCompaction } from "../../compaction/core/plan.js";
import { previewCompactions, savesAlmostNothing } from "../../compaction/core/preview.js";
import { needsSummary, realizePlan } from "../../compaction/core/realize.js";
import type { CompactionRule } from "../../compaction/core/rules.js";
import { layoutCycles } from "../../core/conversation/cycles.js";
import type { Compaction, ConversationEvent } from "../../core/conversation/events.js";
import type { TokenCounter } from "../../core/conversation/tokens.js";
import { countTurns, groupTurns } from "../../core/conversation/turns.js";
import type { BoundRange } from "../../core/position/bound.js";
import {
  existingTimelineSegments,
  formatTimeline,
  plannedSegmentLabel,
  plannedTimelineSegment,
  type TimelineSegment,
} from "../../compaction/core/timeline.js";
import type { SummaryLosses } from "../../compaction/core/summary/check.js";
import { DIGEST_RECIPE, digestTurns } from "../../compaction/core/summary/digest.js";
import { CxcError } from "../../errors.js";
import type { ApplyOutcome } from "../../compaction/apply.js";
import { applyRange } from "./options.js";

/** The inputs of a run. */
export interface CompactionRunOptions {
  readonly rules: readonly CompactionRule[];
  /** The range the range flags give every rule. */
  readonly range: BoundRange;
  readonly note?: string;
  /** RFC 3339 time of the run. */
  readonly now: string;
  /** The facts block's budget and working directory, the keep rules (keeping.ts). */
  readonly keeping?: Keeping;
}

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
      readonly context?: { readonly before: NextRequestContext; readonly after: NextRequestContext };
    };

/** A plan that either compacts something or selected nothing. */
export type RunnablePlan = Extract<CompactionPlan, { kind: "planned" | "nothing-to-compact" }>;

/** Plans the run; usage problems and conflicts become errors, "nothing" stays a result. */
export function planRun(events: readonly ConversationEvent[], options: CompactionRunOptions): RunnablePlan {
  if (countTurns(events) === 0) return { kind: "nothing-to-compact", message: "Nothing to compact." };
  const plan = planCompaction(events, {
    rules: applyRange(options.rules, options.range),
    now: options.now,
    source: "user",
    ...(options.note === undefined ? {} : { note: options.note }),
    ...(options.keeping === undefined ? {} : { keeping: options.keeping }),
  });
  if (plan.kind === "invalid") throw new CxcError("invalid-range", plan.message);
  if (plan.kind === "conflict") throw new CxcError("compaction-conflict", plan.message);
  return plan;
}

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
 * The result of a real run, from what the pipeline applied (src/compaction/apply.ts); with
 * a token counter, each compaction's saving is judged on the same preview the dry run shows.
 */
export function appliedResult(outcome: ApplyOutcome, countTokens?: TokenCounter): CompactionRunResult {
  if (outcome.kind === "nothing") return { kind: "nothing", message: outcome.message };
  const steps =
    countTokens === undefined
      ? undefined
      : previewCompactions(
          outcome.events,
          outcome.segments.map((segment) => segment.compaction),
          countTokens,
        ).steps;
  const segments: RunSegment[] = outcome.segments.map(({ segment, compaction, summary }, index) => ({
    segment,
    label: plannedSegmentLabel(segment, summary?.path),
    compaction,
    ...(steps === undefined ? {} : { savesLittle: savesAlmostNothing(steps[index]!) }),
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
  return { kind: "planned", dryRun: false, segments, ...timelineOf(outcome.events, segments, false) };
}

const EMPTY_LOSSES: SummaryLosses = { items: [], checked: 0 };

/**
 * The dry-run preview (compaction/core/preview.ts): every planned segment with its label and the
 * estimated tokens of the turns it covers before and after it. A summary's size is estimated with
 * the digest (no model is called).
 */
export function previewPlan(
  events: readonly ConversationEvent[],
  plan: Extract<CompactionPlan, { kind: "planned" }>,
  countTokens: TokenCounter,
): CompactionRunResult {
  const rawTurns = groupTurns(events);
  const estimates = plan.segments.map((segment, index) =>
    needsSummary(plan, index)
      ? { summary: digestTurns(rawTurns, segment), source: "derived" as const, recipe: DIGEST_RECIPE }
      : undefined,
  );
  let counter = 0;
  const placeholders = realizePlan(plan, estimates, {
    newEventId: () => `dry-run:${counter++}`,
    // Far in the future, so a placeholder outranks every compaction already there.
    now: () => "9999-12-31T23:59:59.999999999Z",
  });
  const preview = previewCompactions(events, placeholders, countTokens);
  const segments: RunSegment[] = plan.segments.map((segment, position) => ({
    segment,
    label: plannedSegmentLabel(segment),
    tokens: preview.steps[position]!.covered,
    savesLittle: savesAlmostNothing(preview.steps[position]!),
  }));
  return {
    kind: "planned",
    dryRun: true,
    segments,
    totals: preview.totals,
    previewed: placeholders,
    ...timelineOf(events, segments, true),
  };
}
