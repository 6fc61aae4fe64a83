/**
 * Registers the `cxc conversation` subcommands of the interop group (one file per command).
 */
import type { Command } from "commander";
import { registerExport } from "./export.js";
import { registerImport } from "./import.js";

export function registerInteropCommands(conversation: Command): void {
  registerImport(conversation);
  registerExport(conversation);
}
