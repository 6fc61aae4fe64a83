/**
 * Registers the `cxc conversation` subcommands of the basic group (one file per command).
 */
import type { Command } from "commander";
import { registerArchive } from "./archive.js";
import { registerEdit } from "./edit.js";
import { registerFork } from "./fork.js";
import { registerGrep } from "./grep.js";
import { registerList } from "./ls.js";
import { registerPrint } from "./print.js";
import { registerRemove } from "./rm.js";
import { registerShow } from "./show.js";
import { registerUnarchive } from "./unarchive.js";
import { registerUse } from "./use.js";

export function registerBasicCommands(conversation: Command): void {
  registerList(conversation);
  registerShow(conversation);
  registerUse(conversation);
  registerPrint(conversation);
  registerFork(conversation);
  registerArchive(conversation);
  registerUnarchive(conversation);
  registerRemove(conversation);
  registerEdit(conversation);
  registerGrep(conversation);
}
