/**
 * The built-in `propose_compaction` tool (docs/review.md): the model records one compaction proposal for
 * the conversation under review. Disabled by default; the configuration entry a review writes at
 * fork time enables it there, and nowhere else.
 *
 * Every call is validated against the source conversation as it stands (src/compaction/core/review/review.ts): the
 * source is read without its lock, because an open review admits no compaction writes and new turns
 * only widen the valid range; `--continue` re-validates under the lock. A valid call returns the
 * proposal rendered for display, an invalid one the problems, as a tool error the model corrects.
 * The tool writes nothing: the call and its result are the record, the proposal as data in the
 * result's metadata (`cxc_proposal`), which `--continue` reads.
 */
import type { ConversationEvent } from "../core/conversation/events.js";
import {
  describeReviewRange,
  PROPOSAL_METADATA_KEY,
  PROPOSE_COMPACTION_TOOL_NAME,
  proposalArgumentsSchema,
  proposalRecord,
  type ProposalSource,
  type ReviewProposal,
  renderProposalResult,
  validateReadProposal,
} from "../compaction/core/review/review.js";
import {
  type ReadArguments,
  readProposalArguments,
  reviewCycleRange,
} from "../compaction/core/review/proposal-arguments.js";
import { checkSummary } from "../compaction/core/summary/check.js";
import { formatLosses } from "../compaction/core/summary/summary-check-text.js";
import { groupTurns } from "../core/conversation/turns.js";
import { lazySchema, type ToolArguments } from "./arguments.js";
import { builtinTool, type Tool, type ToolCallContext } from "./tool.js";

/**
 * The tool's arguments: the JSON Schema the model is shown and the check of a call, both from the
 * one schema (proposal-arguments.ts). The check reads the fields one by one and never refuses: a
 * field's problem is reported with the problems that need the source (`validateReadProposal`), so
 * the model hears of all of them at once.
 */
export const PROPOSE_COMPACTION_ARGUMENTS: ToolArguments<ReadArguments> = {
  get schema() {
    return lazySchema(proposalArgumentsSchema());
  },
  check: async (argumentsObject) => ({ ok: true, value: readProposalArguments(argumentsObject) }),
};

const DESCRIPTION =
  "Record the compaction proposal agreed in this review, replacing the previous one. Turn numbers are the " +
  "source conversation's, from the [turn N] markers, and are absolute; from_cycle and to_cycle (from the " +
  "[turn N, cycle C] markers) start or end the range inside a turn. Give either a summary, or reasoning " +
  "and/or tool_calls. The result shows the proposal as recorded (the range may grow to cover an existing " +
  "summary whole) or what to fix. `keep` pins messages the user wants verbatim through every compaction; " +
  "pins are only ever added. Call it once per agreed revision, not after every message.";

/** The review's source (its review record) and the source's events, from the call's store. */
function readSource(reviewId: string, context: Pick<ToolCallContext, "store">): ProposalSource {
  const { store } = context;
  const sourceId = store.reviewSource(reviewId);
  if (sourceId === undefined) return { kind: "none" };
  if (store.locate(sourceId) === undefined) return { kind: "missing", id: sourceId };
  return { kind: "found", id: sourceId, events: store.load(sourceId).events };
}

/**
 * The summary check of a proposed summary against the raw turns it replaces, as lines for the tool
 * result (`forModel`: with how to mend it) and the `--continue` prompt; empty for a mechanical
 * proposal. Shown so the model and the user see the cost before agreeing, not after.
 */
export function describeSummaryLosses(
  sourceEvents: readonly ConversationEvent[],
  proposal: ReviewProposal,
  options: { readonly forModel?: boolean } = {},
): string[] {
  if (proposal.summary === undefined) return [];
  const losses = checkSummary(groupTurns(sourceEvents), reviewCycleRange(proposal), proposal.summary);
  const lines = formatLosses(losses, {
    title: `The summary of ${describeReviewRange(proposal)}`,
  });
  if (options.forModel && losses.items.length > 0) {
    lines.push(
      "If any of these matter for the rest of the work, call propose_compaction again with a summary that includes them.",
    );
  }
  return lines;
}

/** The tool as registered in the built-in registry. */
export const proposeCompactionTool: Tool<ReadArguments> = builtinTool({
  name: PROPOSE_COMPACTION_TOOL_NAME,
  description: DESCRIPTION,
  arguments: PROPOSE_COMPACTION_ARGUMENTS,
  // Recording a proposal changes nothing outside the review, so it needs no approval.
  defaults: { enable: false, run: "unattended" },
  async describeCall(argumentsObject, context) {
    const validation = validateReadProposal(argumentsObject, readSource(context.conversationId, context));
    return validation.ok ? renderProposalResult(validation).split("\n")[0]! : validation.message;
  },
  async run(argumentsObject, context) {
    const source = readSource(context.conversationId, context);
    const validation = validateReadProposal(argumentsObject, source);
    if (!validation.ok) return { content: validation.message, isError: true };
    const losses =
      source.kind === "found"
        ? describeSummaryLosses(source.events, validation.proposal, { forModel: true })
        : [];
    return {
      content: [renderProposalResult(validation), ...losses].join("\n"),
      isError: false,
      metadata: { [PROPOSAL_METADATA_KEY]: proposalRecord(validation.proposal) },
    };
  },
});
