/**
 * `cxc conversation use [ID] [--grep TEXT] [--from T] [--until T]`: makes a conversation the
 * active one of this session (`CXC_SESSION`, else the store-wide default), so commands without an
 * id act on it.
 *
 * As jp's `use` (`use_.rs`): without an id, at a terminal, it opens the picker, and so do jp's
 * picker targets (`?`, `?p`, `?s`, `?a`; src/cli/targets.ts). `--grep`, `--from` and `--until`
 * narrow the candidates, and when one is left it is taken without asking. An archived
 * conversation, named by its id or picked from the archive (`?a`), is unarchived first, as jp's
 * `use` does for the archive. In a pipe, no id is an error.
 */
import type { Command } from "commander";
import { CxcError } from "../../../errors.js";
import { CliContext } from "../../context.js";
import { displayTitle } from "../../render/conversation-summary.js";
import { parsePickerTarget, resolveConversation } from "../../targets.js";
import { parseTimeWindow } from "../../render/turn-selection.js";
import { timestampNow } from "../../../store/index.js";

interface UseOptions {
  readonly grep?: string;
  readonly from?: string;
  readonly until?: string;
}

/** Defines the command on its entry in the registry (index.ts): flags, help and handler. */
export function define(entry: Command): void {
  entry
    .description("make a conversation the active one (at a terminal, without an id: pick from a list)")
    .argument(
      "[ID]",
      "conversation id or unique prefix, `recent`, or a list to pick from: `?` (all), `?p` (pinned), `?s` (this session), `?a` (archived)",
    )
    .option("--grep <TEXT>", "pick among the conversations whose title or messages contain TEXT")
    .option("--from <T>", "pick among those created at or after T: a duration ago (5days), a date, RFC 3339")
    .option("--until <T>", "pick among those created before T (same forms as --from)")
    .action(async (idArgument: string | undefined, options: UseOptions, command: Command) => {
      const context = CliContext.from(command);
      context.format();
      const narrow = await candidateFilter(context, options);
      const id =
        idArgument === undefined || parsePickerTarget(idArgument) !== undefined || narrow !== undefined
          ? await resolveConversation(context, idArgument, {
              pickWhenAbsent: true,
              ...(narrow === undefined ? {} : { narrow }),
            })
          : context.store.resolveTarget(idArgument);
      const conversation = context.store.locate(id);
      if (!conversation) throw new CxcError("conversation-not-found", `conversation ${id} does not exist`);
      // Named or picked on purpose: jp unarchives it and makes it active.
      const unarchived = conversation.archived ? await context.store.unarchive(id) : false;
      const meta = context.store.readMeta(id);
      const previous = context.store.active();
      context.store.setActive(id);
      if (context.json) {
        context.outJson({
          id,
          title: meta.title ?? null,
          previous: previous ?? null,
          changed: previous !== id,
          ...(unarchived ? { unarchived: true } : {}),
        });
        return;
      }
      if (unarchived) context.out(`Unarchived conversation ${id}.`);
      // `(untitled)` is in brackets already.
      const title = meta.title ? ` (${displayTitle(meta)})` : ` ${displayTitle(meta)}`;
      context.out(previous === id ? `Already active: ${id}${title}` : `Active conversation: ${id}${title}`);
    });
}

/** `--grep`, `--from`, `--until` as a candidate filter; undefined when none is given. */
async function candidateFilter(
  context: CliContext,
  options: UseOptions,
): Promise<import("../../targets.js").CandidateFilter | undefined> {
  if (options.grep === undefined && options.from === undefined && options.until === undefined)
    return undefined;
  if (options.grep !== undefined && options.grep === "") {
    throw new CxcError("usage", "the --grep text is empty", { hint: "e.g. --grep parser" });
  }
  // The window as fork reads it (bounds of the position algebra), each end the moment it names.
  const window = parseTimeWindow(options, timestampNow(), context.store);
  const moment = (bound: typeof window.start): string | undefined =>
    bound?.kind === "started" && "at" in bound.time ? bound.time.at : undefined;
  const from = moment(window.start);
  const until = moment(window.end);
  return {
    ...(options.grep === undefined ? {} : { grep: options.grep }),
    ...(from === undefined ? {} : { from }),
    ...(until === undefined ? {} : { until }),
  };
}
