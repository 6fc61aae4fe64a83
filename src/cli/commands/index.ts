/**
 * Registers every command. Each command lives in its own file and exports `register…(parent)`.
 * Command files import only commander and light helpers at load time; their handlers import the
 * store, core and SDK modules lazily.
 */
import type { Command } from "commander";
import { registerBasicCommands } from "./conversation/group-basic.js";
import { registerCompactCommands } from "./conversation/group-compact.js";
import { registerInteropCommands } from "./conversation/group-interop.js";
import { registerNew } from "./conversation/new.js";
import { registerInit } from "./init.js";
import { registerQueryCommands } from "./group-query.js";
import { registerTopLevelCommands } from "./group-top.js";
import { CONVERSATION_GROUP_DESCRIPTION } from "../program.js";

export function registerCommands(program: Command): void {
  registerInit(program);
  const conversation = program.command("conversation").alias("c").description(CONVERSATION_GROUP_DESCRIPTION);
  registerNew(conversation);
  registerBasicCommands(conversation);
  registerInteropCommands(conversation);
  registerCompactCommands(conversation);
  registerTopLevelCommands(program);
  registerQueryCommands(program);
}
