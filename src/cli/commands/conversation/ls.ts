/**
 * `cxc conversation ls [--archived] [--limit N]`: lists conversations, pinned first, then the most
 * recently updated, with where each came from (cxc, jp, Claude Code, pi). Reads only each conversation's meta.json (never a log), so it stays fast with
 * thousands of conversations.
 */
import type { Command } from "commander";
import { CxcError } from "../../../errors.js";
import { CliContext, markLightweight } from "../../context.js";

interface ListOptions {
  readonly archived?: boolean;
  readonly limit?: string;
}

export function registerList(conversation: Command): void {
  const command = conversation
    .command("ls")
    .alias("list")
    .description("list conversations (pinned first, then newest)")
    .option("--archived", "list archived conversations instead of live ones")
    .option("--limit <N>", "show at most N conversations")
    .action(async (options: ListOptions, command: Command) => {
      const context = CliContext.from(command);
      const format = context.format();
      const limit = parseLimit(options.limit);
      const [{ formatRelativeTime }, { renderTable, truncateText }, summary, agents] = await Promise.all([
        import("../../render/relative-time.js"),
        import("../../render/table.js"),
        import("../../render/conversation-summary.js"),
        import("../../../core/interop/agents.js"),
      ]);
      const archived = options.archived ?? false;
      const { conversations, warnings } = context.listing.list({ archived });
      for (const warning of warnings) context.warn(warning);
      const metas = conversations.map((entry) => entry.meta).sort(summary.compareForListing);
      const shown = limit === undefined ? metas : metas.slice(0, limit);
      const active = context.listing.active();
      if (format === "json") {
        context.outJson(
          shown.map((meta) => summary.listedConversationJson(meta, { archived, active: meta.id === active })),
        );
        return;
      }
      if (metas.length === 0) {
        context.info(
          archived
            ? "No archived conversations."
            : "No conversations yet. Start one with `cxc conversation new` or `cxc query`.",
        );
        return;
      }
      const now = Date.now();
      const rows = shown.map((meta) => [
        `${meta.id === active ? ">" : " "}${summary.isPinned(meta) ? "*" : " "}`,
        meta.id,
        String(meta.turn_count ?? 0),
        formatRelativeTime(meta.updated_at, now),
        agents.sourceName(agents.conversationSource(meta)),
        truncateText(summary.displayTitle(meta), 80),
      ]);
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
      if (shown.length < metas.length)
        context.info(`(${metas.length - shown.length} more; raise --limit to see them)`);
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
