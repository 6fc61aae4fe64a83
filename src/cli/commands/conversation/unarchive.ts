/**
 * `cxc conversation unarchive ID`: moves an archived conversation back to the live ones.
 */
import type { Command } from "commander";
import { CliContext } from "../../context.js";

/** Defines the command on its entry in the registry (index.ts): flags, help and handler. */
export function define(entry: Command): void {
  entry
    .description("bring an archived conversation back")
    .argument("<ID>", "conversation id or unique prefix")
    .action(async (idArgument: string, _options: unknown, command: Command) => {
      const context = CliContext.from(command);
      context.format();
      const id = context.store.resolveId(idArgument);
      const changed = await context.store.unarchive(id);
      if (context.json) {
        context.outJson({ id, archived: false, changed });
        return;
      }
      context.out(changed ? `Unarchived conversation ${id}.` : `Conversation ${id} is not archived.`);
    });
}
