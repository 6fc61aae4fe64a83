/**
 * `cxc conversation rm ID... [-y]`: deletes conversations for good (live or archived).
 *
 * Every id is resolved before anything is removed, so one bad id removes nothing. Without `-y` it
 * asks at a terminal; without a terminal it refuses (exit 2) rather than guess. Declining removes
 * nothing and exits 1.
 */
import type { Command } from "commander";
import { CxcError, ExitCode } from "../../../errors.js";
import { CliContext } from "../../context.js";
import { openPromptTerminal } from "../../terminal/tty.js";
import { confirmKey } from "../../terminal/confirm.js";

/** Defines the command on its entry in the registry (index.ts): flags, help and handler. */
export function define(entry: Command): void {
  entry
    .description("delete conversations permanently")
    .argument("<ID...>", "conversation ids or unique prefixes")
    .option("-y, --yes", "do not ask for confirmation")
    .action(async (idArguments: string[], options: { yes?: boolean }, command: Command) => {
      const context = CliContext.from(command);
      context.format();
      const ids = [...new Set(idArguments.map((argument) => context.store.resolveId(argument)))];
      if (!options.yes) {
        const terminal = openPromptTerminal();
        if (terminal === undefined) {
          throw new CxcError("usage", `refusing to delete ${describe(ids)} without confirmation`, {
            hint: "pass -y (--yes) to delete without asking",
          });
        }
        let answer: Awaited<ReturnType<typeof confirmKey>>;
        try {
          answer = await confirmKey(terminal, `Delete ${describe(ids)} permanently?`);
        } finally {
          terminal.close();
        }
        if (answer === "interrupt") {
          throw new CxcError("interrupted", "interrupted; nothing was deleted", {
            exitCode: ExitCode.interrupted,
          });
        }
        if (answer === "no") {
          context.info("Nothing deleted.");
          // Declining is not an error, but scripts should be able to tell it from success.
          process.exitCode = 1;
          return;
        }
      }
      for (const id of ids) await context.store.remove(id);
      if (context.json) {
        context.outJson({ removed: ids });
        return;
      }
      context.out(`Deleted ${describe(ids)}.`);
    });
}

function describe(ids: readonly string[]): string {
  return ids.length === 1 ? `conversation ${ids[0]}` : `${ids.length} conversations (${ids.join(", ")})`;
}
