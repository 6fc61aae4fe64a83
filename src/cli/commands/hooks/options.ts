/**
 * The options `cxc hooks install`, `uninstall` and `status` share: which agent (`--agent`), and
 * which of its settings files (`--user`, the default, or `--project [DIR]`).
 */
import type { Command } from "commander";
import { usageError } from "../../../errors.js";
import type { HookScope } from "../../hooks/agent-settings.js";
import { HOOK_AGENTS, type HookAgent } from "../../hooks/hook-run.js";

export interface ScopeOptions {
  readonly agent?: string;
  readonly project?: string | boolean;
  readonly user?: boolean;
}

/** Adds `--agent`, `--project [DIR]` and `--user`. */
export function withScopeOptions(command: Command): Command {
  return command
    .option("--agent <agent>", `the agent: ${HOOK_AGENTS.join(" or ")}`, "claude-code")
    .option(
      "--project [dir]",
      "the project's settings (DIR/.claude/settings.json; default: the working directory)",
    )
    .option("--user", "the user's settings (~/.claude/settings.json; the default)");
}

/** The agent named by `--agent`; anything else is a usage error. */
export function readAgent(options: ScopeOptions): HookAgent {
  const agent = options.agent ?? "claude-code";
  if (!(HOOK_AGENTS as readonly string[]).includes(agent)) {
    throw usageError(
      `--agent ${agent} is not an agent cxc has hooks for`,
      `use --agent ${HOOK_AGENTS.join(" or --agent ")}`,
    );
  }
  return agent as HookAgent;
}

/** The scope of `--user` / `--project [DIR]`; both at once is a usage error. */
export function readScope(options: ScopeOptions): HookScope {
  if (options.project !== undefined && options.user === true) {
    throw usageError("--project and --user name different files", "give one of them (the default is --user)");
  }
  if (options.project === undefined || options.project === false) return { kind: "user" };
  return { kind: "project", directory: options.project === true ? "." : options.project };
}
