/**
 * `cxc completion bash|zsh|fish`: prints a shell completion script written from the command tree
 * (src/cli/completion/), so commands, subcommands, options and their values complete, and
 * conversation ids come from the store. `--ids` (what the script runs at each Tab) prints the
 * live conversations' ids, one per line (`--archived`: the archived ones); it reads metadata only.
 */
import { Argument, type Command, Option } from "commander";
import { usageError } from "../../errors.js";
import { CliContext, markLightweight } from "../context.js";
import type { CompletionShell } from "../completion/scripts.js";
import { completionTree } from "../completion/tree.js";
import { completionScript } from "../completion/scripts.js";

interface CompletionOptions {
  readonly ids?: boolean;
  readonly archived?: boolean;
}

/** Defines the command on its entry in the registry (index.ts): flags, help and handler. */
export function define(entry: Command): void {
  const command = entry
    .description('print a shell completion script: eval "$(cxc completion bash)" (or zsh, fish)')
    .addArgument(new Argument("[SHELL]", "bash, zsh or fish").choices(["bash", "zsh", "fish"]))
    .addOption(new Option("--ids", "print the conversation ids (what the script completes)").hideHelp())
    .addOption(new Option("--archived", "with --ids: the archived conversations").hideHelp())
    .action(async (shell: string | undefined, options: CompletionOptions, command: Command) => {
      const context = CliContext.from(command);
      if (options.ids) {
        const { conversations } = context.listing.list({ archived: options.archived ?? false });
        for (const { meta } of conversations) context.out(meta.id);
        return;
      }
      if (shell === undefined) {
        throw usageError(
          "name the shell: cxc completion bash, zsh or fish",
          'load it with eval "$(cxc completion bash)"',
        );
      }
      let root = command;
      while (root.parent) root = root.parent;
      process.stdout.write(completionScript(completionTree(root), shell as CompletionShell));
    });
  markLightweight(command);
}
