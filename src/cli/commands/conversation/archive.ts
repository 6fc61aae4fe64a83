/**
 * `cxc conversation archive [ID]`: moves a conversation to the archive (out of `ls` and `grep`;
 * nothing is deleted). Archiving the active conversation leaves the session with none active.
 */
import type { Command } from "commander";
import { defineOnConversation, resolveConversation } from "../../targets.js";

/** Defines the command on its entry in the registry (index.ts): flags, help and handler. */
export function define(entry: Command): void {
  defineOnConversation(
    entry,
    "move a conversation to the archive (default: the active one)",
    async (context, idArgument) => {
      context.format();
      const id = await resolveConversation(context, idArgument);
      const alreadyArchived = context.store.locate(id)?.archived ?? false;
      if (!alreadyArchived) await context.store.archive(id);
      const wasActive = context.store.active() === id;
      if (wasActive && !alreadyArchived) {
        context.store.setActive(undefined);
        context.info("It was the active conversation; no conversation is active now.");
      }
      if (context.json) {
        context.outJson({ id, archived: true, changed: !alreadyArchived, was_active: wasActive });
        return;
      }
      context.out(
        alreadyArchived ? `Conversation ${id} is already archived.` : `Archived conversation ${id}.`,
      );
    },
  );
}
