/**
 * `cxc hooks uninstall [--agent claude-code|codex|gemini] [--user | --project [DIR] | --local [DIR]]`:
 * removes cxc's hook entries from the agent's settings file, and the lists and table they leave
 * empty, so a file cxc installed into is as it was before (docs/inside-agents.md). Nothing else
 * is touched; a file the agent would read otherwise is refused and left as it is. When the file
 * holds none of cxc's hooks but another of the agent's files does, the hint names the flags that
 * reach it.
 */
import type { Command } from "commander";
import { CliContext, markLightweight } from "../../context.js";
import { readAgent, readScope, type ScopeOptions, scopeFlags, withScopeOptions } from "./options.js";

export function registerHooksUninstall(hooks: Command): void {
  const command = withScopeOptions(
    hooks.command("uninstall").description("remove cxc's hooks from an agent's settings"),
  ).action(async (options: ScopeOptions, command: Command) => {
    const context = CliContext.from(command);
    context.format();
    const agent = readAgent(options);
    const scope = readScope(options, agent, context.cwd);
    const flags = scopeFlags(agent, scope);
    const { AGENT_LABELS, hasLocalSettings, settingsOptions, settingsPath } = await import(
      "../../hooks/agent-settings.js"
    );
    const { findHooks, uninstallHooks } = await import("../../../core/interop/agent-hooks.js");
    const { editSettingsFile, readSettingsText } = await import("../../hooks/settings-file.js");
    const { CxcError } = await import("../../../errors.js");
    const path = settingsPath(agent, scope, context.env, context.cwd);
    const { result } = editSettingsFile(
      path,
      (text) =>
        text === undefined
          ? { ok: true, text: "", changed: false, events: [] }
          : uninstallHooks(text, settingsOptions(agent, path)),
      (error) =>
        new CxcError("agent-settings", `${error}; nothing was changed`, {
          hint: `fix the file (or remove cxc's entries by hand), then run \`cxc hooks uninstall ${flags}\` again`,
        }),
    );
    if (context.json) {
      context.outJson({
        agent,
        scope: scope.kind,
        file: path,
        changed: result.changed,
        events: result.events,
      });
      return;
    }
    const label = AGENT_LABELS[agent];
    if (result.changed) {
      context.out(`Removed cxc's ${label} hooks from ${path}: ${result.events.join(", ")}.`);
      return;
    }
    context.out(`No cxc ${label} hooks in ${path}; nothing changed.`);
    // Where they are instead, if in another of the agent's files for this directory.
    const others = [
      { kind: "user" } as const,
      { kind: "project", directory: "." } as const,
      ...(hasLocalSettings(agent) ? [{ kind: "local", directory: "." } as const] : []),
    ].filter((other) => settingsPath(agent, other, context.env, context.cwd) !== path);
    for (const other of others) {
      const file = settingsPath(agent, other, context.env, context.cwd);
      let text: string | undefined;
      try {
        text = readSettingsText(file);
      } catch {
        continue;
      }
      const found = text === undefined ? undefined : findHooks(text, settingsOptions(agent, file));
      if (found?.ok && found.value.length > 0) {
        context.hint(
          `cxc's ${label} hooks are in ${file}: \`cxc hooks uninstall ${scopeFlags(agent, other)}\``,
        );
      }
    }
  });
  markLightweight(command);
}
