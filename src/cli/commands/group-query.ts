/**
 * Registers `cxc query` (alias `q`).
 */
import type { Command } from "commander";
import { registerQuery } from "./query.js";

export function registerQueryCommands(program: Command): void {
  registerQuery(program);
}
