/**
 * The options `cxc hooks install` and `uninstall` share: which agent (`--agent`), and which of its
 * settings files (`--user`, the default; `--project [DIR]`; `--local [DIR]`, Claude Code's
 * `settings.local.json`). Every hint the commands print repeats the flags that chose the file
 * (`scopeFlags`), so following one never acts on another file.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { usageError } from "../../../errors.js";
import { AGENT_LABELS, hasLocalSettings, type HookScope } from "../../hooks/agent-settings.js";
import { HOOK_AGENTS, type HookAgent } from "../../hooks/hook-run.js";

export interface ScopeOptions {
  readonly agent?: string;
  readonly project?: string | boolean;
  readonly local?: string | boolean;
  readonly user?: boolean;
}

/** Adds `--agent`, `--project [DIR]`, `--local [DIR]` and `--user`. */
export function withScopeOptions(command: Command): Command {
  return command
    .option("--agent <agent>", `the agent: ${HOOK_AGENTS.join(", ")}`, "claude-code")
    .option(
      "--project [dir]",
      "the project's shared settings (DIR/.claude/settings.json, Codex: DIR/.codex/hooks.json, Gemini CLI: DIR/.gemini/settings.json, opencode: DIR/.opencode/plugins/cxc.js; default DIR: the working directory)",
    )
    .option(
      "--local [dir]",
      "the project's settings for this machine only (Claude Code: DIR/.claude/settings.local.json)",
    )
    .option(
      "--user",
      "the user's settings (~/.claude/settings.json, ~/.codex/hooks.json, ~/.gemini/settings.json, ~/.config/opencode/plugins/cxc.js; the default)",
    );
}

/** The agent named by `--agent`; anything else is a usage error. */
export function readAgent(options: ScopeOptions): HookAgent {
  const agent = options.agent ?? "claude-code";
  if (!(HOOK_AGENTS as readonly string[]).includes(agent)) {
    throw usageError(
      `--agent ${agent} is not an agent cxc has hooks for`,
      `use --agent ${HOOK_AGENTS.join(", --agent ")}`,
    );
  }
  return agent as HookAgent;
}

const given = (value: string | boolean | undefined): boolean => value !== undefined && value !== false;

/**
 * The scope of `--user` / `--project [DIR]` / `--local [DIR]`: more than one is a usage error, and
 * so is `--local` for an agent without a local file. The project directory must exist (checked
 * against `cwd`): a mistyped one is refused, never created.
 */
export function readScope(options: ScopeOptions, agent: HookAgent, cwd: string): HookScope {
  const chosen = [
    given(options.project) ? "--project" : undefined,
    given(options.local) ? "--local" : undefined,
    options.user === true ? "--user" : undefined,
  ].filter((flag) => flag !== undefined);
  if (chosen.length > 1) {
    throw usageError(
      `${chosen.join(" and ")} name different files`,
      "give one of them (the default is --user)",
    );
  }
  if (given(options.local) && !hasLocalSettings(agent)) {
    throw usageError(
      `${AGENT_LABELS[agent]} has no local settings file; --local is Claude Code's settings.local.json`,
      `use --project for ${AGENT_LABELS[agent]}'s project file`,
    );
  }
  const value = given(options.project) ? options.project : given(options.local) ? options.local : undefined;
  if (value === undefined) return { kind: "user" };
  const directory = value === true ? "." : String(value);
  requireDirectory(
    resolve(cwd, directory),
    "; cxc puts hooks into an existing project, it does not create one",
  );
  return { kind: given(options.project) ? "project" : "local", directory };
}

/** Throws a usage error unless `absolute` is an existing directory (`why` ends the message). */
export function requireDirectory(absolute: string, why = ""): void {
  let isDirectory = false;
  try {
    isDirectory = statSync(absolute).isDirectory();
  } catch {
    isDirectory = false;
  }
  if (!isDirectory) {
    throw usageError(
      `${absolute} is not a directory${why}`,
      "check the path (the default is the working directory)",
    );
  }
}

/** `scope` with its directory made absolute against `cwd` (for the agent's own command, run elsewhere). */
export function absoluteScope(scope: HookScope, cwd: string): HookScope {
  return scope.kind === "user" ? scope : { kind: scope.kind, directory: resolve(cwd, scope.directory) };
}

/** What `--json` reports first of a settings file install or uninstall edited. */
export function settingsFileReport(
  agent: HookAgent,
  scope: HookScope,
  file: string,
  changed: boolean,
): { agent: HookAgent; scope: HookScope["kind"]; file: string; changed: boolean } {
  return { agent, scope: scope.kind, file, changed };
}

/** A word for a command line the user can paste: quoted when it holds anything but plain characters. */
function shellWord(word: string): string {
  return /^[\w./@%+=:,~-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/** The flags that name `scope`'s file for `agent`, as the user gave them (`--agent codex --project ../app`). */
export function scopeFlags(agent: HookAgent, scope: HookScope): string {
  const flags = [`--agent ${agent}`];
  if (scope.kind !== "user") {
    flags.push(scope.directory === "." ? `--${scope.kind}` : `--${scope.kind} ${shellWord(scope.directory)}`);
  }
  return flags.join(" ");
}
