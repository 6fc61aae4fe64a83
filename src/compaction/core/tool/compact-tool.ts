/**
 * The assistant's `compact` tool (docs/compact-tool.md), the pure part: its argument schema
 * (compact-tool-arguments.ts), planning a call (compact-tool-plan.ts, through `prepare`), and the
 * texts shown to the user and the model (compact-tool-preview.ts), all re-exported here, so the
 * tool needs only this module.
 *
 * The events carry `source: assistant`, the note, `summary.source = supplied` with `author:
 * assistant`, and `deferred_until_turn` = the next turn's index, so the rest of this turn keeps
 * the same prompt prefix and everything activates when the user's next message opens a turn.
 */
import type { ConversationEvent } from "../../../core/conversation/events.js";
import type { TokenCounter } from "../../../core/conversation/tokens.js";
import type { Keeping } from "../keeping.js";
import { prepare } from "../prepare.js";
import { realize } from "../realize.js";
import type { CompactToolRule } from "./compact-tool-arguments.js";
import type { CompactToolPlan } from "./compact-tool-plan.js";

export {
  compactToolArgumentsSchema,
  type CompactToolRule,
  cutNote,
  NOTE_MAX_LENGTH,
  type ParsedCompactArguments,
  parseCompactArguments,
} from "./compact-tool-arguments.js";
export { COMPACT_TOOL_NAME, type CompactToolPlan, type PlannedCompactRule } from "./compact-tool-plan.js";
export {
  boundaryExcerpts,
  countWords,
  describeRecordedCall,
  summarizeRecordedCall,
  describeRuleAction,
  describeTokenChange,
  formatRuleRange,
  formatTurnRange,
  renderApprovalPreview,
  renderDroppedContent,
} from "./compact-tool-preview.js";

/** Inputs of `planCompactCall`. */
export interface PlanCompactCallOptions {
  /** Counts tokens for the "smaller by" estimate. */
  readonly countTokens: TokenCounter;
  /** Ids for the planned events. */
  readonly newEventId: () => string;
  /** RFC 3339 time of the events. */
  readonly now: string;
  /** What the compactions keep by construction (keeping.ts); absent: the defaults. */
  readonly keeping?: Keeping;
}

/**
 * A validated call planned against the conversation as stored, its events realized with the ids
 * and time given: what the tool's `run` records (the effectful step does the same,
 * src/compaction/compact.ts).
 */
export function planCompactCall(
  events: readonly ConversationEvent[],
  rules: readonly CompactToolRule[],
  options: PlanCompactCallOptions,
): CompactToolPlan {
  const preparation = prepare(
    events,
    { kind: "tool", rules },
    {
      now: options.now,
      countTokens: options.countTokens,
      ...(options.keeping === undefined ? {} : { keeping: options.keeping }),
    },
  );
  if (preparation.kind !== "planned") return { ok: false, message: preparation.message };
  const { compactions } = realize(preparation, [], {
    newEventId: options.newEventId,
    now: () => options.now,
  });
  const planned = preparation.tool!;
  return {
    ok: true,
    rules: planned.rules.map((rule, position) => ({ ...rule, compaction: compactions[position]! })),
    activatesAtTurn: planned.activatesAtTurn,
  };
}
