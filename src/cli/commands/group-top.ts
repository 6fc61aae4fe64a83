/**
 * Registers the top-level commands other than `init` and `conversation` (`config`, `hooks`,
 * `hook`, `mcp`, `completion`; `query` has a group of its own).
 */
import type { Command } from "commander";
import { registerCompletion } from "./completion.js";
import { registerConfigCommands } from "./config/group.js";
import { registerHooksCommands } from "./hooks/group.js";
import { registerMcp } from "./mcp.js";

export function registerTopLevelCommands(program: Command): void {
  registerConfigCommands(program);
  registerHooksCommands(program);
  registerMcp(program);
  registerCompletion(program);
}
