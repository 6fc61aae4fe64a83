/**
 * `cxc conversation unkeep [ID] N|N.C [--only user|assistant|results]`: retires the pin at that
 * position that keeps what `--only` names (without it: the whole turn or cycle, else the one
 * narrowed pin there), so compactions treat those messages as any others again
 * (docs/compaction.md, "Pins"); another pin at the same position stays, and is named. Appends one
 * `pin_reset` event under the conversation's lock; the log is never rewritten. A position with no
 * such pin is an error that lists the pins there are.
 */
import { type Command, Option } from "commander";
import type { PinPart } from "../../../core/conversation/events.js";
import { CxcError } from "../../../errors.js";
import { CliContext } from "../../context.js";
import { readPositionArguments } from "./keep.js";
import { buildPinResetEvent, describePin, planUnpin } from "../../../core/conversation/pins.js";
import { assertNoOpenReview, newEventId, timestampNow } from "../../../store/index.js";
import { resolveConversation } from "../../targets.js";

/** Defines the command on its entry in the registry (index.ts): flags, help and handler. */
export function define(entry: Command): void {
  entry
    .description("stop keeping a turn or a cycle verbatim (default: the active conversation)")
    .usage("[ID] N|N.C [--only user|assistant|results]")
    .argument("<POSITION...>", "[ID] then N (turn N) or N.C (cycle C of turn N), 1-based")
    .addOption(
      new Option(
        "--only <PART>",
        "the pin that keeps only the user's messages, the assistant's, or the tool results",
      ).choices(["user", "assistant", "results"]),
    )
    .action(async (words: string[], options: { only?: PinPart }, command: Command) => {
      const context = CliContext.from(command);
      context.format();
      const { idArgument, position } = await readPositionArguments(words, "unkeep");
      const id = await resolveConversation(context, idArgument);
      const retired = await context.store.locked(id, "unkeep", (conversation) => {
        assertNoOpenReview(context.store, id);
        const { events, warnings } = conversation.load();
        for (const warning of warnings) context.warn(warning);
        const plan = planUnpin(events, position, options.only);
        if (!plan.ok)
          throw new CxcError("not-pinned", plan.message, { hint: "`cxc conversation show` lists the pins" });
        const ids = plan.retires.map((pin) => pin.id);
        conversation.append([buildPinResetEvent(ids, { id: newEventId(), ts: timestampNow() })]);
        return plan;
      });
      if (context.json) {
        context.outJson({
          id,
          retired: retired.retires.map((pin) => pin.id),
          still_kept: retired.left.map((pin) => pin.id),
        });
        return;
      }
      const what = retired.retires.map((pin) => describePin(pin)).join("; ");
      context.out(`Unkept ${what}: compactions treat its messages as any others again.`);
      for (const pin of retired.left) {
        const spelled = `${pin.turn + 1}${pin.cycle === undefined ? "" : `.${pin.cycle + 1}`}`;
        context.hint(
          `${describePin(pin)} is still kept (\`cxc conversation unkeep ${spelled}${pin.only === undefined ? "" : ` --only ${pin.only}`}\`)`,
        );
      }
    });
}
