/**
 * Registers every command. Each command lives in its own file and exports `register…(parent)`.
 * Command files import only commander at load time; their handlers import everything else lazily.
 */
import type { Command } from "commander";

export function registerCommands(program: Command): void {
  const conversation = program
    .command("conversation")
    .alias("c")
    .description("manage conversations: list, show, print, fork, compact, import, export");
  void conversation;
}
