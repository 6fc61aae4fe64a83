/**
 * Where each agent keeps its hooks, how it reads that file, and the entries cxc puts there
 * (docs/inside-agents.md):
 *
 * | agent | user file | project file (`--project`) | local file (`--local`) | cxc's entries |
 * | --- | --- | --- | --- | --- |
 * | Claude Code | `~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR/settings.json`) | `DIR/.claude/settings.json` | `DIR/.claude/settings.local.json` | `Stop` (advice), `SessionStart` (the session for `cxc mcp`; the restore after `compact`) |
 * | Codex | `~/.codex/hooks.json` (`$CODEX_HOME/hooks.json`) | `DIR/.codex/hooks.json` | none | `Stop` (advice), `SessionStart` (the session for `cxc mcp`; the restore after `compact`) |
 * | opencode | `~/.config/opencode/plugins/cxc.js` (`$XDG_CONFIG_HOME/opencode/…`) | `DIR/.opencode/plugins/cxc.js` | none | a plugin file (opencode-plugin.ts) |
 * | Gemini CLI | `~/.gemini/settings.json` (`$GEMINI_CLI_HOME/.gemini/settings.json`) | `DIR/.gemini/settings.json` | none | `AfterAgent` (advice), `BeforeModel` (restore) |
 *
 * The command runs this cxc with this Node, by absolute paths, so it works from an agent's
 * environment whatever its `PATH` holds; installing again after moving cxc updates the entries.
 */
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { parse } from "jsonc-parser";
import {
  CLAUDE_CODE_SETTINGS,
  CODEX_HOOKS_SETTINGS,
  GEMINI_SETTINGS,
  cxcHookCommand,
  type HookEntry,
  isCxcHookCommand,
  type SettingsDialect,
  type SettingsOptions,
} from "../../core/interop/agent-hooks.js";
import type { HookAgent } from "./hook-run.js";
import { opencodePluginPath } from "./opencode-plugin.js";

type Environment = Readonly<Record<string, string | undefined>>;

/** Seconds Claude Code waits for the hook (the advice may ask the decision model twice). */
const HOOK_TIMEOUT_SECONDS = 30;
/** Gemini CLI counts a hook's timeout in milliseconds. */
const GEMINI_TIMEOUT_MS = HOOK_TIMEOUT_SECONDS * 1000;

/** The agents' names as the commands print them. */
export const AGENT_LABELS: Readonly<Record<HookAgent, string>> = {
  "claude-code": "Claude Code",
  codex: "Codex",
  gemini: "Gemini CLI",
  opencode: "opencode",
};

/** The agents whose hooks are entries in a settings file (opencode's is a plugin file: opencode-plugin.ts). */
export type SettingsAgent = Exclude<HookAgent, "opencode">;

/** What each of cxc's entries does, for the commands' messages. */
export const EVENT_PURPOSES: Readonly<Record<string, string>> = {
  Stop: "advice at the end of each turn",
  SessionStart: "the session for cxc mcp's recall; the restore after the agent compacts",
  AfterAgent: "advice at the end of each turn",
  BeforeModel: "the restore after Gemini CLI compresses, in each request after its summary",
  plugin: "advice at the end of each turn, the restore after opencode's summary",
};

/** How each agent reads its hooks file (checked against the pinned agents). */
export const SETTINGS_DIALECTS: Readonly<Record<SettingsAgent, SettingsDialect>> = {
  "claude-code": CLAUDE_CODE_SETTINGS,
  codex: CODEX_HOOKS_SETTINGS,
  gemini: GEMINI_SETTINGS,
};

/**
 * Which settings file: the user's, a project's (shared, usually committed), or a project's local
 * one (Claude Code's `settings.local.json`, this machine's only). `directory` is as given.
 */
export type HookScope =
  | { readonly kind: "user" }
  | { readonly kind: "project" | "local"; readonly directory: string };

/** The agents with a local settings file beside the project's. */
export function hasLocalSettings(agent: HookAgent): boolean {
  return agent === "claude-code";
}

/** The settings file that holds `agent`'s hooks for `scope` (opencode: cxc's plugin file). */
export function settingsPath(agent: HookAgent, scope: HookScope, env: Environment, cwd: string): string {
  if (agent === "opencode") return opencodePluginPath(scope, env, cwd);
  if (scope.kind !== "user") {
    const directory = resolve(cwd, scope.directory);
    if (agent === "codex") return join(directory, ".codex", "hooks.json");
    if (agent === "gemini") return join(directory, ".gemini", "settings.json");
    return join(directory, ".claude", scope.kind === "local" ? "settings.local.json" : "settings.json");
  }
  const home = env.HOME ?? homedir();
  if (agent === "gemini") {
    const geminiHome =
      env.GEMINI_CLI_HOME !== undefined && isAbsolute(env.GEMINI_CLI_HOME) ? env.GEMINI_CLI_HOME : home;
    return join(geminiHome, ".gemini", "settings.json");
  }
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

/** The command an agent runs: this Node and this cxc's bin, by absolute paths. */
export function hookCommand(agent: SettingsAgent, node: string, bin: string): string {
  return cxcHookCommand(agent, node, bin);
}

/**
 * The `SessionStart` sources cxc's entry runs for: every start records the session for `cxc mcp`
 * (agent-process.ts), so a new or resumed session is known before its first turn ends; `compact`
 * also restores. Both pinned agents fire `startup` and `resume` (checked in test/agents); `clear`
 * is Claude Code's `/clear`.
 */
export const SESSION_START_MATCHER = "startup|resume|clear|compact";

/** cxc's entries for `agent`. */
export function hookEntries(agent: SettingsAgent, command: string): HookEntry[] {
  const start = {
    event: "SessionStart",
    matcher: SESSION_START_MATCHER,
    formerMatchers: ["compact"],
    command,
  };
  if (agent === "codex") return [{ event: "Stop", command }, start];
  if (agent === "gemini") {
    return [
      { event: "AfterAgent", command, timeout: GEMINI_TIMEOUT_MS },
      { event: "BeforeModel", command, timeout: GEMINI_TIMEOUT_MS },
    ];
  }
  return [
    { event: "Stop", command, timeout: HOOK_TIMEOUT_SECONDS },
    { ...start, timeout: HOOK_TIMEOUT_SECONDS },
  ];
}

/**
 * Whether a Gemini CLI settings text switches hooks off (`hooksConfig.enabled: false`; they are on
 * by default in the pinned Gemini CLI). cxc does not switch them on: the setting is the user's.
 */
export function geminiHooksSwitchedOff(text: string): boolean {
  const value: unknown = parse(text, [], { allowTrailingComma: true });
  if (typeof value !== "object" || value === null) return false;
  const config = (value as { hooksConfig?: unknown }).hooksConfig;
  return typeof config === "object" && config !== null && (config as { enabled?: unknown }).enabled === false;
}

/** What the edits of `agent`'s file at `path` need: cxc's form, the agent's dialect, the name. */
export function settingsOptions(agent: SettingsAgent, path: string): SettingsOptions {
  return {
    isOurs: (command) => isCxcHookCommand(command, agent),
    dialect: SETTINGS_DIALECTS[agent],
    label: path,
  };
}
