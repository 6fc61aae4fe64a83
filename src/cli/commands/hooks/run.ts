/**
 * `cxc hook claude-code|codex|gemini`: the command an agent runs as its hook (installed by `cxc hooks
 * install`). It reads the agent's hook input on stdin and prints the hook's output; it always
 * exits 0 and logs failures to the state directory's `hooks.log` (src/cli/hooks/run-hook.ts).
 * bin/cxc.cjs runs exactly these words through dist/hook.cjs, which skips the command-line
 * parser; this registration serves `--help` and calls the same function.
 */
import type { Command } from "commander";
import { markLightweight } from "../../context.js";
import { main } from "../../main-hook.js";

/** Defines the command on its entry in the registry (index.ts): flags, help and handler. */
export function define(entry: Command): void {
  const command = entry
    .description(
      "run as an agent's hook: reads the agent's hook input on stdin (installed by `cxc hooks install`)",
    )
    .argument("<agent>", "claude-code, codex or gemini")
    .action(async (agent: string) => {
      await main(["hook", agent]);
    });
  markLightweight(command);
}
