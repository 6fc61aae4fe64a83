/**
 * `cxc conversation fork [ID] [--first N|--last N]`: a new conversation holding the selected turns
 * of another (all of them by default), with new event ids, titled "Fork of <title>", recording
 * `forked_from` in its metadata, and made active. The source is only read. `-k[=SPEC]` compacts
 * the new fork after filtering, silently, as `compact -k` would.
 */
import { type Command, Option } from "commander";
import { formatCount } from "../../../core/labels.js";
import { CliContext } from "../../context.js";

interface ForkOptions {
  readonly first?: string;
  readonly last?: string;
  /** One entry per `-k`; a bare `-k` is the empty string (the configured rules). */
  readonly compact?: string[];
}

export function registerFork(conversation: Command): void {
  conversation
    .command("fork")
    .description("copy a conversation (or its first/last N turns) into a new active one")
    .argument("[ID]", "conversation id or unique prefix (default: the active one)")
    .option("--first <N>", "keep only the first N turns")
    .option("--last <N>", "keep only the last N turns")
    .addOption(
      new Option(
        "-k, --compact [SPEC]",
        "compact the fork: POLICIES[:RANGE] (repeatable; bare: the configured rules)",
      )
        .preset("")
        .argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]),
    )
    .action(async (idArgument: string | undefined, options: ForkOptions, command: Command) => {
      const context = CliContext.from(command);
      context.format();
      const { parseTurnSelection, resolveTurnSelection } = await import("../../render/turn-selection.js");
      const { copyEventsForFork } = await import("../../../core/fork.js");
      const { countTurns } = await import("../../../core/turns.js");
      const { newEventId } = await import("../../../store/index.js");
      const selection = parseTurnSelection(options);
      const sourceId = context.store.resolveTarget(idArgument);
      const source = context.store.load(sourceId);
      for (const warning of source.warnings) context.warn(warning);
      const resolved = resolveTurnSelection(selection, countTurns(source.events));
      const forked = copyEventsForFork(source.events, resolved, () => newEventId());
      if (options.compact !== undefined) {
        // Compacts the new fork after filtering, quietly (jp's `fork -k`): only a failed summary model is said.
        const { compactForkEvents } = await import("../../compaction/fork-compact.js");
        forked.events.push(...(await compactForkEvents(context, forked.events, options.compact)));
      }
      const title = `Fork of ${source.meta.title ?? sourceId}`;
      const meta = context.store.create({ title, events: forked.events, extra: { forked_from: sourceId } });
      context.store.setActive(meta.id);
      if (forked.droppedCompactions > 0) {
        context.info(
          `${formatCount(forked.droppedCompactions, "compaction")} of ${sourceId} reach${forked.droppedCompactions === 1 ? "es" : ""} turns the fork leaves out and ${forked.droppedCompactions === 1 ? "was" : "were"} not copied.`,
        );
      }
      if (context.json) {
        context.outJson({
          id: meta.id,
          title,
          forked_from: sourceId,
          turns: meta.turn_count ?? 0,
          events: meta.event_count ?? 0,
          dropped_compactions: forked.droppedCompactions,
        });
        return;
      }
      context.out(`Forked ${sourceId} into ${meta.id} (${meta.turn_count ?? 0} turns); it is now active.`);
    });
}
