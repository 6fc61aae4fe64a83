/**
 * `cxc conversation fork [ID] [--first N] [--last M] [--from T] [--until T]`: a new conversation
 * holding the selected turns of another (all of them by default; `--first` with `--last` keeps the
 * first N and the last M, jp's "keep first and last"; `--from/--until` keep the turns that started
 * in that time range, applied first), with new event ids, titled "Fork of <title>", recording
 * `forked_from` in its metadata, and made active. The source is only read. `-k[=SPEC]` compacts
 * the new fork after filtering, silently, as `compact -k` would.
 */
import { type Command, Option } from "commander";
import { formatCount } from "../../../core/present/labels.js";
import { CliContext } from "../../context.js";
import { collectAttached } from "../../flag-values.js";
import { copyEventsForFork, selectForkTurns } from "../../../core/conversation/fork.js";
import { newEventId, timestampNow } from "../../../store/index.js";
import { parseForkCount, parseTimeWindow, resolveTurnSelection } from "../../render/turn-selection.js";
import { ID_ARGUMENT, resolveConversation } from "../../targets.js";
import { ruleFlags } from "../../../compaction/environment.js";
import { commandCompaction } from "../../compaction/environment.js";
import { prepare } from "../../../compaction/core/prepare.js";
import { compact } from "../../../compaction/compact.js";

interface ForkOptions {
  readonly first?: string | true;
  readonly last?: string | true;
  readonly from?: string;
  readonly until?: string;
  /** One entry per `-k`; a bare `-k` is the empty string (the configured rules). */
  readonly compact?: string[];
}

/** Defines the command on its entry in the registry (index.ts): flags, help and handler. */
export function define(entry: Command): void {
  entry
    .description("copy a conversation (or its first/last N turns) into a new active one")
    .argument("[ID]", ID_ARGUMENT)
    .option("-f, --first [N]", "keep the first N turns (default 1); with --last, the first and the last")
    .option("-l, --last [N]", "keep the last N turns (default 1); with --first, the first and the last")
    .option(
      "--from <T>",
      "keep the turns that started at or after T: a duration ago (5days), a date (2026-03-01), RFC 3339, or a conversation id (its creation)",
    )
    .option("--until <T>", "keep the turns that started before T (same forms as --from)")
    .addOption(
      new Option(
        "-k, --compact [SPEC]",
        "compact the fork: POLICIES[:RANGE] (repeatable; bare: the configured rules)",
      )
        .preset("")
        .argParser(collectAttached),
    )
    .action(async (idArgument: string | undefined, options: ForkOptions, command: Command) => {
      const context = CliContext.from(command);
      context.format();
      const sourceId = await resolveConversation(context, idArgument);
      const range = parseTimeWindow(options, timestampNow(), context.store);
      const counts = {
        ...(options.first === undefined ? {} : { first: parseForkCount("--first", options.first) }),
        ...(options.last === undefined ? {} : { last: parseForkCount("--last", options.last) }),
      };
      const source = context.store.load(sourceId);
      for (const warning of source.warnings) context.warn(warning);
      // jp's order: the time filter first (the turns started in the window, through the one
      // resolver), then the first and last turns of what it left.
      const window = resolveTurnSelection(range, source.events);
      const started = Array.from({ length: window.end - window.start }, (_, offset) => window.start + offset);
      const slices = selectForkTurns(started, counts);
      const forked = copyEventsForFork(source.events, slices, () => newEventId());
      if (options.compact !== undefined) {
        // The new fork compacted before it is created, with the rules of `compact -k` and quietly
        // (jp's `fork -k`): only a failed summary model is said, and a summary that fails under
        // `fallback = "abort"` stops the fork, so it is never created half-compacted.
        const request = ruleFlags({ compact: options.compact });
        const environment = commandCompaction(context, { quiet: true });
        const settings = environment.settings(source.meta);
        const report = await compact(
          prepare(forked.events, environment.rules(request), settings),
          environment,
        );
        if (report.kind === "compacted") forked.events.push(...report.compactions);
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
      context.out(
        `Forked ${sourceId} into ${meta.id} (${formatCount(meta.turn_count ?? 0, "turn")}); it is now active.`,
      );
    });
}
