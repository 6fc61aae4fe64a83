/**
 * The cxc entry point (dist/cxc.cjs): the program with every command. The command registry
 * (commands/index.ts) lists them all and loads the modules of the one the command line runs.
 */
import { loadCommands } from "./commands/index.js";
import { runProgram } from "./program.js";

export { VERSION } from "./program.js";

/** Runs cxc with the given arguments; sets `process.exitCode` and never throws. */
export function main(argv: readonly string[]): Promise<void> {
  // The command line's own command is loaded before the program is built (commands/index.ts).
  return loadCommands(argv).then((registerCommands) => runProgram(argv, registerCommands));
}
