/**
 * `cxc mcp [--agent claude-code|codex]`: the MCP server Claude Code and Codex start (registered by
 * `cxc hooks install`): `recall` over the session's own transcript, on stdin/stdout
 * (src/cli/mcp/server.ts, docs/recall.md).
 */
import type { Command } from "commander";
import { usageError } from "../../errors.js";
import { CliContext } from "../context.js";
import { MCP_AGENTS, serveMcp } from "../mcp/server.js";
import { loadConfig } from "../config.js";
import { querySettingsOfRecall } from "../../query/recall.js";
import { VERSION } from "../version.js";

/** Defines the command on its entry in the registry (index.ts): flags, help and handler. */
export function define(entry: Command): void {
  entry
    .description(
      "an MCP server on stdio offering `recall` over the Claude Code or Codex session that started it (registered by `cxc hooks install`)",
    )
    .option("--agent <AGENT>", "the agent that runs it: claude-code or codex", "claude-code")
    .action(async (options: { agent: string }, command: Command) => {
      const context = CliContext.from(command);
      if (!(MCP_AGENTS as readonly string[]).includes(options.agent))
        throw usageError(
          `cxc mcp serves ${MCP_AGENTS.join(" or ")}, not ${JSON.stringify(options.agent)}`,
          "--agent claude-code or --agent codex",
        );
      const settings = querySettingsOfRecall(
        loadConfig({ cwd: context.cwd, env: context.env, overlays: context.options.cfg }).values,
      );
      await serveMcp({
        agent: options.agent as "claude-code" | "codex",
        env: context.env,
        settings,
        version: VERSION,
        // A session exported from cxc names its conversation: read-only, from the store.
        loadConversation: (id) => {
          try {
            return context.store.load(id).events;
          } catch {
            return undefined;
          }
        },
      });
    });
}
