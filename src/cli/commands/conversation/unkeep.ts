/**
 * `cxc conversation unkeep [ID] N|N.C`: retires the pins in force at that position (whatever they
 * keep of it), so compactions treat those messages as any others again (docs/compaction.md,
 * "Pins"). Appends one `pin_reset` event under the conversation's lock; the log is never
 * rewritten. A position with no pin is an error that lists the pins there are.
 */
import type { Command } from "commander";
import { CxcError } from "../../../errors.js";
import { CliContext } from "../../context.js";
import { readPositionArguments } from "./keep.js";

export function registerUnkeep(conversation: Command): void {
  conversation
    .command("unkeep")
    .description("stop keeping a turn or a cycle verbatim (default: the active conversation)")
    .usage("[ID] N|N.C")
    .argument("<POSITION...>", "[ID] then N (turn N) or N.C (cycle C of turn N), 1-based")
    .action(async (words: string[], _options: unknown, command: Command) => {
      const context = CliContext.from(command);
      context.format();
      const { idArgument, position } = await readPositionArguments(words, "unkeep");
      const { buildPinResetEvent, describePin, planUnpin } = await import(
        "../../../core/conversation/pins.js"
      );
      const { assertNoOpenReview, newEventId, timestampNow } = await import("../../../store/index.js");
      const { resolveConversation } = await import("../../targets.js");
      const id = await resolveConversation(context, idArgument);
      const retired = await context.store.locked(id, "unkeep", (conversation) => {
        assertNoOpenReview(context.store, id);
        const { events, warnings } = conversation.load();
        for (const warning of warnings) context.warn(warning);
        const plan = planUnpin(events, position);
        if (!plan.ok)
          throw new CxcError("not-pinned", plan.message, { hint: "`cxc conversation show` lists the pins" });
        const ids = plan.retires.map((pin) => pin.id);
        conversation.append([buildPinResetEvent(ids, { id: newEventId(), ts: timestampNow() })]);
        return ids;
      });
      if (context.json) context.outJson({ id, retired });
      else
        context.out(`Unkept ${describePin(position)}: compactions treat its messages as any others again.`);
    });
}
