/**
 * The compaction pipeline's one door: a compaction plan (compaction/core/plan.ts) becomes stored
 * `compaction` events here, for every caller — `compact`, `fork -k`, `q -k`, automatic compaction,
 * `compact --continue` (an agreed review) and the draft of `compact --interactive`. See
 * docs/decisions/005-one-compaction-pipeline.md.
 *
 * 1. Plan against the conversation as the target holds it (under its lock, for a stored one).
 * 2. Summaries: each segment with a summary to write is written by summaries.ts (the one
 *    summarizer rule, the context-window rule, the fallback setting).
 * 3. Events: compaction/core/realize.ts, with core's one constructor; the caller's metadata may
 *    be computed from the preview of the events (automatic compaction records its sizes).
 * 4. Storage: one `append` on the target, so a failure leaves the conversation as it was.
 *
 * A target is a conversation held under its lock (`lockedTarget`), or events being assembled
 * elsewhere: a fork before it is created, the events a turn hook hands to the turn loop, a review's
 * draft that is never stored. The `compact` tool's plans have no summary to write: it realizes them
 * in core and the turn loop stores them with the tool's response.
 */
import type { CompactionPlan, CompactionSegment, NothingWhy, PlannedCompaction } from "./core/plan.js";
import { withoutDeferral } from "./core/event.js";
import { type CompactionPreview, previewCompactions } from "./core/preview.js";
import { needsSummary, realizePlan } from "./core/realize.js";
import type { Compaction, ConversationEvent, SummaryPolicy } from "../core/conversation/events.js";
import type { TokenCounter } from "../core/conversation/tokens.js";
import { CxcError } from "../errors.js";
import type { LockedConversation } from "../store/index.js";
import { type MadeSummary, makeSummary, noticesOnce, type SummaryEnvironment } from "./summaries.js";

export type { MadeSummary, PipelineReport, SummaryEnvironment, SummaryProgress } from "./summaries.js";

/** Where applied compactions go (see the module comment). */
export interface CompactionTarget {
  /** The conversation as it stands: the plan is made against these events. */
  readonly events: readonly ConversationEvent[];
  /** Problems the load of the events reported (a torn last line), for the caller to show. */
  readonly warnings?: readonly string[];
  /** The conversation's metadata (where it came from: the working directory of facts blocks). */
  readonly meta?: Readonly<Record<string, unknown>>;
  /** Stores the compactions of one application, all at once. */
  append(compactions: readonly Compaction[]): void;
}

/** A conversation held under its lock as a target. */
export function lockedTarget(conversation: LockedConversation): CompactionTarget {
  const loaded = conversation.load();
  return {
    events: loaded.events,
    warnings: loaded.warnings,
    meta: loaded.meta,
    append: (compactions) => conversation.append(compactions),
  };
}

/** Events assembled elsewhere as a target; what was applied is in `applied`. */
export function collectingTarget(
  events: readonly ConversationEvent[],
  meta?: Readonly<Record<string, unknown>>,
): CompactionTarget & {
  readonly applied: Compaction[];
} {
  const applied: Compaction[] = [];
  return {
    events,
    applied,
    ...(meta === undefined ? {} : { meta }),
    append: (compactions) => applied.push(...compactions),
  };
}

/** A plan, or the reason there is nothing to do. */
export type PlanOutcome =
  | PlannedCompaction
  | {
      readonly kind: "nothing-to-compact";
      readonly message: string;
      /** Why, rule by rule (compaction/core/plan.ts). */
      readonly why?: readonly NothingWhy[];
    };

/** Options of `applyCompaction`. */
export interface ApplyOptions {
  /** Plans against the target's events (and its metadata); throws for plans that are errors. */
  readonly plan: (
    events: readonly ConversationEvent[],
    meta: Readonly<Record<string, unknown>>,
  ) => PlanOutcome;
  /** How summaries are written; required when the plan has a summary to write. */
  readonly summaries?: SummaryEnvironment;
  readonly newEventId: () => string;
  /** RFC 3339 time of each event. */
  readonly now: () => string;
  /** The turn the compactions activate at (`deferred_until_turn`); absent: in force at once. */
  readonly deferredUntilTurn?: number;
  /** Metadata for the events, from the preview of the events without it (automatic compaction). */
  readonly metadata?: {
    readonly countTokens: TokenCounter;
    readonly of: (preview: CompactionPreview) => Readonly<Record<string, unknown>>;
  };
}

/** One applied segment: the event and, for a written summary, how it was made. */
export interface ExecutedSegment {
  readonly segment: CompactionSegment;
  readonly compaction: Compaction;
  readonly summary?: MadeSummary;
}

/** What `applyCompaction` did, with the events it planned against (for timelines). */
export type ApplyOutcome =
  | {
      readonly kind: "nothing";
      readonly message: string;
      readonly why?: readonly NothingWhy[];
      readonly events: readonly ConversationEvent[];
      readonly warnings: readonly string[];
    }
  | {
      readonly kind: "applied";
      readonly events: readonly ConversationEvent[];
      readonly warnings: readonly string[];
      readonly plan: PlannedCompaction;
      readonly segments: readonly ExecutedSegment[];
    };

function summariesOf(options: ApplyOptions): SummaryEnvironment {
  if (options.summaries === undefined)
    throw new Error("a plan with a summary to write needs a summary environment");
  return options.summaries;
}

/** Writes the summaries `plan` asks for, in order. */
async function writeSummaries(
  events: readonly ConversationEvent[],
  plan: PlannedCompaction,
  options: ApplyOptions,
): Promise<(MadeSummary | undefined)[]> {
  const wanted = plan.segments.map((_, index) => needsSummary(plan, index));
  const environment = wanted.some(Boolean) ? noticesOnce(summariesOf(options)) : undefined;
  const made: (MadeSummary | undefined)[] = [];
  for (const [index, segment] of plan.segments.entries()) {
    made.push(
      wanted[index] && environment !== undefined
        ? await makeSummary(events, { ...segment, summary: segment.summary! }, environment)
        : undefined,
    );
  }
  return made;
}

/** Applies a compaction to `target`; see the module comment. */
export async function applyCompaction(
  target: CompactionTarget,
  options: ApplyOptions,
): Promise<ApplyOutcome> {
  const { events } = target;
  const warnings = target.warnings ?? [];
  const plan = options.plan(events, target.meta ?? {});
  if (plan.kind !== "planned") {
    return {
      kind: "nothing",
      message: plan.message,
      ...(plan.why ? { why: plan.why } : {}),
      events,
      warnings,
    };
  }
  const made = await writeSummaries(events, plan, options);
  const policies: (SummaryPolicy | undefined)[] = made.map((summary) => summary?.policy);
  const realize = (newEventId: () => string, metadata?: Readonly<Record<string, unknown>>) =>
    realizePlan(plan, policies, {
      newEventId,
      now: options.now,
      ...(options.deferredUntilTurn === undefined ? {} : { deferredUntilTurn: options.deferredUntilTurn }),
      ...(metadata === undefined ? {} : { metadata }),
    });
  let metadata: Readonly<Record<string, unknown>> | undefined;
  if (options.metadata !== undefined) {
    // The metadata describes the events' own effect, once in force: measured on stand-ins.
    let counter = 0;
    const standIns = realize(() => `preview:${counter++}`).map(withoutDeferral);
    const preview = previewCompactions(events, standIns, options.metadata.countTokens);
    metadata = options.metadata.of(preview);
  }
  const compactions = realize(options.newEventId, metadata);
  // Ctrl-C after the summaries were written (or while the offline digest ran): still nothing lands.
  if (options.summaries?.signal?.aborted)
    throw new CxcError("interrupted", "interrupted; nothing was applied");
  target.append(compactions);
  return {
    kind: "applied",
    events,
    warnings,
    plan,
    segments: plan.segments.map((segment, index) => ({
      segment,
      compaction: compactions[index]!,
      ...(made[index] === undefined ? {} : { summary: made[index] }),
    })),
  };
}

/** A plan outcome as the pipeline takes it: `invalid` and `conflict` are usage and conflict errors. */
export function expectRunnable(plan: CompactionPlan): PlanOutcome {
  if (plan.kind === "invalid") throw new CxcError("invalid-range", plan.message);
  if (plan.kind === "conflict") throw new CxcError("compaction-conflict", plan.message);
  return plan;
}
