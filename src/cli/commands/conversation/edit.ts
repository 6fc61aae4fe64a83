/**
 * `cxc conversation edit [ID] [--title T] [--pin|--unpin]`: changes a conversation's metadata
 * (under its lock). `--title ""` removes the title.
 */
import type { Command } from "commander";
import { Option } from "commander";
import { CxcError } from "../../../errors.js";
import { CliContext } from "../../context.js";
import { timestampNow, withoutKey } from "../../../store/index.js";
import { ID_ARGUMENT, resolveConversation } from "../../targets.js";

interface EditOptions {
  readonly title?: string;
  readonly pin?: boolean;
  readonly unpin?: boolean;
}

/** Defines the command on its entry in the registry (index.ts): flags, help and handler. */
export function define(entry: Command): void {
  entry
    .description("change a conversation's title or pin it (default: the active one)")
    .argument("[ID]", ID_ARGUMENT)
    .option("--title <TITLE>", 'set the title ("" removes it)')
    .addOption(new Option("--pin", "pin it (pinned conversations are listed first)").conflicts("unpin"))
    .addOption(new Option("--unpin", "unpin it"))
    .action(async (idArgument: string | undefined, options: EditOptions, command: Command) => {
      const context = CliContext.from(command);
      context.format();
      if (options.title === undefined && !options.pin && !options.unpin) {
        throw new CxcError("usage", "nothing to change", { hint: "pass --title T, --pin or --unpin" });
      }
      const id = await resolveConversation(context, idArgument);
      const now = timestampNow();
      const meta = await context.store.updateMeta(
        id,
        (current) => {
          let next = current;
          if (options.title !== undefined) {
            const title = options.title.trim();
            next = title === "" ? withoutKey(next, "title") : { ...next, title };
          }
          if (options.pin && next.pinned_at === undefined) next = { ...next, pinned_at: now };
          if (options.unpin) next = withoutKey(next, "pinned_at");
          return next;
        },
        "cxc conversation edit",
      );
      if (context.json) {
        context.outJson({ id, title: meta.title ?? null, pinned: typeof meta.pinned_at === "string" });
        return;
      }
      context.out(`Updated conversation ${id}.`);
    });
}
