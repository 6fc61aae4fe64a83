/**
 * Registers the `cxc conversation` subcommands of the compact group (one file per command).
 */
import type { Command } from "commander";

export function registerCompactCommands(conversation: Command): void {
  void conversation;
}
