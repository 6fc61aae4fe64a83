/**
 * Where each agent keeps its hooks, and the entries cxc puts there (docs/inside-agents.md):
 *
 * | agent | user file | project file | cxc's entries |
 * | --- | --- | --- | --- |
 * | Claude Code | `~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR/settings.json`) | `DIR/.claude/settings.json` | `Stop` (advice), `SessionStart` matching `compact` (restore) |
 * | Codex | `~/.codex/hooks.json` (`$CODEX_HOME/hooks.json`) | `DIR/.codex/hooks.json` | `SessionStart` matching `compact` (restore) |
 *
 * The command runs this cxc with this Node, by absolute paths, so it works from an agent's
 * environment whatever its `PATH` holds; installing again after moving cxc updates the entries.
 */
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { type HookEntry, isCxcHookCommand } from "../../core/interop/agent-hooks.js";
import type { HookAgent } from "./hook-run.js";

type Environment = Readonly<Record<string, string | undefined>>;

/** Seconds Claude Code waits for the hook (the advice may ask the decision model twice). */
const HOOK_TIMEOUT_SECONDS = 30;

/** The agents' names as the commands print them. */
export const AGENT_LABELS: Readonly<Record<HookAgent, string>> = {
  "claude-code": "Claude Code",
  codex: "Codex",
};

/** What each of cxc's entries does, for the commands' messages. */
export const EVENT_PURPOSES: Readonly<Record<string, string>> = {
  Stop: "advice at the end of each turn",
  SessionStart: "the restore after the agent compacts",
};

/** Which settings file: the user's, or a project's. */
export type HookScope = { readonly kind: "user" } | { readonly kind: "project"; readonly directory: string };

/** The settings file that holds `agent`'s hooks for `scope`. */
export function settingsPath(agent: HookAgent, scope: HookScope, env: Environment, cwd: string): string {
  if (scope.kind === "project") {
    const directory = resolve(cwd, scope.directory);
    return agent === "codex"
      ? join(directory, ".codex", "hooks.json")
      : join(directory, ".claude", "settings.json");
  }
  const home = env.HOME ?? homedir();
  if (agent === "codex") {
    const codexHome =
      env.CODEX_HOME !== undefined && isAbsolute(env.CODEX_HOME) ? env.CODEX_HOME : join(home, ".codex");
    return join(codexHome, "hooks.json");
  }
  const claudeHome =
    env.CLAUDE_CONFIG_DIR !== undefined && isAbsolute(env.CLAUDE_CONFIG_DIR)
      ? env.CLAUDE_CONFIG_DIR
      : join(home, ".claude");
  return join(claudeHome, "settings.json");
}

/** A word for a shell command line: quoted when it holds anything but plain path characters. */
function shellWord(word: string): string {
  return /^[\w./@%+=:,-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/** The command an agent runs: this Node and this cxc's bin, by absolute paths. */
export function hookCommand(agent: HookAgent, node: string, bin: string): string {
  return `${shellWord(node)} ${shellWord(bin)} hook ${agent}`;
}

/** cxc's entries for `agent`. */
export function hookEntries(agent: HookAgent, command: string): HookEntry[] {
  const restore: HookEntry = {
    event: "SessionStart",
    matcher: "compact",
    command,
    timeout: HOOK_TIMEOUT_SECONDS,
  };
  if (agent === "codex") return [{ event: "SessionStart", matcher: "compact", command }];
  return [{ event: "Stop", command, timeout: HOOK_TIMEOUT_SECONDS }, restore];
}

/** Whether a hook command in the file is cxc's hook for `agent`. */
export function isOursFor(agent: HookAgent): (command: string) => boolean {
  return (command) => isCxcHookCommand(command, agent);
}
