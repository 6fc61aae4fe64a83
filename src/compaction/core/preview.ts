/**
 * What compactions would do to what the model sees: the one preview every savings figure comes
 * from (`compact --dry-run`, the `compact` tool's approval and its "saves about nothing" check,
 * automatic compaction's record of itself). Pure.
 *
 * The compactions are applied one after another, in order, on top of the conversation: each step
 * reports the tokens of the turns it covers before and after it, so the steps add up to the whole
 * saving and a compaction covering what an earlier one already shrank is not counted twice.
 */
import type { CycleRange } from "../../core/conversation/cycles.js";
import type { Compaction, ConversationEvent } from "../../core/conversation/events.js";
import {
  originOverlaps,
  type ProjectedView,
  projectConversation,
} from "../../core/conversation/projection.js";
import { countTurnTokens, type TokenCounter } from "../../core/conversation/tokens.js";
import { withoutDeferral } from "./event.js";

/** One compaction of a preview. */
export interface PreviewStep {
  readonly compaction: Compaction;
  /** The view just before and just after this compaction. */
  readonly before: ProjectedView;
  readonly after: ProjectedView;
  /** Tokens of the view's turns standing for the raw turns it covers, before and after it. */
  readonly covered: { readonly before: number; readonly after: number };
  /** Tokens the whole view shrinks by with this compaction (negative: it grows). */
  readonly saved: number;
}

/** A preview of compactions over a conversation. */
export interface CompactionPreview {
  readonly steps: readonly PreviewStep[];
  /** Tokens of the whole view before the first compaction and after the last. */
  readonly totals: { readonly before: number; readonly after: number };
}

/** Options of `previewCompactions`. */
export interface PreviewOptions {
  /**
   * Judge the view once every compaction is in force: deferred ones (recorded earlier in a turn,
   * and the previewed ones) count as active. Default: as the compactions say.
   */
  readonly activateAll?: boolean;
}

/** Tokens of a projected view, or of its turns standing for raw turns `range`. */
export function countViewTokens(view: ProjectedView, countTokens: TokenCounter, range?: CycleRange): number {
  return view.turns.reduce(
    (sum, turn, index) =>
      range !== undefined && !originOverlaps(turn.origin, range.from, range.to)
        ? sum
        : sum + countTurnTokens({ index, events: turn.events }, countTokens).total,
    0,
  );
}

/** Previews `compactions` over `events`; see the module comment. */
export function previewCompactions(
  events: readonly ConversationEvent[],
  compactions: readonly Compaction[],
  countTokens: TokenCounter,
  options: PreviewOptions = {},
): CompactionPreview {
  const activate = (list: readonly ConversationEvent[]): readonly ConversationEvent[] =>
    options.activateAll
      ? list.map((event) => (event.type === "compaction" ? withoutDeferral(event) : event))
      : list;
  let stream: readonly ConversationEvent[] = events;
  let view = projectConversation(activate(stream));
  let tokens = countViewTokens(view, countTokens);
  const first = tokens;
  const steps: PreviewStep[] = [];
  for (const compaction of compactions) {
    stream = [...stream, compaction];
    const after = projectConversation(activate(stream));
    const afterTokens = countViewTokens(after, countTokens);
    const range = { from: compaction.from_turn, to: compaction.to_turn };
    steps.push({
      compaction,
      before: view,
      after,
      covered: {
        before: countViewTokens(view, countTokens, range),
        after: countViewTokens(after, countTokens, range),
      },
      saved: tokens - afterTokens,
    });
    view = after;
    tokens = afterTokens;
  }
  return { steps, totals: { before: first, after: tokens } };
}

/** A compaction that saves less than this share of its turns' tokens saves almost nothing. */
export const MINIMUM_SAVING_FRACTION = 0.01;

/**
 * True when a step saves nothing, or less than 1 % of the tokens of the turns it covers: the
 * `compact` tool does not put such a rule to the user, `compact` warns of it.
 */
export function savesAlmostNothing(step: Pick<PreviewStep, "saved" | "covered">): boolean {
  return step.saved <= 0 || step.saved < step.covered.before * MINIMUM_SAVING_FRACTION;
}
