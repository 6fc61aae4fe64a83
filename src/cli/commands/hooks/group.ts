/**
 * Registers `cxc hooks` (install, uninstall, status: one file per subcommand) and `cxc hook`, the
 * command the agents run.
 */
import type { Command } from "commander";
import { registerHooksInstall } from "./install.js";
import { registerHookRun } from "./run.js";
import { registerHooksStatus } from "./status.js";
import { registerHooksUninstall } from "./uninstall.js";

export function registerHooksCommands(program: Command): void {
  const hooks = program.command("hooks").description("install cxc's hooks into Claude Code or Codex");
  registerHooksInstall(hooks);
  registerHooksUninstall(hooks);
  registerHooksStatus(hooks);
  registerHookRun(program);
}
