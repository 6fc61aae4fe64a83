/**
 * Registers the `cxc conversation` subcommands of the basic group (one file per command).
 */
import type { Command } from "commander";

export function registerBasicCommands(conversation: Command): void {
  void conversation;
}
