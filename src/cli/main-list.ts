/**
 * The entry of dist/list.cjs: the program with `cxc conversation ls` alone. bin/cxc.cjs runs it
 * when the first two words of the command line are `conversation|c` and `ls|list`, so a listing
 * does not load the code of every other command. The program, the global options and the `ls`
 * command are the very ones `main.ts` builds; only the other commands are missing, and nothing
 * that reaches `ls` can tell.
 */
import type { Command } from "commander";
import { define as defineList } from "./commands/conversation/ls.js";
import { CONVERSATION_GROUP_DESCRIPTION, runProgram } from "./program.js";

function registerListOnly(program: Command): void {
  const conversation = program.command("conversation").alias("c").description(CONVERSATION_GROUP_DESCRIPTION);
  defineList(conversation.command("ls").alias("list"));
}

/** Runs `cxc conversation ls …`; sets `process.exitCode` and never throws. */
export function main(argv: readonly string[]): Promise<void> {
  return runProgram(argv, registerListOnly);
}
