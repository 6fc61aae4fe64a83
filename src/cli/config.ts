/**
 * Loads the effective configuration from disk, the command line and the environment: the
 * composition root's job, so it lives with the command line and hands plain tables inward.
 *
 * Layers, lowest first (later ones win, key by key):
 *
 * 1. built-in defaults (`DEFAULT_CONFIG` in core/config.ts), origin `default`;
 * 2. the user file `$XDG_CONFIG_HOME/cxc/config.toml` (else `~/.config/cxc/config.toml`);
 * 3. the workspace file `<workspace>/.cxc/config.toml`, when the working directory is in one;
 * 4. environment variables `CXC_<SEGMENT>__<SEGMENT>…` for scalars (see
 *    `configPathFromEnvironmentName`), e.g. `CXC_ASSISTANT__MODEL__ID=openai/gpt-5`;
 * 5. every `-c FILE` / `-c KEY=VALUE` overlay, in command-line order.
 *
 * The command line wins over the environment, as in jp: a flag typed for one run beats a variable
 * exported for a whole shell.
 *
 * A malformed TOML file is one error naming the file, line and column. Credential-like keys are
 * refused on the command line and ignored, with a warning, in files and the environment.
 */
import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { parse as parseToml, TomlError } from "smol-toml";
import {
  type ConfigLayer,
  type ConfigTable,
  type ConfigValue,
  configPathFromEnvironmentName,
  DEFAULT_CONFIG,
  isConfigTable,
  isSecretKey,
  looksLikeAssignment,
  type MergedConfig,
  mergeConfigLayers,
  parseAssignment,
  parseConfigScalar,
  redactAssignment,
  removeSecretKeys,
  secretKeyMessage,
  tableAt,
} from "../core/config.js";
import { CxcError } from "../errors.js";
import { type Environment, findWorkspace, readTextOr } from "../store/index.js";

export const CONFIG_FILE = "config.toml";

/** What `loadConfig` needs to know about the invocation. */
export interface ConfigSources {
  readonly cwd: string;
  readonly env: Environment;
  /** The `-c/--cfg` values, in command-line order. */
  readonly overlays?: readonly string[];
}

/** The effective configuration plus what was read to build it. */
export interface EffectiveConfig extends MergedConfig {
  /** Files that were read, lowest layer first. */
  readonly files: readonly string[];
  /** Keys that were ignored (credential-like), one sentence each, for stderr. */
  readonly warnings: readonly string[];
}

/** The user configuration file path (whether or not it exists). */
export function userConfigPath(env: Environment): string {
  const base =
    env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME)
      ? env.XDG_CONFIG_HOME
      : join(env.HOME ?? homedir(), ".config");
  return join(base, "cxc", CONFIG_FILE);
}

/** The workspace configuration file path, when the working directory is inside a workspace. */
export function workspaceConfigPath(cwd: string): string | undefined {
  const workspace = findWorkspace(cwd);
  return workspace ? join(workspace, CONFIG_FILE) : undefined;
}

/** Builds the effective configuration. Throws `invalid-config` (exit 2) on a bad file or overlay. */
export function loadConfig(sources: ConfigSources): EffectiveConfig {
  const layers: ConfigLayer[] = [{ origin: "default", values: DEFAULT_CONFIG }];
  const files: string[] = [];
  const warnings: string[] = [];
  const addFile = (path: string): void => {
    const table = readConfigFile(path);
    const { table: cleaned, removed } = removeSecretKeys(table);
    for (const key of removed) warnings.push(`${path}: ignored ${secretKeyMessage(key)}`);
    layers.push({ origin: path, values: cleaned });
    files.push(path);
  };
  const userPath = userConfigPath(sources.env);
  if (existsSync(userPath)) addFile(userPath);
  const workspacePath = workspaceConfigPath(sources.cwd);
  if (workspacePath && existsSync(workspacePath)) addFile(workspacePath);
  layers.push(...environmentLayers(sources.env, warnings));
  for (const overlay of sources.overlays ?? []) {
    if (looksLikeAssignment(overlay) && !overlay.startsWith("@")) {
      layers.push({ origin: "-c", values: assignmentTable(overlay) });
    } else {
      addFile(overlayFilePath(overlay, sources.cwd));
    }
  }
  return { ...mergeConfigLayers(layers), files, warnings };
}

function assignmentTable(overlay: string): ConfigTable {
  const parsed = parseAssignment(overlay);
  if (!parsed.ok) {
    throw new CxcError("invalid-config", `-c ${redactAssignment(overlay)}: ${parsed.message}`, {
      hint: "use -c KEY=VALUE (e.g. -c assistant.model.id=anthropic/claude-sonnet-4-6) or -c PATH/TO/FILE.toml",
    });
  }
  return tableAt(parsed.path, parsed.value);
}

function overlayFilePath(overlay: string, cwd: string): string {
  const path = resolve(cwd, overlay.startsWith("@") ? overlay.slice(1) : overlay);
  if (!existsSync(path) || !statSync(path).isFile()) {
    throw new CxcError("invalid-config", `-c ${overlay}: no such configuration file (${path})`, {
      hint: "-c takes a TOML file path or KEY=VALUE (e.g. -c assistant.model.id=openai/gpt-5)",
    });
  }
  return path;
}

/** One layer per configuration variable, sorted by name so the order never depends on the shell. */
function environmentLayers(env: Environment, warnings: string[]): ConfigLayer[] {
  const layers: ConfigLayer[] = [];
  for (const name of Object.keys(env).sort()) {
    const path = configPathFromEnvironmentName(name);
    const raw = env[name];
    if (!path || raw === undefined) continue;
    if (path.some(isSecretKey)) {
      warnings.push(`${name}: ignored ${secretKeyMessage(path.join("."))}`);
      continue;
    }
    const value: ConfigValue = parseConfigScalar(raw, { scalarsOnly: true });
    layers.push({ origin: `env ${name}`, values: tableAt(path, value) });
  }
  return layers;
}

/** Reads and parses one TOML file; a syntax error names the file, line and column. */
export function readConfigFile(path: string): ConfigTable {
  const text = readTextOr(
    path,
    (message, cause) => new CxcError("invalid-config", message, { cause, exitCode: 1 }),
  );
  try {
    return normalizeToml(parseToml(text)) as ConfigTable;
  } catch (error) {
    if (error instanceof TomlError) {
      const reason = error.message.split("\n")[0]!.replace(/^Invalid TOML document: /, "");
      throw new CxcError("invalid-config", `${path}:${error.line}:${error.column}: invalid TOML: ${reason}`, {
        hint: "fix that line; configuration files are TOML (https://toml.io)",
        cause: error,
      });
    }
    throw error;
  }
}

/** TOML dates become RFC 3339 strings so every value is plain JSON. */
function normalizeToml(value: unknown): ConfigValue {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(normalizeToml);
  if (isConfigTable(value)) {
    const table: ConfigTable = {};
    for (const [key, inner] of Object.entries(value)) table[key] = normalizeToml(inner);
    return table;
  }
  if (typeof value === "bigint") return Number(value);
  return value as ConfigValue;
}
