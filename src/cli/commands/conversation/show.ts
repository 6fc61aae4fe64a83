/**
 * `cxc conversation show [ID]`: the details of one conversation. Counts are recomputed from the
 * log (meta.json only caches them), and the compactions in force are listed, numbered from 1 in
 * stream order (the numbers `compact --reset=N` takes). A compaction review of the conversation
 * that is open, or for a review its source and how it ended, are said too. Load warnings (a torn
 * last line) go to stderr.
 */
import type { Command } from "commander";
import { CliContext } from "../../context.js";

export function registerShow(conversation: Command): void {
  conversation
    .command("show")
    .description("show a conversation's details and compactions (default: the active one)")
    .argument("[ID]", "conversation id or unique prefix")
    .action(async (idArgument: string | undefined, _options: unknown, command: Command) => {
      const context = CliContext.from(command);
      const format = context.format();
      const { buildConversationDetails, renderConversationDetails } = await import(
        "../../render/conversation-details.js"
      );
      const id = context.store.resolveTarget(idArgument);
      const conversation = context.store.load(id);
      for (const warning of conversation.warnings) context.warn(warning);
      const { findOpenReviews } = await import("../../../core/compaction/open-reviews.js");
      const details = buildConversationDetails(conversation, context.store.active() === id, {
        review: context.store.reviewInfo(id),
        openReview: findOpenReviews(context.store.openReviews(), id)[0],
      });
      if (format === "json") context.outJson(details);
      else context.out(renderConversationDetails(details, Date.now()));
    });
}
