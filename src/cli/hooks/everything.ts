/**
 * Everything cxc put into the agents, for `cxc hooks status --all` and `cxc hooks uninstall --all`
 * (docs/inside-agents.md, "Everything at once"): in the five agents, the user's files and a
 * project's (the working directory's, or `--project DIR`'s):
 *
 * | agent | what cxc put there | user | project |
 * | --- | --- | --- | --- |
 * | Claude Code | hooks | `~/.claude/settings.json` | `DIR/.claude/settings.json`, `DIR/.claude/settings.local.json` |
 * | Codex | hooks | `~/.codex/hooks.json` | `DIR/.codex/hooks.json` |
 * | Gemini CLI | hooks | `~/.gemini/settings.json` | `DIR/.gemini/settings.json` |
 * | opencode | a plugin file | `~/.config/opencode/plugins/cxc.js` | `DIR/.opencode/plugins/cxc.js` |
 * | pi | a package (`pi install`) | `~/.pi/agent/settings.json` | `DIR/.pi/settings.json` |
 *
 * cxc's MCP server (`cxc mcp`, recall) is registered through the agents' own commands
 * (src/cli/hooks/mcp-registration.ts), so it is in none of these files. cxc switches no agent setting on (Gemini CLI's hooks are on by
 * default, and cxc leaves `hooksConfig.enabled` to the user; Codex's trust of a hook is the user's
 * review), so there are none to list or take out. A file that does not exist holds nothing; a file
 * the agent would not read is a problem, named.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { findHooks, type SettingsEdit, uninstallHooks } from "../../core/interop/agent-hooks.js";
import { findPiPackages, removePiPackages } from "../../core/interop/pi-packages.js";
import {
  AGENT_LABELS,
  hasLocalSettings,
  type HookScope,
  settingsOptions,
  settingsPath,
} from "./agent-settings.js";
import { HOOK_AGENTS } from "./hook-run.js";
import { opencodePluginPaths } from "./opencode-plugin.js";
import { readSettingsText } from "./settings-file.js";

type Environment = Readonly<Record<string, string | undefined>>;

/** The agents cxc can be in: those with hooks or a plugin, and pi. */
export type InstalledAgent = (typeof HOOK_AGENTS)[number] | "pi";

/** One file cxc may have put something into. */
export interface InstallPlace {
  readonly agent: InstalledAgent;
  readonly scope: HookScope;
  readonly file: string;
  /** What cxc puts there. */
  readonly kind: "hooks" | "plugin" | "package";
}

/** What a place holds of cxc's. */
export interface PlaceReport extends InstallPlace {
  readonly exists: boolean;
  /** cxc's entries: hook events (`SessionStart compact`), `plugin`, package sources. */
  readonly items: readonly string[];
  /** Absolute paths cxc's entries run that no longer exist. */
  readonly missing: readonly string[];
  /** Why the file could not be read (the agent would not read it either). */
  readonly problem?: string;
  /** A file where cxc's would be that is the user's own (opencode's `cxc.js` of another form): left alone. */
  readonly foreign?: boolean;
}

/** The label of an agent, pi included. */
export function agentLabel(agent: InstalledAgent): string {
  return agent === "pi" ? "pi" : AGENT_LABELS[agent];
}

/** pi's settings for a scope (`$PI_CODING_AGENT_DIR`, else `~/.pi/agent`; a project's `.pi/`). */
function piSettingsPath(scope: HookScope, env: Environment, cwd: string): string {
  if (scope.kind !== "user") return join(resolve(cwd, scope.directory), ".pi", "settings.json");
  const agentDirectory = env.PI_CODING_AGENT_DIR;
  const base =
    agentDirectory !== undefined && agentDirectory !== ""
      ? agentDirectory.startsWith("~")
        ? join(env.HOME ?? homedir(), agentDirectory.slice(1))
        : resolve(cwd, agentDirectory)
      : join(env.HOME ?? homedir(), ".pi", "agent");
  return join(base, "settings.json");
}

/** Every place, for the user and the project at `directory`. */
export function installPlaces(env: Environment, cwd: string, directory = "."): InstallPlace[] {
  const scopes: HookScope[] = [
    { kind: "user" },
    { kind: "project", directory },
    { kind: "local", directory },
  ];
  const places: InstallPlace[] = [];
  for (const agent of HOOK_AGENTS) {
    for (const scope of scopes) {
      if (scope.kind === "local" && !hasLocalSettings(agent)) continue;
      places.push({
        agent,
        scope,
        file: settingsPath(agent, scope, env, cwd),
        kind: agent === "opencode" ? "plugin" : "hooks",
      });
    }
  }
  for (const scope of scopes.slice(0, 2)) {
    places.push({ agent: "pi", scope, file: piSettingsPath(scope, env, cwd), kind: "package" });
  }
  return places;
}

/** The absolute paths a hook command runs (the words before `hook`), unquoted. */
export function commandPaths(command: string): string[] {
  const words = (command.match(/'[^']*'|"[^"]*"|\S+/g) ?? []).map((word) => word.replace(/^['"]|['"]$/g, ""));
  const at = words.indexOf("hook");
  return words.slice(0, at < 0 ? words.length : at).filter((word) => isAbsolute(word));
}

/** Whether a folder holds cxc's package (its `package.json` names `cxc`). */
function isCxcFolder(path: string): boolean {
  try {
    const manifest = JSON.parse(readFileSync(join(path, "package.json"), "utf8")) as { name?: unknown };
    return manifest.name === "cxc";
  } catch {
    return false;
  }
}

/** pi's test for a local source of a scope: resolved as pi resolves it (against the settings' folder). */
function piFolderTest(place: InstallPlace, env: Environment): (source: string) => boolean {
  const base = resolve(place.file, "..");
  return (source) => {
    const path = source.startsWith("~")
      ? join(env.HOME ?? homedir(), source.slice(1))
      : resolve(base, source);
    return isCxcFolder(path);
  };
}

/** What one place holds of cxc's. */
export function inspectPlace(place: InstallPlace, env: Environment): PlaceReport {
  let text: string | undefined;
  try {
    text = readSettingsText(place.file);
  } catch (error) {
    return {
      ...place,
      exists: existsSync(place.file),
      items: [],
      missing: [],
      problem: (error as Error).message,
    };
  }
  if (text === undefined) return { ...place, exists: false, items: [], missing: [] };
  const missing = (paths: string[]) => [...new Set(paths)].filter((path) => !existsSync(path));
  if (place.kind === "plugin") {
    const paths = opencodePluginPaths(text);
    if (paths === undefined) {
      return { ...place, exists: true, items: [], missing: [], foreign: true };
    }
    return { ...place, exists: true, items: ["plugin"], missing: missing(paths) };
  }
  if (place.kind === "package") {
    const found = findPiPackages(text, place.file, piFolderTest(place, env));
    if (!found.ok) return { ...place, exists: true, items: [], missing: [], problem: found.error };
    return { ...place, exists: true, items: found.value.map((entry) => entry.source), missing: [] };
  }
  const agent = place.agent;
  if (agent === "pi" || agent === "opencode") return { ...place, exists: true, items: [], missing: [] };
  const found = findHooks(text, settingsOptions(agent, place.file));
  if (!found.ok) {
    return {
      ...place,
      exists: true,
      items: [],
      missing: [],
      problem: found.error.replace(`${place.file} `, ""),
    };
  }
  return {
    ...place,
    exists: true,
    items: found.value.map((hook) => `${hook.event}${hook.matcher === undefined ? "" : ` ${hook.matcher}`}`),
    missing: missing(found.value.flatMap((hook) => commandPaths(hook.command))),
  };
}

/** The edit that takes cxc's entries out of a place's text (not for opencode's plugin file). */
export function removalEdit(
  place: InstallPlace,
  env: Environment,
): (text: string | undefined) => SettingsEdit {
  return (text) => {
    if (text === undefined) return { ok: true, text: "", changed: false, events: [] };
    if (place.kind === "package") return removePiPackages(text, place.file, piFolderTest(place, env));
    const agent = place.agent;
    if (agent === "pi" || agent === "opencode") return { ok: true, text, changed: false, events: [] };
    return uninstallHooks(text, settingsOptions(agent, place.file));
  };
}
