/**
 * `compact(preparation, environment, target)`: the one effectful step of compaction, for every
 * surface (docs/architecture.md, "The compaction slice"; docs/decisions/005 and 009). A
 * preparation (core/prepare.ts) becomes stored events here:
 *
 * 1. Summaries: each segment with a summary to write is written by summaries.ts (the one
 *    summarizer rule, the context-window rule, the fallback setting; an automatic compaction is
 *    unattended and shows no progress).
 * 2. Events: `realize` (core/realize.ts, with the one constructor); an automatic compaction records
 *    its own sizes, measured on the events with their written summaries.
 * 3. Storage: with a conversation held under its lock (`target.into`), one append of the pins and
 *    the compactions, so a failure leaves the conversation as it was. Without one, the events are
 *    only returned: a fork not yet created, the turn loop's hooks and the `compact` tool (which
 *    store them in the turn's own appends), a review's draft that is never stored.
 * 4. The report: what was written, and, when the preparation was counted, the preview of the
 *    events as written.
 */
import type { Compaction, ConversationEvent, Pin, SummaryPolicy } from "../core/conversation/events.js";
import { countTurns } from "../core/conversation/turns.js";
import { describeCompactionRanges } from "../core/present/labels.js";
import { SUMMARY_USAGE_KEY } from "../core/prices.js";
import { CxcError } from "../errors.js";
import type { LockedConversation } from "../store/index.js";
import type { AutoRecord } from "./core/advisor/advisor.js";
import { withoutDeferral } from "./core/event.js";
import type { CompactionSegment, NothingWhy, PlannedCompaction } from "./core/plan.js";
import type { PlannedPreparation, Preparation, PreparedPreview } from "./core/prepare.js";
import { realize, summariesToWrite } from "./core/realize.js";
import { previewCompactions, savesAlmostNothing } from "./core/preview.js";
import type { CompactionEnvironment } from "./environment.js";
import { type MadeSummary, makeSummary, noticesOnce, type SummaryEnvironment } from "./summaries.js";

/** Where the events go, and what stops the step. */
export interface CompactTarget {
  /** The conversation under its lock: the events are appended to it. Absent: only returned. */
  readonly into?: LockedConversation;
  /** The conversation summarized, for the names of summary copies; default: `into`'s. */
  readonly conversationId?: string;
  /** Aborted (Ctrl-C): a model stops writing, and nothing lands. */
  readonly signal?: AbortSignal;
}

/** One compaction written: its segment, its event and, for a written summary, how it was made. */
export interface ExecutedSegment {
  readonly segment: CompactionSegment;
  readonly compaction: Compaction;
  readonly summary?: MadeSummary;
}

/** What `compact` did. */
export type CompactionReport =
  | {
      readonly kind: "nothing";
      readonly message: string;
      readonly why?: readonly NothingWhy[];
      /** Why in words, for a run of rules (core/nothing-to-compact.ts). */
      readonly reason?: string;
      readonly events: readonly ConversationEvent[];
    }
  | {
      readonly kind: "compacted";
      /** The conversation as prepared against. */
      readonly events: readonly ConversationEvent[];
      readonly plan: PlannedCompaction;
      readonly segments: readonly ExecutedSegment[];
      readonly compactions: readonly Compaction[];
      readonly pins: readonly Pin[];
      /** The preview of the events as written, when the preparation was counted. */
      readonly preview?: PreparedPreview;
      /** An automatic compaction's record of its sizes. */
      readonly record?: AutoRecord;
      /** `Compacted turns 2..8` / `turns 2..8 and turn 9, cycles 1..3`: the ranges, in words. */
      readonly ranges: string;
    };

/**
 * A preparation that plans something or nothing; one that cannot be planned is an error:
 * `invalid-range` (a position error), `compaction-conflict` (a supplied summary that would split
 * another), both usage errors.
 */
export function runnable<P extends Preparation>(preparation: P): P {
  if (preparation.kind === "invalid") throw new CxcError("invalid-range", preparation.message);
  if (preparation.kind === "conflict") throw new CxcError("compaction-conflict", preparation.message);
  return preparation;
}

/** Carries a preparation out; see the module comment. */
export async function compact(
  preparation: Preparation,
  environment: CompactionEnvironment,
  target: CompactTarget = {},
): Promise<CompactionReport> {
  runnable(preparation);
  if (preparation.kind !== "planned") {
    const { message, why, reason, events } = preparation;
    return {
      kind: "nothing",
      message,
      events,
      ...(why === undefined ? {} : { why }),
      ...(reason === undefined ? {} : { reason }),
    };
  }
  const automatic = preparation.request.kind === "cut";
  const conversationId = target.conversationId ?? target.into?.id;
  const made = await writeSummaries(preparation, environment, target, conversationId);
  const policies: (SummaryPolicy | undefined)[] = made.map((summary) => summary?.policy);
  const written = made.some((summary) => summary !== undefined);
  const record = automatic
    ? automaticRecord(
        preparation,
        policies,
        preparation.countTokens ?? (await environment.counter(conversationId)),
      )
    : undefined;
  // One time for the whole step: its events were made together.
  const now = environment.clock.now();
  const ids = { newEventId: () => environment.clock.newEventId(), now: () => now };
  const realized = realize(preparation, policies, ids, record);
  const pins = realized.pins;
  // What each model-written summary cost, as its request reported it (`stats`: cxc's own spending).
  const compactions = realized.compactions.map((compaction, index) => {
    const usage = made[index]?.usage;
    return usage === undefined
      ? compaction
      : { ...compaction, metadata: { ...compaction.metadata, [SUMMARY_USAGE_KEY]: { ...usage } } };
  });
  // Ctrl-C after the summaries were written (or while the offline digest ran): still nothing lands.
  if (target.signal?.aborted) throw new CxcError("interrupted", "interrupted; nothing was applied");
  target.into?.append([...pins, ...compactions]);
  const preview =
    preparation.preview === undefined || preparation.countTokens === undefined
      ? undefined
      : written
        ? previewOfWritten(preparation.events, compactions, preparation)
        : preparation.preview;
  return {
    kind: "compacted",
    events: preparation.events,
    plan: preparation.plan,
    segments: preparation.plan.segments.map((segment, index) => ({
      segment,
      compaction: compactions[index]!,
      ...(made[index] === undefined ? {} : { summary: made[index] }),
    })),
    compactions,
    pins,
    ...(preview === undefined ? {} : { preview }),
    ...(record === undefined ? {} : { record }),
    ranges: describeCompactionRanges(compactions),
  };
}

/** Writes the summaries the preparation asks for, in order. */
async function writeSummaries(
  preparation: PlannedPreparation,
  environment: CompactionEnvironment,
  target: CompactTarget,
  conversationId: string | undefined,
): Promise<(MadeSummary | undefined)[]> {
  const wanted = summariesToWrite(preparation);
  if (!wanted.some(Boolean)) return wanted.map(() => undefined);
  // Nobody is there to decide (automatic compaction): no progress, and a failed model leaves the
  // digest unless the fallback setting says otherwise (core/summary/summarizer.ts, `fallbackFor`).
  const unattended = preparation.request.kind === "cut";
  const { progress: _progress, ...quiet } = environment.report;
  const summaries: SummaryEnvironment = noticesOnce({
    config: environment.config,
    env: environment.env,
    ...(environment.assistantModel === undefined ? {} : { assistantModel: environment.assistantModel }),
    ...(target.signal === undefined ? {} : { signal: target.signal }),
    report: unattended ? quiet : environment.report,
    ...(environment.copies && conversationId !== undefined ? { copies: { conversationId } } : {}),
    ...(environment.checkLosses ? { checkLosses: true } : {}),
    countTokens: preparation.countTokens ?? (await environment.counter(conversationId)),
    ...(unattended ? { unattended: true } : {}),
    ...(environment.overhead === undefined ? {} : { overhead: environment.overhead }),
  });
  const made: (MadeSummary | undefined)[] = [];
  const summarized = preparation.plan.segments.filter(
    (segment) => segment.summary !== undefined || segment.supplied !== undefined,
  );
  for (const [index, segment] of preparation.plan.segments.entries()) {
    const alongside = summarized.filter((other) => other !== segment);
    made.push(
      wanted[index]
        ? await makeSummary(
            preparation.events,
            { ...segment, summary: segment.summary!, alongside },
            summaries,
          )
        : undefined,
    );
  }
  return made;
}

/**
 * What an automatic compaction records about itself: the view's tokens before it and once its
 * events (with their written summaries) are in force, and the turn it was made at.
 */
function automaticRecord(
  preparation: PlannedPreparation,
  summaries: readonly (SummaryPolicy | undefined)[],
  countTokens: Parameters<typeof previewCompactions>[2],
): AutoRecord {
  let counter = 0;
  const standIns = realize(preparation, summaries, {
    newEventId: () => `preview:${counter++}`,
    now: () => preparation.estimated[0]?.ts ?? "",
  }).compactions.map(withoutDeferral);
  const preview = previewCompactions(preparation.events, standIns, countTokens);
  return {
    tokens_before: preview.totals.before,
    tokens_after: preview.totals.after,
    turn: countTurns(preparation.events) - 1,
  };
}

/** The preview of the events as written (their summaries in place of the digest's estimates). */
function previewOfWritten(
  events: readonly ConversationEvent[],
  compactions: readonly Compaction[],
  preparation: PlannedPreparation,
): PreparedPreview {
  const preview = previewCompactions(events, compactions.map(withoutDeferral), preparation.countTokens!, {
    activateAll: preparation.request.kind === "tool",
  });
  return { ...preview, savesLittle: preview.steps.map(savesAlmostNothing) };
}
