/**
 * `cxc conversation forget [ID] N [--call C]`, `forget [ID] --pattern P`, `forget [ID] --undo`,
 * `forget [ID] --list`: keeps a turn, one call of it, or every match of a pattern out of recall
 * (docs/recall.md, "Keeping things out of recall"). The model can never read it back with the
 * `recall` tool, in the index, a search or by reference; the log keeps it, and `print`, `compact
 * --reset` and the user see it as before. Appends one `recall_exclusion` event under the
 * conversation's lock; `--undo` appends one that takes back the latest exclusion in force.
 */
import type { Command } from "commander";
import { CxcError, usageError } from "../../../errors.js";
import { CliContext } from "../../context.js";
import {
  activeRecallExclusions,
  describeRecallExclusion,
  planRecallExclusion,
} from "../../../core/conversation/recall.js";
import { newEventId, timestampNow } from "../../../store/index.js";
import { resolveConversation } from "../../targets.js";

interface ForgetOptions {
  readonly call?: string;
  readonly pattern?: string;
  readonly undo?: boolean;
  readonly list?: boolean;
}

function positiveNumber(text: string, what: string): number {
  if (!/^[1-9]\d*$/.test(text.trim()))
    throw usageError(
      `${what} must be a number from 1, not ${JSON.stringify(text)}`,
      "e.g. cxc conversation forget 3 --call 1",
    );
  return Number(text);
}

/** Defines the command on its entry in the registry (index.ts): flags, help and handler. */
export function define(entry: Command): void {
  entry
    .description(
      "keep a turn, a tool call or a pattern out of recall: the model can never read it back (default: the active conversation)",
    )
    .usage("[ID] N [--call C] | [ID] --pattern P | [ID] --undo | [ID] --list")
    .argument("[WORDS...]", "[ID] then N, the turn (1-based)")
    .option("--call <C>", "only call C of turn N (1-based, as the recall index numbers them)")
    .option("--pattern <P>", "every match of P anywhere in the conversation: text, or /regex/flags")
    .option("--undo", "take back the latest exclusion in force")
    .option("--list", "list what is kept out of recall")
    .action(async (words: string[], options: ForgetOptions, command: Command) => {
      const context = CliContext.from(command);
      context.format();
      const modes = [options.pattern !== undefined, options.undo === true, options.list === true].filter(
        Boolean,
      );
      if (modes.length > 1)
        throw usageError("--pattern, --undo and --list do not go together", "give one of them");
      const positional = modes.length === 0 ? 1 : 0;
      if (words.length > positional + 1 || (positional === 1 && words.length === 0)) {
        throw usageError(
          positional === 1
            ? "forget takes [ID] and a turn number"
            : "forget takes only [ID] with this option",
          "e.g. cxc conversation forget 3, forget 3 --call 1, forget --pattern 'sk-[A-Za-z0-9]+'",
        );
      }
      if (options.call !== undefined && positional === 0)
        throw usageError("--call goes with a turn number N");
      const idArgument = words.length > positional ? words[0] : undefined;
      const turn = positional === 1 ? positiveNumber(words[words.length - 1]!, "the turn") - 1 : undefined;
      const call = options.call === undefined ? undefined : positiveNumber(options.call, "--call");
      const id = await resolveConversation(context, idArgument);
      if (options.list === true) {
        const active = activeRecallExclusions(context.store.load(id).events);
        if (context.json) {
          context.outJson({
            id,
            exclusions: active.map((exclusion) => ({
              id: exclusion.id,
              turn: exclusion.turn === undefined ? null : exclusion.turn + 1,
              call: exclusion.call ?? null,
              pattern: exclusion.pattern ?? null,
            })),
          });
        } else if (active.length === 0) context.out("Nothing is kept out of recall.");
        else for (const exclusion of active) context.outUntrusted(`${describeRecallExclusion(exclusion)}\n`);
        return;
      }
      const outcome = await context.store.locked(id, "forget", (conversation) => {
        const { events, warnings } = conversation.load();
        for (const warning of warnings) context.warn(warning);
        const stamp = { id: newEventId(), ts: timestampNow() };
        if (options.undo === true) {
          const latest = activeRecallExclusions(events).at(-1);
          if (latest === undefined)
            throw new CxcError(
              "invalid-range",
              "nothing is kept out of recall: there is nothing to take back",
              {
                hint: "`cxc conversation forget --list` lists what is",
              },
            );
          conversation.append([{ type: "recall_exclusion", ...stamp, retires: [latest.id] }]);
          return { kind: "undone" as const, exclusion: latest };
        }
        const target =
          options.pattern !== undefined
            ? { pattern: options.pattern }
            : { turn: turn!, ...(call === undefined ? {} : { call }) };
        const planned = planRecallExclusion(events, target, stamp);
        if (!planned.ok) {
          if (planned.already !== undefined) return { kind: "already" as const, exclusion: planned.already };
          throw new CxcError(options.pattern !== undefined ? "usage" : "invalid-range", planned.message, {
            hint:
              options.pattern !== undefined
                ? "a pattern is text, or /regex/flags"
                : "`cxc conversation print --compacted --format json` lists the recall index (turns and calls)",
          });
        }
        conversation.append([planned.event]);
        return { kind: "added" as const, exclusion: planned.event };
      });
      const what = describeRecallExclusion(outcome.exclusion);
      if (context.json) {
        context.outJson({ id, [outcome.kind]: outcome.exclusion.id, exclusion: what });
        return;
      }
      if (outcome.kind === "undone") context.out(`Recall may read ${what} again.`);
      else if (outcome.kind === "already") context.out(`${capitalized(what)} is already kept out of recall.`);
      else
        context.out(
          `Kept ${what} out of recall: the model cannot read it back. The log keeps it; \`--undo\` takes this back.`,
        );
    });
}

function capitalized(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}
