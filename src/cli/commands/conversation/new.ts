/**
 * `cxc conversation new [--title T]`: creates an empty conversation and makes it active.
 */
import type { Command } from "commander";
import { CliContext } from "../../context.js";

export function registerNew(conversation: Command): void {
  conversation
    .command("new")
    .description("start a new, empty conversation and make it active")
    .option("--title <TITLE>", "a title for the conversation")
    .action(async (options: { title?: string }, command: Command) => {
      const context = CliContext.from(command);
      const meta = context.store.create(options.title ? { title: options.title } : {});
      context.store.setActive(meta.id);
      if (context.json)
        context.outJson({ id: meta.id, title: meta.title ?? null, created_at: meta.created_at });
      else context.out(`Started conversation ${meta.id}${meta.title ? ` (${meta.title})` : ""}.`);
    });
}
