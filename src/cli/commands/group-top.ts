/**
 * Registers the top-level commands other than `init`, `conversation` and `query`: `config` and
 * `completion`.
 */
import type { Command } from "commander";
import { registerCompletion } from "./completion.js";
import { registerConfigCommands } from "./config/group.js";

export function registerTopLevelCommands(program: Command): void {
  registerConfigCommands(program);
  registerCompletion(program);
}
