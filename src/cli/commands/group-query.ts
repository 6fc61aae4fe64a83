/**
 * Registers `cxc query` (alias `q`).
 */
import type { Command } from "commander";

export function registerQueryCommands(program: Command): void {
  void program;
}
