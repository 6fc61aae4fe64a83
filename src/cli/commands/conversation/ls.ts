/**
 * `cxc conversation ls [--archived] [--limit N]`: lists conversations, pinned first, then the most
 * recently updated, with where each came from (cxc, jp, Claude Code, pi). Reads only each
 * conversation's metadata and review record (never a log; both cached by the listing), so it
 * stays fast with thousands of conversations. A title is followed by `(review 01xyz open)` on a
 * conversation under review, and `(review of 01abc, applied)` on a review.
 */
import type { Command } from "commander";
import { formatCount } from "../../../core/present/labels.js";
import { CxcError } from "../../../errors.js";
import { CliContext, markLightweight } from "../../context.js";
import { formatRelativeTime } from "../../../core/present/relative-time.js";
import { renderTable, truncateText } from "../../render/table.js";
import { describeStoreLocation } from "../../render/where.js";
import * as summary from "../../render/conversation-summary.js";
import * as agents from "../../../core/interop/agents.js";

interface ListOptions {
  readonly archived?: boolean;
  readonly limit?: string;
}

/** Defines the command on its entry in the registry (index.ts): flags, help and handler. */
export function define(entry: Command): void {
  const command = entry
    .description("list conversations (pinned first, then newest)")
    .option("--archived", "list archived conversations instead of live ones")
    .option("--limit <N>", "show at most N conversations")
    .action(async (options: ListOptions, command: Command) => {
      const context = CliContext.from(command);
      const format = context.format();
      const limit = parseLimit(options.limit);
      const archived = options.archived ?? false;
      const { conversations, warnings } = context.listing.list({ archived });
      for (const warning of warnings) context.warn(warning);
      const sorted = [...conversations].sort((left, right) =>
        summary.compareForListing(left.meta, right.meta),
      );
      const shown = limit === undefined ? sorted : sorted.slice(0, limit);
      const active = context.listing.active();
      // Reviews are live conversations: only a listing of live ones can say a source has one open.
      const openReviews = archived ? new Map<string, string>() : summary.openReviewsBySource(conversations);
      if (format === "json") {
        context.outJson(
          shown.map(({ meta, review }) =>
            summary.listedConversationJson(meta, {
              archived,
              active: meta.id === active,
              review,
              openReview: openReviews.get(meta.id),
            }),
          ),
        );
        return;
      }
      // After a warning about an unreadable conversation, "none yet" would not be true.
      if (sorted.length === 0 && warnings.length > 0) return;
      const store = describeStoreLocation(context.storeLocation);
      if (sorted.length === 0) {
        // Every conversation archived (a review's source archived by --continue, say): not "yet".
        const inArchive = archived ? 0 : context.listing.list({ archived: true }).conversations.length;
        context.info(
          archived
            ? `No archived conversations in ${store}.`
            : inArchive > 0
              ? `No conversations outside the archive in ${store}; ${formatCount(inArchive, "archived conversation")}: \`cxc conversation ls --archived\` lists ${inArchive === 1 ? "it" : "them"}, \`cxc conversation use ID\` brings one back.`
              : `No conversations yet in ${store}. Start one with \`cxc conversation new\` or \`cxc query\`.`,
        );
        return;
      }
      const now = Date.now();
      const rows = shown.map((entry) => {
        const { meta } = entry;
        const note = summary.reviewNote(entry, openReviews.get(meta.id));
        const title = truncateText(summary.displayTitle(meta), 80);
        return [
          `${meta.id === active ? ">" : " "}${summary.isPinned(meta) ? "*" : " "}`,
          meta.id,
          String(meta.turn_count ?? 0),
          formatRelativeTime(meta.updated_at, now),
          agents.sourceName(agents.conversationSource(meta)),
          note === undefined ? title : `${title}  ${note}`,
        ];
      });
      context.out(
        renderTable(
          [
            { header: "" },
            { header: "ID" },
            { header: "TURNS", alignRight: true },
            { header: "UPDATED" },
            { header: "FROM" },
            { header: "TITLE" },
          ],
          rows,
        ),
      );
      if (shown.length < sorted.length)
        context.info(
          `${formatCount(sorted.length - shown.length, "more conversation")}; raise --limit to see them`,
        );
      context.info(`Store: ${store}.`);
    });
  markLightweight(command);
}

function parseLimit(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text.trim())) {
    throw new CxcError("usage", `invalid --limit value '${text}' (expected a whole number)`, {
      hint: "e.g. --limit 20",
    });
  }
  return Number(text.trim());
}
