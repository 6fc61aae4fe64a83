/**
 * `cxc hooks status [--reset SESSION|all]`: for each agent, which of its settings files (the
 * user's, and the working directory's project and local ones) hold cxc's hooks, whether the
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

/** The absolute paths a hook command runs (the words before `hook`), unquoted. */
function commandPaths(command: string): string[] {
  const words = (command.match(/'[^']*'|"[^"]*"|\S+/g) ?? []).map((word) => word.replace(/^['"]|['"]$/g, ""));
  const at = words.indexOf("hook");
  return words.slice(0, at < 0 ? words.length : at).filter((word) => isAbsolute(word));
}

export function registerHooksStatus(hooks: Command): void {
  const command = hooks
    .command("status")
    .description("show where cxc's hooks are installed and what their log says")
    .option(
      "--reset <session>",
      "forget what the advice recorded of an agent session (its id, or `all`), so it announces as if new",
    )
    .action(async (options: { reset?: string }, command: Command) => {
      const context = CliContext.from(command);
      context.format();
      if (options.reset !== undefined) {
        await resetSessions(context, options.reset);
        return;
      }
      const { AGENT_LABELS, hasLocalSettings, settingsOptions, settingsPath } = await import(
        "../../hooks/agent-settings.js"
      );
      const { findHooks } = await import("../../../core/interop/agent-hooks.js");
      const { HOOK_AGENTS } = await import("../../hooks/hook-run.js");
      const { hookLogPath, isNoteLine } = await import("../../hooks/state.js");
      const { readSettingsText } = await import("../../hooks/settings-file.js");
      const { opencodePluginPaths } = await import("../../hooks/opencode-plugin.js");
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

/** `--reset`: removes the records of one session (of either agent), or of all. */
async function resetSessions(context: CliContext, session: string): Promise<void> {
  const { HOOK_AGENTS } = await import("../../hooks/hook-run.js");
  const { hookSessionsDirectory, hookStatePath } = await import("../../hooks/state.js");
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
