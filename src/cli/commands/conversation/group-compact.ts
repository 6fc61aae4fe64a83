/**
 * Registers the `cxc conversation` subcommands of the compact group (one file per command).
 */
import type { Command } from "commander";
import { registerCompact } from "./compact.js";
import { registerForget } from "./forget.js";
import { registerKeep } from "./keep.js";
import { registerStats } from "./stats.js";
import { registerUnkeep } from "./unkeep.js";

export function registerCompactCommands(conversation: Command): void {
  registerCompact(conversation);
  registerStats(conversation);
  registerKeep(conversation);
  registerUnkeep(conversation);
  registerForget(conversation);
}
