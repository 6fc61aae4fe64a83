/**
 * `cxc init [DIR]`: creates a workspace (`DIR/.cxc/`), so conversations started under DIR are
 * stored beside the project instead of in the user store.
 */
import type { Command } from "commander";
import { CliContext } from "../context.js";
import { initWorkspace } from "../../store/index.js";

/** Defines the command on its entry in the registry (index.ts): flags, help and handler. */
export function define(entry: Command): void {
  entry
    .description("create a workspace (.cxc/) in DIR (default: the current directory)")
    .argument("[DIR]", "directory to initialise", ".")
    .action(async (directory: string, _options: unknown, command: Command) => {
      const context = CliContext.from(command);
      const result = initWorkspace(directory, context.cwd);
      if (context.json) context.outJson({ path: result.path, created: result.created });
      else
        context.out(
          result.created
            ? `Initialised cxc workspace in ${result.path}`
            : `Workspace already exists: ${result.path}`,
        );
    });
}
