/**
 * The entry of dist/query.cjs: the program with `cxc query` (`q`) alone. bin/cxc.cjs runs it when
 * the first word of the command line is `q` or `query`, so a turn loads the code of that one
 * command and what it imports, not every other command's (on Node 20, which has no compile cache,
 * every run compiles the bundle it loads). The program, the global options and the `q` command
 * are the very ones `main.ts` builds; only the other commands are missing, and nothing that
 * reaches `q` can tell.
 */
import type { Command } from "commander";
import { define as defineQuery } from "./commands/query.js";
import { runProgram } from "./program.js";

function registerQueryOnly(program: Command): void {
  defineQuery(program.command("query").alias("q"));
}

/** Runs `cxc q …`; sets `process.exitCode` and never throws. */
export function main(argv: readonly string[]): Promise<void> {
  return runProgram(argv, registerQueryOnly);
}
