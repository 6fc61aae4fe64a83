/**
 * `cxc conversation compact --continue` and `--abort` (docs/review.md, "Applying" and "Aborting"). Both act on the active
 * conversation, which must be a compaction review; neither takes an id or range flags.
 *
 * `--continue` locks the review and (when it exists) the source, reads the latest proposal,
 * re-validates it against the source, prints it with how far the source has grown, asks (unless
 * `--yes`), appends the `compaction` (and the proposal's pins) to the source through the one
 * compaction step (src/compaction/compact.ts), and only then — after both locks are released,
 * since archiving takes the review's lock itself — archives the review and switches back. Apply
 * comes before archive, so a crash in between leaves the compaction applied and the review open;
 * a re-run sees the proposal already applied and finishes without asking again.
 *
 * `--abort` archives the review and switches back without asking; it never touches the source.
 * Either way an archived source (docs/review.md: `--continue` applies to it normally) stays archived and
 * nothing is made active: an archived conversation is never the active one.
 * Either way the review record keeps how the review ended (`applied` or `aborted`), written in
 * the step that archives it, so `show` and `ls` can tell later.
 */
import type { Compaction, ConversationEvent } from "../../core/conversation/events.js";
import { compact, runnable } from "../../compaction/compact.js";
import { prepare } from "../../compaction/core/prepare.js";
import type { CompactionEnvironment } from "../../compaction/environment.js";
import {
  type ContinueDecision,
  type NativeDraftOutcome,
  nativeDraftOutcome,
  notAReviewRefusal,
  planContinue,
  type ReviewProposal,
} from "../../compaction/core/review/review.js";
import { CxcError } from "../../errors.js";
import type { LoadedConversation, LockedConversation, ReviewOutcome, Store } from "../../store/index.js";
import { describeSummaryLosses } from "../../tools/propose-compaction.js";

/** How `--continue` asks; resolves true to apply. Undefined: nobody can be asked. */
export type ConfirmApply = ((prompt: string) => Promise<boolean>) | undefined;

/** The outcome of `--continue`. */
export type ContinueOutcome =
  | {
      readonly kind: "applied" | "finished";
      readonly reviewId: string;
      readonly sourceId: string;
      readonly proposal: ReviewProposal;
      /** The appended compaction's id (`applied` only). */
      readonly compactionId?: string;
      /** The source is archived: it stays so, and no conversation is active. */
      readonly sourceArchived: boolean;
    }
  | { readonly kind: "declined"; readonly reviewId: string; readonly sourceId: string };

/** The outcome of `--abort`. */
export interface AbortOutcome {
  readonly reviewId: string;
  /** Undefined when the source no longer exists. */
  readonly sourceId?: string;
  readonly sourceExists: boolean;
  /** The source is archived: it stays so, and no conversation is active. */
  readonly sourceArchived: boolean;
}

/** The active conversation, which must be a review; returns it and its source id. */
function loadActiveReview(
  store: Store,
  flag: "--continue" | "--abort",
): { review: LoadedConversation; sourceId: string } {
  const activeId = store.active();
  const found = activeId === undefined ? undefined : store.locate(activeId);
  if (activeId === undefined || found === undefined) {
    const refusal = notAReviewRefusal(undefined, flag);
    throw new CxcError("no-active-conversation", refusal.message, { hint: refusal.hint });
  }
  const review = store.load(activeId);
  const sourceId = store.reviewSource(activeId);
  if (sourceId === undefined) {
    const refusal = notAReviewRefusal(activeId, flag);
    throw new CxcError("usage", refusal.message, { hint: refusal.hint });
  }
  return { review, sourceId };
}

function refusalError(decision: Extract<ContinueDecision, { message: string }>): CxcError {
  const code = decision.kind === "source-deleted" ? "conversation-not-found" : "review-invalid";
  return new CxcError(code, decision.message, { hint: decision.hint });
}

/** Runs `action` holding the review's lock and, when the source exists, the source's (handed over). */
async function withBothLocks<T>(
  store: Store,
  reviewId: string,
  sourceId: string,
  action: (source: LockedConversation | undefined) => Promise<T>,
): Promise<T> {
  return store.locked(reviewId, "compact --continue", () =>
    store.locate(sourceId) === undefined
      ? action(undefined)
      : store.locked(sourceId, "compact --continue", (source) => action(source)),
  );
}

/**
 * Records how the review ended and archives it (one step, `endReview`), then makes the source
 * active again when it is live; a deleted or archived source leaves no conversation active.
 * Returns whether the source is archived.
 */
async function closeReview(
  store: Store,
  reviewId: string,
  sourceId: string,
  ending: { readonly outcome: ReviewOutcome; readonly compactionId?: string },
): Promise<boolean> {
  await store.endReview(reviewId, ending);
  const source = store.locate(sourceId);
  store.setActive(source === undefined || source.archived ? undefined : sourceId);
  return source?.archived === true;
}

/** `--continue`; see the module comment. `confirm` is skipped with `--yes`. */
export async function continueReview(
  store: Store,
  options: {
    readonly confirm: ConfirmApply;
    readonly yes: boolean;
    readonly showPrompt: (text: string) => void;
    /** The command's compaction environment (what a compaction keeps, ids and time). */
    readonly compaction: CompactionEnvironment;
    /**
     * What the compactions would do to the source's next request, in words (docs/context.md);
     * absent: not said.
     */
    readonly describeEffect?: (
      sourceEvents: readonly ConversationEvent[],
      compactions: readonly Compaction[],
    ) => Promise<string | undefined>;
  },
): Promise<ContinueOutcome> {
  const { review, sourceId } = loadActiveReview(store, "--continue");
  const reviewId = review.meta.id;
  const settled = await withBothLocks(store, reviewId, sourceId, async (locked) => {
    const sourceFound = store.locate(sourceId);
    const decision = planContinue({
      review: { id: reviewId, compactionSource: sourceId, events: store.load(reviewId).events },
      ...(sourceFound === undefined
        ? {}
        : { source: { archived: sourceFound.archived, events: store.load(sourceId).events } }),
    });
    if (decision.kind === "already-applied")
      return { kind: "finished", proposal: decision.proposal } as const;
    if (decision.kind !== "apply") throw refusalError(decision);
    // Both locks are held: the source cannot change between this preparation and the append.
    const current = locked!.load();
    const native = nativeDraftOutcome(store.load(reviewId).events, decision.proposal);
    const request = {
      kind: "review",
      proposal: decision.proposal,
      reviewId,
      ...(native?.kind === "kept" ? { native: native.native } : {}),
    } as const;
    const preparation = runnable(prepare(current.events, request, options.compaction.settings(current.meta)));
    const losses = describeSummaryLosses(current.events, decision.proposal);
    const effect =
      options.describeEffect === undefined || preparation.kind !== "planned"
        ? undefined
        : await options.describeEffect(current.events, preparation.estimated);
    options.showPrompt(
      [
        decision.prompt,
        ...(native === undefined ? [] : ["", nativeDraftLine(native)]),
        ...(effect === undefined ? [] : ["", effect]),
        ...(losses.length === 0 ? [] : ["", ...losses]),
      ].join("\n"),
    );
    if (!options.yes) {
      if (options.confirm === undefined) {
        throw new CxcError("usage", "refusing to apply the proposal without confirmation", {
          hint: "pass --yes (or --no-confirm) to apply without asking",
        });
      }
      if (!(await options.confirm("Apply?"))) return { kind: "declined" } as const;
    }
    // The proposal's pins (those not in force already) go in the same append as its compaction.
    const report = await compact(preparation, options.compaction, { into: locked! });
    const compactionId = report.kind === "compacted" ? report.compactions[0]?.id : undefined;
    return {
      kind: "applied",
      proposal: decision.proposal,
      ...(compactionId === undefined ? {} : { compactionId }),
    } as const;
  });
  if (settled.kind === "declined") return { kind: "declined", reviewId, sourceId };
  const sourceArchived = await closeReview(store, reviewId, sourceId, {
    outcome: "applied",
    ...(settled.kind === "applied" && settled.compactionId !== undefined
      ? { compactionId: settled.compactionId }
      : {}),
  });
  return { ...settled, reviewId, sourceId, sourceArchived };
}

/** What the confirmation says of the provider's own draft (docs/native-compaction.md). */
function nativeDraftLine(native: NativeDraftOutcome): string {
  return native.kind === "kept"
    ? `The summary is ${native.native.model}'s own (its signed compaction block, as drafted): it goes back to that model family as the block.`
    : `The draft was ${native.native.model}'s own summary; this proposal changes its ${native.changed.join(" and ")}, so it goes as a plain summary (the signed block is dropped).`;
}

/** `--abort`: archive the review and switch back; the source is not touched. */
export async function abortReview(store: Store): Promise<AbortOutcome> {
  const { review, sourceId } = loadActiveReview(store, "--abort");
  const sourceArchived = await closeReview(store, review.meta.id, sourceId, { outcome: "aborted" });
  const sourceExists = store.locate(sourceId) !== undefined;
  return { reviewId: review.meta.id, sourceExists, sourceArchived, ...(sourceExists ? { sourceId } : {}) };
}
