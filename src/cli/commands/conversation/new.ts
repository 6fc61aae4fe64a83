/**
 * `cxc conversation new [--title T]`: creates an empty conversation and makes it active.
 */
import type { Command } from "commander";
import { CliContext } from "../../context.js";

/** Defines the command on its entry in the registry (index.ts): flags, help and handler. */
export function define(entry: Command): void {
  entry
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
