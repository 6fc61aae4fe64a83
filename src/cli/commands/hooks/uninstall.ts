/**
 * `cxc hooks uninstall [--agent claude-code|codex] [--project [DIR] | --user]`: removes cxc's hook
 * entries from the agent's settings file, and the lists and table they leave empty, so a file
 * cxc installed into is as it was before (docs/inside-agents.md). Nothing else is touched; a file
 * that is not valid JSON is refused and left as it is.
 */
import type { Command } from "commander";
import { CliContext, markLightweight } from "../../context.js";
import { readAgent, readScope, type ScopeOptions, withScopeOptions } from "./options.js";

export function registerHooksUninstall(hooks: Command): void {
  const command = withScopeOptions(
    hooks.command("uninstall").description("remove cxc's hooks from an agent's settings"),
  ).action(async (options: ScopeOptions, command: Command) => {
    const context = CliContext.from(command);
    context.format();
    const agent = readAgent(options);
    const scope = readScope(options);
    const { AGENT_LABELS, isOursFor, settingsPath } = await import("../../hooks/agent-settings.js");
    const { uninstallHooks } = await import("../../../core/interop/agent-hooks.js");
    const { readSettingsText, writeSettingsText } = await import("../../hooks/settings-file.js");
    const { CxcError } = await import("../../../errors.js");
    const path = settingsPath(agent, scope, context.env, context.cwd);
    const before = readSettingsText(path);
    const result =
      before === undefined
        ? ({ ok: true, text: "", changed: false, events: [] } as const)
        : uninstallHooks(before, isOursFor(agent), path);
    if (!result.ok) {
      throw new CxcError("agent-settings", `${result.error}; nothing was changed`, {
        hint: "fix the file (or remove cxc's entries by hand)",
      });
    }
    if (result.changed) writeSettingsText(path, result.text);
    if (context.json) {
      context.outJson({ agent, file: path, changed: result.changed, events: result.events });
      return;
    }
    const label = AGENT_LABELS[agent];
    context.out(
      result.changed
        ? `Removed cxc's ${label} hooks from ${path}: ${result.events.join(", ")}.`
        : `No cxc ${label} hooks in ${path}; nothing changed.`,
    );
  });
  markLightweight(command);
}
