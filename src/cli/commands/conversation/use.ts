/**
 * `cxc conversation use ID`: makes a conversation the active one of this session (`CXC_SESSION`,
 * else the store-wide default), so commands without an id act on it.
 */
import type { Command } from "commander";
import { CxcError } from "../../../errors.js";
import { CliContext } from "../../context.js";

export function registerUse(conversation: Command): void {
  conversation
    .command("use")
    .description("make a conversation the active one")
    .argument("<ID>", "conversation id or unique prefix")
    .action(async (idArgument: string, _options: unknown, command: Command) => {
      const context = CliContext.from(command);
      context.format();
      const { displayTitle } = await import("../../render/conversation-summary.js");
      const id = context.store.resolveId(idArgument);
      const conversation = context.store.locate(id);
      if (!conversation) throw new CxcError("conversation-not-found", `conversation ${id} does not exist`);
      if (conversation.archived) {
        throw new CxcError("usage", `conversation ${id} is archived`, {
          hint: `unarchive it first: cxc conversation unarchive ${id}`,
        });
      }
      const meta = context.store.readMeta(id);
      const previous = context.store.active();
      context.store.setActive(id);
      if (context.json) {
        context.outJson({
          id,
          title: meta.title ?? null,
          previous: previous ?? null,
          changed: previous !== id,
        });
        return;
      }
      context.out(
        previous === id
          ? `Already active: ${id} (${displayTitle(meta)})`
          : `Active conversation: ${id} (${displayTitle(meta)})`,
      );
    });
}
