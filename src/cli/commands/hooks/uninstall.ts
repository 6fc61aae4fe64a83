/**
 * `cxc hooks uninstall [--agent claude-code|codex|gemini|opencode] [--user | --project [DIR] | --local
 * [DIR]]` (or `--all [--project DIR]`: everything cxc put into the five agents, everything.ts): removes cxc's hook entries from the agent's settings file, and the lists and table they
 * leave empty (opencode: cxc's plugin file, and the `plugins/` folder it leaves empty), so a file cxc installed into is as it was before (docs/inside-agents.md). Nothing else
 * is touched; a file the agent would read otherwise is refused and left as it is. When the file
 * holds none of cxc's hooks but another of the agent's files does, the hint names the flags that
 * reach it.
 */
import type { Command } from "commander";
import { CliContext, markLightweight } from "../../context.js";
import {
  absoluteScope,
  readAgent,
  readScope,
  requireDirectory,
  type ScopeOptions,
  scopeFlags,
  settingsFileReport,
  withScopeOptions,
} from "./options.js";
import { usageError, CxcError } from "../../../errors.js";
import { AGENT_LABELS, hasLocalSettings, settingsOptions, settingsPath } from "../../hooks/agent-settings.js";
import { findHooks, uninstallHooks } from "../../../core/interop/agent-hooks.js";
import { editSettingsFile, readSettingsText } from "../../hooks/settings-file.js";
import { agentLabel, inspectPlace, installPlaces, removalEdit } from "../../hooks/everything.js";
import { removePluginFile } from "../../hooks/opencode-plugin.js";
import { resolve } from "node:path";
import { unregisterMcpServer } from "../../hooks/mcp-registration.js";

/** Defines the command on its entry in the registry (index.ts): flags, help and handler. */
export function define(entry: Command): void {
  const command = withScopeOptions(entry.description("remove cxc's hooks from an agent's settings"))
    .option(
      "--all",
      "remove everything cxc put into the five agents (hooks, opencode's plugin, pi's package), the user's files and the project's (--project DIR)",
    )
    .action(async (options: ScopeOptions & { all?: boolean }, command: Command) => {
      const context = CliContext.from(command);
      context.format();
      if (options.all === true) {
        const named = ["agent", "local", "user"].filter(
          (name) => command.getOptionValueSource(name) === "cli",
        );
        if (named.length > 0) {
          throw usageError(
            `--all takes every agent's files, the user's and one project's: it does not go with --${named.join(" or --")}`,
            "give --all alone, or with --project DIR for another project than the working directory",
          );
        }
        await uninstallAll(context, typeof options.project === "string" ? options.project : ".");
        return;
      }
      const agent = readAgent(options);
      const scope = readScope(options, agent, context.cwd);
      const flags = scopeFlags(agent, scope);
      const path = settingsPath(agent, scope, context.env, context.cwd);
      if (agent === "opencode") {
        await uninstallPlugin(context, path, flags);
        return;
      }
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
      // cxc's MCP server (recall), taken out through the agent's own command as it was added.
      const mcp =
        agent === "claude-code" || agent === "codex"
          ? unregisterMcpServer(agent, absoluteScope(scope, context.cwd), context.env)
          : undefined;
      if (context.json) {
        context.outJson({
          ...settingsFileReport(agent, scope, path, result.changed),
          events: result.events,
          ...(mcp === undefined ? {} : { mcp: { removed: mcp.done } }),
        });
        return;
      }
      if (mcp !== undefined && mcp.message !== "") {
        if (mcp.done) context.out(mcp.message);
        else context.warn(mcp.message);
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

/**
 * `--all`: everything cxc put into the five agents (src/cli/hooks/everything.ts). Every file is
 * read first; one the agent would not read is one error naming each such file, and nothing is
 * changed anywhere. Then each of cxc's entries is taken out as `uninstall` takes it out, every
 * other byte kept.
 */
async function uninstallAll(context: CliContext, directory: string): Promise<void> {
  const project = resolve(context.cwd, directory);
  requireDirectory(project);
  const reports = installPlaces(context.env, context.cwd, directory).map((place) =>
    inspectPlace(place, context.env),
  );
  const problems = reports.filter((report) => report.problem !== undefined);
  if (problems.length > 0) {
    throw new CxcError(
      "agent-settings",
      `${problems.map((report) => `${report.file}: ${report.problem}`).join("; ")}; nothing was changed`,
      { hint: "fix or move aside the files named, then run `cxc hooks uninstall --all` again" },
    );
  }
  const removed: { agent: string; scope: string; file: string; items: readonly string[] }[] = [];
  for (const report of reports) {
    if (report.items.length === 0) continue;
    if (report.kind === "plugin") {
      const outcome = removePluginFile(report.file, readSettingsText(report.file));
      if (outcome.removed)
        removed.push({ agent: report.agent, scope: report.scope.kind, file: report.file, items: ["plugin"] });
      continue;
    }
    const { result } = editSettingsFile(
      report.file,
      removalEdit(report, context.env),
      (error) => new CxcError("agent-settings", `${error}; the files listed before it were changed already`),
    );
    if (result.changed) {
      removed.push({
        agent: report.agent,
        scope: report.scope.kind,
        file: report.file,
        items: result.events,
      });
    }
  }
  // cxc's MCP server (recall), through the agents' own commands where they are on PATH.
  for (const [agent, scope] of [
    ["claude-code", { kind: "user" }],
    ["claude-code", { kind: "project", directory: project }],
    ["codex", { kind: "user" }],
  ] as const) {
    const outcome = unregisterMcpServer(agent, scope, context.env);
    if (outcome.done)
      removed.push({
        agent,
        scope: scope.kind,
        file: `${agent === "codex" ? "codex" : "claude"} mcp`,
        items: ["MCP server cxc"],
      });
  }
  if (context.json) {
    context.outJson({ all: true, removed, checked: reports.length });
    return;
  }
  if (removed.length === 0) {
    context.out(`cxc is in none of the agents (checked ${reports.length} files); nothing changed.`);
    return;
  }
  const lines = removed.map(
    (entry) =>
      `Removed from ${agentLabel(entry.agent as Parameters<typeof agentLabel>[0])}, ${entry.scope} (${entry.file}): ${entry.items.join(", ")}`,
  );
  context.out(lines.join("\n"));
}

/** opencode: removes cxc's plugin file (never a file of the user's). */
async function uninstallPlugin(context: CliContext, path: string, flags: string): Promise<void> {
  const outcome = removePluginFile(path, readSettingsText(path));
  if (outcome.error !== undefined) {
    throw new CxcError("agent-settings", `${outcome.error}; nothing was changed`, {
      hint: `remove it yourself if it is cxc's, or leave it; \`cxc hooks uninstall ${flags}\` only removes cxc's own file`,
    });
  }
  if (context.json) {
    context.outJson({
      agent: "opencode",
      file: path,
      changed: outcome.removed,
      events: outcome.removed ? ["plugin"] : [],
    });
    return;
  }
  context.out(
    outcome.removed
      ? `Removed cxc's opencode plugin ${path}.`
      : `No cxc opencode plugin at ${path}; nothing changed.`,
  );
}
