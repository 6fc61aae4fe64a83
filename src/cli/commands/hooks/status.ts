/**
 * `cxc hooks status [--all [--project DIR]] [--reset SESSION|all]`: for each agent, which of its
 * settings files (the user's, and the working directory's project and local ones) hold cxc's hooks
 * (`--all`: everything cxc put into the five agents, opencode's plugin and pi's package too), whether the
 * programs those commands run still exist, and what the hooks' log says: its failures and its
 * notes (docs/inside-agents.md). `--reset` forgets what the advice recorded of one agent session
 * (or of all, and the decision model's last failure too), so its next `Stop` announces as if new:
 * after a hand-run `Stop` that used up the announcement, say.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { Command } from "commander";
import { CliContext, markLightweight } from "../../context.js";
import { scopeFlags } from "./options.js";
import { AGENT_LABELS, hasLocalSettings, settingsOptions, settingsPath } from "../../hooks/agent-settings.js";
import { findHooks } from "../../../core/interop/agent-hooks.js";
import { HOOK_AGENTS } from "../../hooks/hook-run.js";
import { hookLogPath, isNoteLine, hookSessionsDirectory, hookStatePath } from "../../hooks/state.js";
import { readSettingsText } from "../../hooks/settings-file.js";
import { opencodePluginPaths } from "../../hooks/opencode-plugin.js";
import { agentLabel, inspectPlace, installPlaces } from "../../hooks/everything.js";

/** The absolute paths a hook command runs (the words before `hook`), unquoted. */
function commandPaths(command: string): string[] {
  const words = (command.match(/'[^']*'|"[^"]*"|\S+/g) ?? []).map((word) => word.replace(/^['"]|['"]$/g, ""));
  const at = words.indexOf("hook");
  return words.slice(0, at < 0 ? words.length : at).filter((word) => isAbsolute(word));
}

/** Defines the command on its entry in the registry (index.ts): flags, help and handler. */
export function define(entry: Command): void {
  const command = entry
    .description("show where cxc's hooks are installed and what their log says")
    .option(
      "--reset <session>",
      "forget what the advice recorded of an agent session (its id, or `all`), so it announces as if new",
    )
    .option(
      "--all",
      "everything cxc put into the five agents (hooks, opencode's plugin, pi's package), the user's files and the project's",
    )
    .option("--project <dir>", "with --all: the project's files in DIR (default: the working directory)")
    .action(async (options: { reset?: string; all?: boolean; project?: string }, command: Command) => {
      const context = CliContext.from(command);
      context.format();
      if (options.reset !== undefined) {
        await resetSessions(context, options.reset);
        return;
      }
      if (options.all === true) {
        await statusAll(context, options.project ?? ".");
        return;
      }
      const rows = [];
      for (const agent of HOOK_AGENTS) {
        const scopes = [
          { kind: "user" } as const,
          { kind: "project", directory: "." } as const,
          ...(hasLocalSettings(agent) ? [{ kind: "local", directory: "." } as const] : []),
        ];
        for (const scope of scopes) {
          const file = settingsPath(agent, scope, context.env, context.cwd);
          let text: string | undefined;
          let problem: string | undefined;
          try {
            text = readSettingsText(file);
          } catch (error) {
            problem = (error as Error).message;
          }
          let installed: { event: string; matcher?: string; command: string }[] = [];
          let paths: string[] = [];
          if (agent === "opencode") {
            const named = text === undefined ? undefined : opencodePluginPaths(text);
            if (text !== undefined && named === undefined)
              problem = "not cxc's plugin file (a file of yours)";
            installed = named === undefined ? [] : [{ event: "plugin", command: file }];
            paths = named ?? [];
          } else {
            const found = text === undefined ? undefined : findHooks(text, settingsOptions(agent, file));
            if (found !== undefined && !found.ok) problem = found.error.replace(`${file} `, "");
            installed = found?.ok ? [...found.value] : [];
            paths = installed.flatMap((hook) => commandPaths(hook.command));
          }
          const missing = [...new Set(paths)].filter((path) => !existsSync(path));
          rows.push({
            agent,
            scope: scope.kind,
            file,
            exists: text !== undefined,
            installed,
            missing,
            problem,
          });
        }
      }
      const logPath = hookLogPath(context.env);
      const logLines = existsSync(logPath) ? readFileSync(logPath, "utf8").split("\n").filter(Boolean) : [];
      const failures = logLines.filter((line) => !isNoteLine(line));
      const notes = logLines.filter(isNoteLine);
      const rotated = existsSync(`${logPath}.1`);
      if (context.json) {
        context.outJson({
          agents: rows.map(({ agent, scope, file, exists, installed, missing, problem }) => ({
            agent,
            scope,
            file,
            exists,
            installed,
            missing_programs: missing,
            ...(problem === undefined ? {} : { problem }),
          })),
          log: {
            file: logPath,
            failures: failures.length,
            notes: notes.length,
            ...(failures.length > 0 ? { last: failures.at(-1) } : {}),
            ...(notes.length > 0 ? { last_note: notes.at(-1) } : {}),
            ...(rotated ? { older: `${logPath}.1` } : {}),
          },
        });
        return;
      }
      const lines: string[] = [];
      for (const row of rows) {
        const where = `${AGENT_LABELS[row.agent]}, ${row.scope} (${row.file})`;
        if (row.problem !== undefined) lines.push(`${where}: ${row.problem}`);
        else if (row.installed.length === 0) lines.push(`${where}: not installed`);
        else {
          const events = row.installed.map(
            (hook) => `${hook.event}${hook.matcher === undefined ? "" : ` ${hook.matcher}`}`,
          );
          lines.push(`${where}: installed: ${events.join(", ")}`);
          for (const path of row.missing)
            lines.push(
              `  ${path} no longer exists: run \`cxc hooks install ${scopeFlags(row.agent, row.scope === "user" ? { kind: "user" } : { kind: row.scope, directory: "." })}\` again`,
            );
        }
      }
      lines.push(
        failures.length === 0
          ? `Hook log (${logPath}): no failures`
          : `Hook log (${logPath}): ${failures.length} ${failures.length === 1 ? "failure" : "failures"}, the last: ${failures.at(-1)}`,
      );
      if (notes.length > 0) {
        lines.push(`  ${notes.length} ${notes.length === 1 ? "note" : "notes"}, the last: ${notes.at(-1)}`);
      }
      if (rotated) lines.push(`  older lines: ${logPath}.1`);
      context.outUntrusted(lines.join("\n"));
    });
  markLightweight(command);
}

/** The hooks' log: its failures and notes apart, and whether older lines were moved aside. */
async function hookLog(context: CliContext) {
  const file = hookLogPath(context.env);
  const lines = existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
  return {
    file,
    failures: lines.filter((line) => !isNoteLine(line)),
    notes: lines.filter(isNoteLine),
    rotated: existsSync(`${file}.1`),
  };
}

/**
 * `--all`: everything cxc put into the five agents, in the user's files and the project's
 * (src/cli/hooks/everything.ts); the places that hold nothing of cxc's are counted, not listed.
 */
async function statusAll(context: CliContext, directory: string): Promise<void> {
  const reports = installPlaces(context.env, context.cwd, directory).map((place) =>
    inspectPlace(place, context.env),
  );
  const log = await hookLog(context);
  if (context.json) {
    context.outJson({
      all: true,
      places: reports.map(({ agent, scope, file, kind, exists, items, missing, problem, foreign }) => ({
        agent,
        scope: scope.kind,
        file,
        kind,
        exists,
        installed: items,
        missing_programs: missing,
        ...(problem === undefined ? {} : { problem }),
        ...(foreign === true ? { foreign: true } : {}),
      })),
      log: { file: log.file, failures: log.failures.length, notes: log.notes.length },
    });
    return;
  }
  const lines: string[] = [];
  for (const report of reports) {
    const where = `${agentLabel(report.agent)}, ${report.scope.kind} (${report.file})`;
    if (report.problem !== undefined) lines.push(`${where}: ${report.problem}`);
    else if (report.foreign === true) lines.push(`${where}: a file of yours, not cxc's; left alone`);
    else if (report.items.length > 0) {
      lines.push(
        `${where}: ${report.kind === "hooks" ? "hooks: " : report.kind === "package" ? "package: " : ""}${report.items.join(", ")}`,
      );
      for (const path of report.missing) lines.push(`  ${path} no longer exists`);
    }
  }
  const found = reports.filter((report) => report.items.length > 0).length;
  const checked = `checked ${reports.length} files of Claude Code, Codex, Gemini CLI, opencode and pi, the user's and ${directory === "." ? "the working directory's" : `${directory}'s`}`;
  lines.push(
    found === 0
      ? `cxc is in none of the agents (${checked}).`
      : `cxc is in ${found} ${found === 1 ? "place" : "places"} (${checked}); \`cxc hooks uninstall --all\` removes ${found === 1 ? "it" : "them all"}.`,
  );
  lines.push(
    "cxc's MCP server (recall) is registered through the agents' own commands, not in these files: `claude mcp list` and `codex mcp list` show it; `cxc hooks uninstall --all` removes it too. cxc switches no agent setting on.",
  );
  lines.push(
    log.failures.length === 0
      ? `Hook log (${log.file}): no failures`
      : `Hook log (${log.file}): ${log.failures.length} ${log.failures.length === 1 ? "failure" : "failures"}, the last: ${log.failures.at(-1)}`,
  );
  context.outUntrusted(lines.join("\n"));
}

/** `--reset`: removes the records of one session (of either agent), or of all. */
async function resetSessions(context: CliContext, session: string): Promise<void> {
  const removed: string[] = [];
  const remove = (path: string): void => {
    if (!existsSync(path)) return;
    rmSync(path, { force: true });
    removed.push(path);
  };
  const directory = hookSessionsDirectory(context.env);
  for (const agent of HOOK_AGENTS) {
    if (session !== "all") remove(hookStatePath(context.env, agent, session));
    else {
      let names: string[] = [];
      try {
        names = readdirSync(join(directory, agent));
      } catch {
        names = [];
      }
      for (const name of names) if (name.endsWith(".json")) remove(join(directory, agent, name));
    }
  }
  if (session === "all") remove(join(directory, "decision-model.json"));
  if (context.json) {
    context.outJson({ reset: session, removed });
    return;
  }
  if (removed.length === 0) {
    context.outUntrusted(
      session === "all" ? "No records to reset." : `No record of the session ${session}; nothing to reset.`,
    );
    return;
  }
  context.outUntrusted(
    session === "all"
      ? `Reset ${removed.length} ${removed.length === 1 ? "record" : "records"} of cxc's hooks: every session's next Stop announces as if new.`
      : `Reset the record of the session ${session}: its next Stop announces as if new.`,
  );
}
