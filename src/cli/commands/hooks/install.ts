/**
 * `cxc hooks install [--agent claude-code|codex|gemini|opencode] [--user | --project [DIR] | --local
 * [DIR]] [--dry-run]`: adds cxc's hook entries to the agent's settings file, or for opencode writes
 * cxc's plugin file into its `plugins/` folder (docs/inside-agents.md). Every
 * other byte stays; a second install changes nothing; a file the agent would read otherwise is
 * refused and left as it is (src/core/interop/agent-hooks.ts, src/cli/hooks/settings-file.ts).
 * `--dry-run` prints the file as it would be and writes nothing. Every hint repeats the flags that
 * chose the file; `--project` warns that the project's file is usually committed.
 */
import { realpathSync } from "node:fs";
import type { Command } from "commander";
import { CliContext, markLightweight } from "../../context.js";
import {
  absoluteScope,
  readAgent,
  readScope,
  type ScopeOptions,
  scopeFlags,
  settingsFileReport,
  withScopeOptions,
} from "./options.js";
import {
  AGENT_LABELS,
  EVENT_PURPOSES,
  hookCommand,
  hookEntries,
  settingsOptions,
  settingsPath,
  geminiHooksSwitchedOff,
} from "../../hooks/agent-settings.js";
import { installHooks } from "../../../core/interop/agent-hooks.js";
import { installPluginEdit, opencodePluginText } from "../../hooks/opencode-plugin.js";
import { editSettingsFile } from "../../hooks/settings-file.js";
import { CxcError } from "../../../errors.js";
import { registerMcpServer } from "../../hooks/mcp-registration.js";

interface InstallOptions extends ScopeOptions {
  readonly dryRun?: boolean;
}

/** This cxc's bin script, as the agent should run it. */
function cxcBin(): string {
  const script = process.argv[1] ?? "";
  try {
    return realpathSync(script);
  } catch {
    return script;
  }
}

/** Defines the command on its entry in the registry (index.ts): flags, help and handler. */
export function define(entry: Command): void {
  const command = withScopeOptions(
    entry.description("add cxc's hooks to an agent's settings (advice, and the restore after it compacts)"),
  )
    .option("--dry-run", "print the settings file as it would be; write nothing")
    .action(async (options: InstallOptions, command: Command) => {
      const context = CliContext.from(command);
      context.format();
      const agent = readAgent(options);
      const scope = readScope(options, agent, context.cwd);
      const flags = scopeFlags(agent, scope);
      const path = settingsPath(agent, scope, context.env, context.cwd);
      // opencode's entry is a plugin file of cxc's own; the others', entries in a settings file.
      const entries =
        agent === "opencode"
          ? [{ event: "plugin" }]
          : hookEntries(agent, hookCommand(agent, process.execPath, cxcBin()));
      const plugin = agent === "opencode" ? opencodePluginText(process.execPath, cxcBin()) : undefined;
      const { result } = editSettingsFile(
        path,
        (text) =>
          agent === "opencode"
            ? installPluginEdit(text, plugin!, path)
            : installHooks(
                text,
                hookEntries(agent, hookCommand(agent, process.execPath, cxcBin())),
                settingsOptions(agent, path),
              ),
        (error) =>
          new CxcError("agent-settings", `${error}; nothing was changed`, {
            hint:
              agent === "opencode"
                ? `move it aside, then run \`cxc hooks install ${flags}\` again`
                : `fix the file (or move it aside), then run \`cxc hooks install ${flags}\` again`,
          }),
        { write: options.dryRun !== true },
      );
      // Claude Code and Codex: cxc's MCP server (recall), through the agent's own command.
      let mcp: { done: boolean; message: string; command?: string } | undefined;
      if (agent === "claude-code" || agent === "codex") {
        mcp = registerMcpServer(
          agent,
          absoluteScope(scope, context.cwd),
          [process.execPath, cxcBin(), "mcp", "--agent", agent],
          context.env,
          { dryRun: options.dryRun === true },
        );
      }
      const sayMcp = (): void => {
        if (mcp === undefined || mcp.message === "") return;
        if (mcp.done) context.out(mcp.message);
        else if (options.dryRun === true) context.info(mcp.message);
        else context.hint(mcp.message);
      };
      const label = AGENT_LABELS[agent];
      const what = entries
        .map(
          (entry) =>
            `${entry.event}${"matcher" in entry && entry.matcher !== undefined ? ` ${entry.matcher}` : ""} (${EVENT_PURPOSES[entry.event]})`,
        )
        .join(", ");
      if (context.json) {
        context.outJson({
          ...settingsFileReport(agent, scope, path, result.changed),
          dry_run: options.dryRun === true,
          events: result.events,
          ...(options.dryRun ? { text: result.text } : {}),
          ...(mcp === undefined
            ? {}
            : {
                mcp: { registered: mcp.done, ...(mcp.command === undefined ? {} : { command: mcp.command }) },
              }),
        });
        return;
      }
      if (options.dryRun) {
        context.info(
          result.changed
            ? `dry run: ${path} would hold cxc's ${label} hooks (${what}); nothing was written.`
            : `dry run: cxc's ${label} hooks are already in ${path}; nothing would change.`,
        );
        context.outUntrusted(result.text);
        sayMcp();
        return;
      }
      if (!result.changed) {
        context.out(`cxc's ${label} hooks are already installed in ${path}; nothing changed.`);
        sayMcp();
        return;
      }
      context.out(
        agent === "opencode"
          ? `Installed cxc's opencode plugin as ${path}: ${what}.`
          : `Installed cxc's ${label} hooks in ${path}: ${what}.`,
      );
      sayMcp();
      if (scope.kind === "project") {
        context.warn(
          `${path} is usually committed with the project, and it now holds this machine's paths to Node and cxc` +
            (agent === "claude-code"
              ? "; `--local` writes .claude/settings.local.json instead, Claude Code's file for this machine only"
              : ""),
        );
      }
      if (agent === "gemini") {
        if (geminiHooksSwitchedOff(result.text)) {
          context.warn(
            `${path} switches Gemini CLI's hooks off (hooksConfig.enabled is false): cxc's hooks run once it is true; cxc leaves that setting to you`,
          );
        }
        if (scope.kind === "project") {
          context.hint(
            "Gemini CLI runs a project's hooks only in a folder you trust (its folder-trust prompt, or /permissions)",
          );
        }
      }
      if (agent === "opencode") {
        context.hint("opencode loads it when it starts; a running opencode needs a restart");
      }
      if (agent === "codex") {
        context.hint(
          "Codex runs new hooks only once you review and trust them (Codex's /hooks); see docs/inside-agents.md",
        );
      }
      context.hint(`\`cxc hooks status\` shows them; \`cxc hooks uninstall ${flags}\` removes them`);
    });
  markLightweight(command);
}
