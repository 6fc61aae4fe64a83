/**
 * `cxc query [MESSAGE...]` (alias `q`): continue a conversation with one turn. A thin handler:
 * flags are parsed here, the terminal pieces are built here, and `src/query/run-query.ts` does the
 * rest. See docs/query.md.
 */
import { type Command, Option } from "commander";
import { CliContext } from "../context.js";
import type { QueryFlags } from "../terminal/query-command.js";
import { runQueryCommand } from "../terminal/query-command.js";

/** Defines the command on its entry in the registry (index.ts): flags, help and handler. */
export function define(entry: Command): void {
  // -t and -T share one list so their order on the command line is kept.
  const directives: { name: string; enable: boolean }[] = [];
  const direct = (enable: boolean) => (name: string) => {
    directives.push({ name, enable });
    return directives;
  };
  entry
    .description("send a message to the active (or given) conversation and stream the answer")
    .argument("[MESSAGE...]", "the message; `-` reads stdin (also read when stdin is a pipe)")
    .option("--new", "start a new conversation")
    .option("--id <ID>", "the conversation to continue (id or unique prefix); it becomes active")
    .option(
      "-m, --model <MODEL>",
      "model, e.g. anthropic/claude-sonnet-4-6; it sticks: the conversation's later turns, its compact tool and its reviews use it too",
    )
    .addOption(
      new Option("-t, --tool <NAME>", "enable a tool (repeatable, applied in order)").argParser(direct(true)),
    )
    .addOption(
      new Option("-T, --disable-tool <NAME>", "disable a tool (repeatable, applied in order)").argParser(
        direct(false),
      ),
    )
    .option("-u, --tool-use <NAME>", "make the model call NAME on the first cycle (implies -t NAME)")
    .option("-k, --compact [SPEC]", "compact before the turn: bare for the configured rules, or -k=SPEC")
    .option("--native", "with -k: summaries are the provider's own on-demand compaction (Anthropic models)")
    .option("--fork [N]", "continue on a fork; --fork=N keeps the last N turns")
    .option("--no-stream", "print the answer once it is complete")
    .option("--non-interactive", "never prompt; tools that need approval are refused")
    .option("--reasoning", "show reasoning on stderr even when it is not a terminal")
    .option("--max-cycles <N>", "most model requests in this turn (default: conversation.max_cycles or 25)")
    .action(async (words: string[], flags: QueryFlags, command: Command) => {
      const context = CliContext.from(command);
      await runQueryCommand(context, rawArguments(command), words, { ...flags, tool: directives });
    });
}

function rawArguments(command: Command): string[] {
  let root = command;
  while (root.parent) root = root.parent;
  return (root as unknown as { rawArgs?: string[] }).rawArgs ?? [];
}
