/**
 * `cxc hooks status`: for each agent, which of its settings files (the user's, and the working
 * directory's project) hold cxc's hooks, whether the programs those commands run still exist,
 * and what the hooks' log says (docs/inside-agents.md).
 */
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute } from "node:path";
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
    .action(async (_options: unknown, command: Command) => {
      const context = CliContext.from(command);
      context.format();
      const { AGENT_LABELS, hasLocalSettings, settingsOptions, settingsPath } = await import(
        "../../hooks/agent-settings.js"
      );
      const { findHooks } = await import("../../../core/interop/agent-hooks.js");
      const { HOOK_AGENTS } = await import("../../hooks/hook-run.js");
      const { hookLogPath } = await import("../../hooks/state.js");
      const { readSettingsText } = await import("../../hooks/settings-file.js");
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
          const found = text === undefined ? undefined : findHooks(text, settingsOptions(agent, file));
          if (found !== undefined && !found.ok) problem = found.error.replace(`${file} `, "");
          const installed = found?.ok ? found.value : [];
          const missing = [...new Set(installed.flatMap((hook) => commandPaths(hook.command)))].filter(
            (path) => !existsSync(path),
          );
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
            failures: logLines.length,
            ...(logLines.length > 0 ? { last: logLines.at(-1) } : {}),
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
        logLines.length === 0
          ? `Hook log (${logPath}): no failures`
          : `Hook log (${logPath}): ${logLines.length} ${logLines.length === 1 ? "failure" : "failures"}, the last: ${logLines.at(-1)}`,
      );
      context.outUntrusted(lines.join("\n"));
    });
  markLightweight(command);
}
