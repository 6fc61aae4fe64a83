/**
 * Registers the top-level commands other than `init` and `conversation` (`config`, `query`).
 */
import type { Command } from "commander";
import { registerConfigCommands } from "./config/group.js";

export function registerTopLevelCommands(program: Command): void {
  registerConfigCommands(program);
}
