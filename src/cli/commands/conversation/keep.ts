/**
 * `cxc conversation keep [ID] N|N.C [--only user|assistant|results]`: pins turn N whole, or cycle C
 * of it (the response and the results answering it), so every compaction keeps those messages
 * verbatim (docs/compaction.md, "Pins"). Appends one `pin` event under the conversation's lock;
 * a pin in force with the same target makes it nothing to do. Named `keep` so it is not taken
 * for pinning a conversation in `ls` (`edit --pin`).
 */
import type { Command } from "commander";
import { Option } from "commander";
import type { PinPart } from "../../../core/conversation/events.js";
import { CxcError, usageError } from "../../../errors.js";
import { CliContext } from "../../context.js";
import { buildPinEvent, describePin, planPin } from "../../../core/conversation/pins.js";
import { assertNoOpenReview, newEventId, timestampNow } from "../../../store/index.js";
import { capitalize, formatCount } from "../../../core/present/labels.js";
import { resolveConversation } from "../../targets.js";
import { parseMessagePosition } from "../../../core/position/parse.js";

interface KeepOptions {
  readonly only?: PinPart;
}

/** Defines the command on its entry in the registry (index.ts): flags, help and handler. */
export function define(entry: Command): void {
  entry
    .description(
      "keep a turn or a cycle verbatim through every compaction (default: the active conversation)",
    )
    .usage("[ID] N|N.C [--only user|assistant|results]")
    .argument("<POSITION...>", "[ID] then N (turn N) or N.C (cycle C of turn N), 1-based")
    .addOption(
      new Option(
        "--only <PART>",
        "keep only the user's messages, the assistant's, or the tool results",
      ).choices(["user", "assistant", "results"]),
    )
    .action(async (words: string[], options: KeepOptions, command: Command) => {
      const context = CliContext.from(command);
      context.format();
      const { idArgument, position } = await readPositionArguments(words, "keep");
      const id = await resolveConversation(context, idArgument);
      const target = { ...position, ...(options.only === undefined ? {} : { only: options.only }) };
      const outcome = await context.store.locked(id, "keep", (conversation) => {
        assertNoOpenReview(context.store, id);
        const { events, warnings } = conversation.load();
        for (const warning of warnings) context.warn(warning);
        const plan = planPin(events, target);
        if (!plan.ok)
          throw new CxcError("invalid-range", plan.message, {
            hint: "see `cxc conversation print` for the turns and cycles",
          });
        if (plan.kind === "already") return { pin: plan.pin, messages: undefined };
        const pin = buildPinEvent(target, { id: newEventId(), ts: timestampNow() });
        conversation.append([pin]);
        return { pin, messages: plan.messages };
      });
      const what = describePin(outcome.pin);
      if (context.json) {
        context.outJson({
          id,
          pin: outcome.pin.id,
          turn: outcome.pin.turn + 1,
          cycle: outcome.pin.cycle === undefined ? null : outcome.pin.cycle + 1,
          only: outcome.pin.only ?? null,
          already_kept: outcome.messages === undefined,
          messages: outcome.messages ?? null,
        });
      } else if (outcome.messages === undefined) context.out(`${capitalize(what)} is already kept.`);
      else {
        context.out(
          `Kept ${what} verbatim (${formatCount(outcome.messages, "message")}): every compaction leaves them as they are.`,
        );
      }
    });
}

/** `[ID] N|N.C`: the target and the position, or a usage error naming the command. */
export async function readPositionArguments(
  words: readonly string[],
  name: "keep" | "unkeep",
): Promise<{ idArgument: string | undefined; position: { turn: number; cycle?: number } }> {
  if (words.length > 2) {
    throw usageError(
      `too many arguments: ${name} takes [ID] and one position`,
      `e.g. cxc conversation ${name} 3 or ${name} 4.2`,
    );
  }
  const text = words[words.length - 1]!;
  const parsed = parseMessagePosition(text);
  if (!parsed.ok)
    throw new CxcError("invalid-bound", parsed.message, {
      hint: `e.g. cxc conversation ${name} 3 (turn 3) or ${name} 4.2 (cycle 2 of turn 4)`,
    });
  return { idArgument: words.length === 2 ? words[0] : undefined, position: parsed.value };
}
