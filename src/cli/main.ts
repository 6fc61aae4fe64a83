/**
 * The cxc entry point (dist/cxc.cjs): the program with every command. Commands are registered
 * from light modules; each handler imports what it needs (store, core, SDKs) when it runs.
 */
import { registerCommands } from "./commands/index.js";
import { runProgram } from "./program.js";

export { VERSION } from "./program.js";

/** Runs cxc with the given arguments; sets `process.exitCode` and never throws. */
export function main(argv: readonly string[]): Promise<void> {
  return runProgram(argv, registerCommands);
}
