/**
 * Registers the top-level commands other than `init` and `conversation` (`config`, `query`).
 */
import type { Command } from "commander";

export function registerTopLevelCommands(program: Command): void {
  void program;
}
