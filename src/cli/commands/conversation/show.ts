/**
 * `cxc conversation show [ID]`: the details of one conversation. Counts are recomputed from the
 * log (meta.json only caches them), and the compactions in force are listed, numbered from 1 in
 * stream order (the numbers `compact --reset=N` takes). A compaction review of the conversation
 * that is open, or for a review its source and how it ended, are said too. Load warnings (a torn
 * last line) go to stderr.
 */
import type { Command } from "commander";
import type { ConversationEvent } from "../../../core/conversation/events.js";
import type { CliContext } from "../../context.js";
import type { ReviewProposalDetails } from "../../render/conversation-details.js";
import { buildConversationDetails, renderConversationDetails } from "../../render/conversation-details.js";
import { defineOnLoadedConversation } from "../../targets.js";
import { findOpenReviews } from "../../../compaction/core/review/open-reviews.js";
import { conversationDirectoryOf } from "../../../store/index.js";
import { describeStoreLocation } from "../../render/where.js";
import {
  findLatestProposal,
  renderProposalLine,
  validateProposal,
} from "../../../compaction/core/review/review.js";
import { checkSummary } from "../../../compaction/core/summary/check.js";
import { groupTurns } from "../../../core/conversation/turns.js";
import { reviewCycleRange } from "../../../compaction/core/review/proposal-arguments.js";
import { modelPrices } from "../../../compaction/context-window.js";
import type { ConfigTable } from "../../../core/config.js";
import { loadConfig } from "../../config.js";

/** Defines the command on its entry in the registry (index.ts): flags, help and handler. */
export function define(entry: Command): void {
  defineOnLoadedConversation(
    entry,
    "show a conversation's details and compactions (default: the active one)",
    async (context, format, { id, conversation }) => {
      const review = context.store.reviewInfo(id);
      const proposal =
        review === undefined || conversation.archived
          ? undefined
          : await currentProposal(context, conversation.events, review.source);
      const location = context.storeLocation;
      let config: ConfigTable | undefined;
      const details = buildConversationDetails(
        conversation,
        context.store.active() === id,
        {
          review,
          openReview: findOpenReviews(context.store.openReviews(), id)[0],
          ...(proposal === undefined ? {} : { proposal }),
        },
        {
          directory: conversationDirectoryOf(location.root, id, conversation.archived),
          store: describeStoreLocation(location),
        },
        // A native summary's cost in dollars: the configuration is read only when one has usage.
        (model) => {
          config ??= loadConfig({ cwd: context.cwd, env: context.env, overlays: context.options.cfg }).values;
          return modelPrices(model, config, context.env);
        },
      );
      if (format === "json") context.outJson(details);
      else context.out(renderConversationDetails(details, Date.now()));
    },
  );
}

/**
 * The proposal `--continue` would apply, validated against the source as it stands, with what the
 * summary check finds missing; undefined without one (or when the source is gone).
 */
async function currentProposal(
  context: CliContext,
  reviewEvents: readonly ConversationEvent[],
  sourceId: string,
): Promise<ReviewProposalDetails | undefined> {
  const recorded = findLatestProposal(reviewEvents);
  if (recorded === undefined || context.store.locate(sourceId) === undefined) return undefined;
  const source = context.store.load(sourceId).events;
  const validation = validateProposal(recorded.arguments, { kind: "found", id: sourceId, events: source });
  if (!validation.ok) return undefined;
  const { proposal, turnCount } = validation;
  let checkItems = 0;
  if (proposal.summary !== undefined) {
    checkItems = checkSummary(groupTurns(source), reviewCycleRange(proposal), proposal.summary).items.length;
  }
  return {
    text: renderProposalLine(proposal, turnCount).replace(/^Proposed: /, ""),
    from_turn: proposal.fromTurn,
    to_turn: proposal.toTurn,
    from_cycle: proposal.fromCycle ?? null,
    to_cycle: proposal.toCycle ?? null,
    check_items: checkItems,
  };
}
