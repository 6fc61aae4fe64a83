/**
 * `cxc hooks install [--agent claude-code|codex] [--project [DIR] | --user] [--dry-run]`: merges
 * cxc's hook entries into the agent's settings file (docs/inside-agents.md). Every other key and
 * hook stays byte for byte; a second install changes nothing; a file that is not valid JSON is
 * refused and left as it is. `--dry-run` prints the file as it would be and writes nothing.
 */
import { realpathSync } from "node:fs";
import type { Command } from "commander";
import { CliContext, markLightweight } from "../../context.js";
import { readAgent, readScope, type ScopeOptions, withScopeOptions } from "./options.js";

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

export function registerHooksInstall(hooks: Command): void {
  const command = withScopeOptions(
    hooks
      .command("install")
      .description("add cxc's hooks to an agent's settings (advice, and the restore after it compacts)"),
  )
    .option("--dry-run", "print the settings file as it would be; write nothing")
    .action(async (options: InstallOptions, command: Command) => {
      const context = CliContext.from(command);
      context.format();
      const agent = readAgent(options);
      const scope = readScope(options);
      const { AGENT_LABELS, EVENT_PURPOSES, hookCommand, hookEntries, isOursFor, settingsPath } =
        await import("../../hooks/agent-settings.js");
      const { installHooks } = await import("../../../core/interop/agent-hooks.js");
      const { readSettingsText, writeSettingsText } = await import("../../hooks/settings-file.js");
      const { CxcError } = await import("../../../errors.js");
      const path = settingsPath(agent, scope, context.env, context.cwd);
      const before = readSettingsText(path);
      const entries = hookEntries(agent, hookCommand(agent, process.execPath, cxcBin()));
      const result = installHooks(before, entries, isOursFor(agent), path);
      if (!result.ok) {
        throw new CxcError("agent-settings", `${result.error}; nothing was changed`, {
          hint: `fix the file (or move it aside), then run \`cxc hooks install --agent ${agent}\` again`,
        });
      }
      if (result.changed && !options.dryRun) writeSettingsText(path, result.text);
      const label = AGENT_LABELS[agent];
      const what = entries
        .map(
          (entry) =>
            `${entry.event}${entry.matcher === undefined ? "" : ` ${entry.matcher}`} (${EVENT_PURPOSES[entry.event]})`,
        )
        .join(", ");
      if (context.json) {
        context.outJson({
          agent,
          file: path,
          changed: result.changed,
          dry_run: options.dryRun === true,
          events: result.events,
          ...(options.dryRun ? { text: result.text } : {}),
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
        return;
      }
      if (!result.changed) {
        context.out(`cxc's ${label} hooks are already installed in ${path}; nothing changed.`);
        return;
      }
      context.out(`Installed cxc's ${label} hooks in ${path}: ${what}.`);
      if (agent === "codex") {
        context.hint(
          "Codex runs new hooks only once you review and trust them (Codex's /hooks); see docs/inside-agents.md",
        );
      }
      context.hint(`\`cxc hooks status\` shows them; \`cxc hooks uninstall --agent ${agent}\` removes them`);
    });
  markLightweight(command);
}
