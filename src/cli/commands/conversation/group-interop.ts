/**
 * Registers the `cxc conversation` subcommands of the interop group (one file per command).
 */
import type { Command } from "commander";

export function registerInteropCommands(conversation: Command): void {
  void conversation;
}
