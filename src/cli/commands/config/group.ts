/**
 * Registers `cxc config` and its subcommands (one file per subcommand).
 */
import type { Command } from "commander";
import { registerConfigShow } from "./show.js";

export function registerConfigCommands(program: Command): void {
  const config = program.command("config").description("inspect the configuration");
  registerConfigShow(config);
}
