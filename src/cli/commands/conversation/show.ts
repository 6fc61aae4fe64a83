/**
 * `cxc conversation show [ID]`: the details of one conversation. Counts are recomputed from the
 * log (meta.json only caches them), and the compactions are listed, numbered from 1 in stream
 * order (the numbers `compact --reset=N` takes). Load warnings (a torn last line) go to stderr.
 */
import type { Command } from "commander";
import { sanitizeTerminalText } from "../../../core/sanitize.js";
import { CliContext } from "../../context.js";

export function registerShow(conversation: Command): void {
  conversation
    .command("show")
    .description("show a conversation's details and compactions (default: the active one)")
    .argument("[ID]", "conversation id or unique prefix")
    .action(async (idArgument: string | undefined, _options: unknown, command: Command) => {
      const context = CliContext.from(command);
      const format = context.format();
      const { isTurnEvent } = await import("../../../core/events.js");
      const { activeCompactions } = await import("../../../core/compactions.js");
      const { countTurns } = await import("../../../core/turns.js");
      const { describePolicy } = await import("../../render/transcript.js");
      const { formatRelativeTime, formatTimestamp } = await import("../../render/relative-time.js");
      const { displayTitle, isPinned } = await import("../../render/conversation-summary.js");
      const id = context.store.resolveTarget(idArgument);
      const conversation = context.store.load(id);
      for (const warning of conversation.warnings) context.warn(warning);
      const { meta, events } = conversation;
      // Compactions retired by a `compaction_reset` are left out; the numbers match `compact --reset=N`.
      const compactions = activeCompactions(events);
      const details = {
        id,
        title: meta.title ?? null,
        created_at: meta.created_at,
        updated_at: meta.updated_at,
        events: events.filter(isTurnEvent).length,
        turns: countTurns(events),
        archived: conversation.archived,
        archived_at: meta.archived_at ?? null,
        pinned: isPinned(meta),
        pinned_at: meta.pinned_at ?? null,
        active: context.store.active() === id,
        forked_from: typeof meta.forked_from === "string" ? meta.forked_from : null,
        compactions: compactions.map(({ number, compaction }) => ({
          number,
          id: compaction.id,
          from_turn: compaction.from_turn + 1,
          to_turn: compaction.to_turn + 1,
          policy: describePolicy(compaction),
          summary: compaction.summary?.summary ?? null,
          reasoning: compaction.reasoning !== undefined,
          tool_calls: compaction.tool_calls ?? null,
          source: compaction.source,
          note: compaction.note ?? null,
          deferred_until_turn:
            compaction.deferred_until_turn === undefined ? null : compaction.deferred_until_turn + 1,
          created_at: compaction.ts,
        })),
        warnings: conversation.warnings,
      };
      if (format === "json") {
        context.outJson(details);
        return;
      }
      const now = Date.now();
      const when = (timestamp: string): string =>
        `${formatTimestamp(timestamp)} (${formatRelativeTime(timestamp, now)})`;
      const yesNo = (value: boolean): string => (value ? "yes" : "no");
      const rows: [string, string][] = [
        ["id", id],
        ["title", displayTitle(meta)],
        ["created", when(meta.created_at)],
        ["updated", when(meta.updated_at)],
        ["events", String(details.events)],
        ["turns", String(details.turns)],
        ["archived", meta.archived_at ? `yes, ${when(meta.archived_at)}` : yesNo(conversation.archived)],
        ["pinned", meta.pinned_at ? `yes, ${when(meta.pinned_at)}` : "no"],
        ["active", yesNo(details.active)],
      ];
      if (details.forked_from) rows.push(["forked from", details.forked_from]);
      const lines = rows.map(([label, value]) => `${`${label}:`.padEnd(13)}${value}`);
      lines.push("", compactions.length === 0 ? "Compactions: none" : "Compactions:");
      for (const item of details.compactions) {
        const extras = [item.policy, item.source];
        if (item.deferred_until_turn !== null) extras.push(`deferred until turn ${item.deferred_until_turn}`);
        const note = item.note ? ` — ${sanitizeTerminalText(item.note)}` : "";
        lines.push(
          `  ${item.number}. turns ${item.from_turn}..${item.to_turn} (${extras.join(", ")})${note}`,
        );
      }
      context.out(lines.join("\n"));
    });
}
