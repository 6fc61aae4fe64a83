/**
 * Local command tools: a tool defined in configuration (`conversation.tools.<name>`) that runs a
 * program on this machine.
 *
 * Configuration keys: `command` (a shell command line, or an array `[program, ...args]` run
 * without a shell), `description`, `parameters` (JSON Schema of the arguments object),
 * `timeout_secs` (default 60), `max_output_bytes` (default 64 KiB), `env` (names of further
 * environment variables the command gets) and `positional` (placeholders whose value may not start
 * with `-`: `true` for all, or a list of names).
 *
 * Arguments are validated against the schema (ajv) before anything runs; invalid arguments are a
 * tool error the model can correct. The command receives them as JSON on stdin, as JSON in
 * `CXC_TOOL_ARGUMENTS`, and through `{{name}}` placeholders. No value is ever spliced into shell
 * text: in a command line a placeholder becomes `"${CXC_ARG_name}"` and the value travels in that
 * environment variable (core/command-template.ts checks where placeholders stand); in the array
 * form it is (part of) one argument. The command's environment is minimal (`toolEnvironment`):
 * provider keys never reach it. The result reports the exit status; output beyond the ceiling is
 * cut with a note. See docs/query.md and docs/security.md.
 */
import { jsonSchemaArguments } from "./arguments.js";
import {
  fillArgument,
  placeholderVariable,
  type PreparedCommand,
  prepareCommand,
} from "../core/command-template.js";
import { CxcError } from "../errors.js";
import type { RunMode, Tool, ToolCallContext, ToolOutcome } from "./tool.js";

/** The configuration of one local command tool. */
export interface LocalCommandConfig {
  readonly command: string | readonly string[];
  readonly description?: string;
  readonly parameters?: Readonly<Record<string, unknown>>;
  readonly timeout_secs?: number;
  readonly max_output_bytes?: number;
  /** Further environment variables passed to the command, by name. */
  readonly env?: readonly string[];
  /** Placeholders whose value may not start with `-` (`true`: all of them). */
  readonly positional?: boolean | readonly string[];
}

/** A configuration entry that is not a usable tool: what is wrong, and how to fix it. */
export interface ToolConfigProblem {
  readonly problem: string;
  readonly hint?: string;
}

/** Where a tool's environment comes from. */
export interface LocalCommandOptions {
  /** cxc's own environment, filtered by `toolEnvironment` (default: `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export const DEFAULT_TIMEOUT_SECONDS = 60;
export const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024;
const EMPTY_SCHEMA = { type: "object", properties: {} } as const;

/** Variables every command gets from cxc's environment (plus every `LC_*`), when they are set. */
export const TOOL_BASE_VARIABLES = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "TERM",
  "TMPDIR",
  "TZ",
] as const;

/** Provider credentials the SDKs read; never passed to a tool, even when `env` names them. */
export const PROVIDER_KEY_VARIABLES = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "OPENAI_API_KEY",
] as const;

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Reads a tool's configuration entry; returns a problem when it is not a usable tool.
 * `protectedVariables` are the provider key variables of this configuration (built-in ones are
 * always protected): listing one in `env` is refused.
 */
export function parseLocalCommandConfig(
  name: string,
  entry: Readonly<Record<string, unknown>>,
  protectedVariables: readonly string[] = [],
  sharedEnv: readonly string[] = [],
): LocalCommandConfig | ToolConfigProblem {
  const key = `conversation.tools.${name}`;
  const command = entry.command;
  const isArray =
    Array.isArray(command) && command.length > 0 && command.every((part) => typeof part === "string");
  if (!(typeof command === "string" && command.trim().length > 0) && !isArray) {
    return { problem: `${key}.command must be a command line or a non-empty array of strings` };
  }
  const prepared = prepareCommand(command as string | string[]);
  if (!prepared.ok) return { problem: `${key}.command: ${prepared.problem}`, hint: prepared.hint };
  const parameters = entry.parameters;
  if (
    parameters !== undefined &&
    (typeof parameters !== "object" || parameters === null || Array.isArray(parameters))
  ) {
    return { problem: `${key}.parameters must be a JSON Schema object` };
  }
  const config: { -readonly [K in keyof LocalCommandConfig]: LocalCommandConfig[K] } = {
    command: command as string | string[],
  };
  if (typeof entry.description === "string") config.description = entry.description;
  if (parameters !== undefined) config.parameters = parameters as Record<string, unknown>;
  if (typeof entry.timeout_secs === "number" && entry.timeout_secs > 0)
    config.timeout_secs = entry.timeout_secs;
  if (typeof entry.max_output_bytes === "number" && entry.max_output_bytes > 0) {
    config.max_output_bytes = entry.max_output_bytes;
  }
  const own = parseEnvList(key, entry.env, [...PROVIDER_KEY_VARIABLES, ...protectedVariables]);
  if (!Array.isArray(own)) return own as ToolConfigProblem;
  const env = [...new Set([...sharedEnv, ...own])];
  if (env.length > 0) config.env = env;
  const positional = parsePositional(key, entry.positional, prepared.command.placeholders);
  if (typeof positional === "object" && !Array.isArray(positional)) return positional as ToolConfigProblem;
  if (positional !== undefined) config.positional = positional;
  return config;
}

/**
 * The `env` of the `conversation.tools."*"` entry: variables every local command gets, besides
 * those its own `env` lists. Checked like a tool's own list.
 */
export function parseSharedToolEnv(
  entry: Readonly<Record<string, unknown>>,
  protectedVariables: readonly string[] = [],
): string[] | ToolConfigProblem {
  return parseEnvList('conversation.tools."*"', entry.env, [
    ...PROVIDER_KEY_VARIABLES,
    ...protectedVariables,
  ]);
}

/** True when `parseLocalCommandConfig` refused the entry. */
export function isToolConfigProblem(
  value: LocalCommandConfig | ToolConfigProblem,
): value is ToolConfigProblem {
  return "problem" in value;
}

function parseEnvList(
  key: string,
  value: unknown,
  protectedVariables: readonly string[],
): string[] | ToolConfigProblem {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string" && VARIABLE_NAME.test(item))) {
    return {
      problem: `${key}.env must be a list of environment variable names`,
      hint: `e.g. env = ["GITHUB_TOKEN"]`,
    };
  }
  const secret = value.find((item) => protectedVariables.includes(item));
  if (secret !== undefined) {
    return {
      problem: `${key}.env names ${secret}, a provider key; cxc never passes provider keys to tools`,
      hint: `remove ${secret} from ${key}.env (a tool's output goes into the conversation and to the model)`,
    };
  }
  return value as string[];
}

function parsePositional(
  key: string,
  value: unknown,
  placeholders: readonly string[],
): boolean | string[] | undefined | ToolConfigProblem {
  if (value === undefined || typeof value === "boolean") return value;
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
    return {
      problem: `${key}.positional must be true, false or a list of placeholder names`,
      hint: `e.g. positional = ["pattern"]`,
    };
  }
  const unknown = value.find((item) => !placeholders.includes(item));
  if (unknown !== undefined) {
    return {
      problem: `${key}.positional names '${unknown}', which is not a placeholder of the command`,
      hint:
        placeholders.length === 0
          ? "the command has no {{name}} placeholders"
          : `its placeholders: ${placeholders.join(", ")}`,
    };
  }
  return value as string[];
}

/**
 * The environment of a command: the variables of `TOOL_BASE_VARIABLES` and `LC_*` that are set,
 * plus the names the tool's `env` lists, taken from cxc's environment. Nothing else, so provider
 * keys and whatever else cxc was started with stay out.
 */
export function toolEnvironment(
  parent: Readonly<Record<string, string | undefined>>,
  listed: readonly string[] = [],
): Record<string, string> {
  const result: Record<string, string> = {};
  const wanted = new Set<string>([...TOOL_BASE_VARIABLES, ...listed]);
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    if (wanted.has(name) || /^LC_[A-Z_]+$/.test(name)) result[name] = value;
  }
  for (const name of PROVIDER_KEY_VARIABLES) delete result[name];
  return result;
}

/**
 * Builds the tool. The schema is compiled on the first call (ajv is a large import and most turns
 * call no tool); a schema that does not compile makes every call a tool error naming the key.
 */
export function createLocalCommandTool(
  name: string,
  config: LocalCommandConfig,
  options: LocalCommandOptions = {},
): Tool {
  const prepared = prepareCommand(config.command);
  if (!prepared.ok) {
    throw new CxcError("invalid-config", `conversation.tools.${name}.command: ${prepared.problem}`, {
      hint: prepared.hint,
    });
  }
  const toolArguments = jsonSchemaArguments(config.parameters ?? EMPTY_SCHEMA, name);
  // The arguments are checked (defaults filled in) before the call gets here (tool.ts).
  const run = async (
    checked: Readonly<Record<string, unknown>>,
    context: ToolCallContext,
  ): Promise<ToolOutcome> => {
    const values = placeholderValues(prepared.command.placeholders, checked);
    const refusal = refuseValues(name, config, values);
    if (refusal !== undefined) return { isError: true, content: refusal };
    return runCommand(name, config, prepared.command, checked, values, {
      parentEnv: options.env ?? process.env,
      context,
    });
  };
  return {
    name,
    description: config.description ?? `Runs the local command \`${commandText(config.command)}\`.`,
    arguments: toolArguments,
    source: "local",
    defaults: { enable: true, run: "ask" satisfies RunMode },
    run,
  };
}

/** The text of each placeholder's value: strings as they are, other values as JSON, missing as "". */
function placeholderValues(
  names: readonly string[],
  argumentsObject: Readonly<Record<string, unknown>>,
): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of names) {
    const value = argumentsObject[name];
    values[name] =
      value === undefined || value === null ? "" : typeof value === "string" ? value : JSON.stringify(value);
  }
  return values;
}

/** A tool error for values that cannot be passed as they are, or undefined. */
function refuseValues(
  name: string,
  config: LocalCommandConfig,
  values: Readonly<Record<string, string>>,
): string | undefined {
  for (const [key, value] of Object.entries(values)) {
    // The operating system cannot carry a NUL in an argument or environment variable.
    if (value.includes("\u0000"))
      return `Invalid arguments for ${name}: /${key} must not contain a NUL character`;
    const positional =
      config.positional === true || (Array.isArray(config.positional) && config.positional.includes(key));
    if (positional && value.startsWith("-")) {
      return (
        `Invalid arguments for ${name}: /${key} must not start with '-' ` +
        "(it is passed to the command as a positional argument, not an option)"
      );
    }
  }
  return undefined;
}

function commandText(command: string | readonly string[]): string {
  return typeof command === "string" ? command : command.join(" ");
}

async function runCommand(
  name: string,
  config: LocalCommandConfig,
  command: PreparedCommand,
  argumentsObject: Readonly<Record<string, unknown>>,
  values: Readonly<Record<string, string>>,
  where: { parentEnv: Readonly<Record<string, string | undefined>>; context: ToolCallContext },
): Promise<ToolOutcome> {
  const { context } = where;
  const timeoutSeconds = config.timeout_secs ?? DEFAULT_TIMEOUT_SECONDS;
  const ceiling = config.max_output_bytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const json = JSON.stringify(argumentsObject);
  const env: Record<string, string> = {
    ...toolEnvironment(where.parentEnv, config.env),
    CXC_TOOL_NAME: name,
    CXC_TOOL_ARGUMENTS: json,
    CXC_CONVERSATION_ID: context.conversationId,
  };
  for (const [key, value] of Object.entries(values)) env[placeholderVariable(key)] = value;
  const options = {
    cwd: context.cwd,
    input: json,
    env,
    extendEnv: false,
    reject: false,
    maxBuffer: ceiling,
    stripFinalNewline: false,
    // Its own process group: a Ctrl-C meant for cxc does not reach the tool behind its back, and
    // a timeout or cancellation can stop the whole group (a shell's children hold the pipes open).
    detached: true,
  } as const;
  // Loaded on first use: execa is a large import, and most turns run no local command.
  const { execa } = await import("execa");
  // The shell gets the script with placeholders turned into variable references; $0 names the tool.
  const [file, ...args] =
    command.kind === "shell"
      ? ["/bin/sh", "-c", command.script, `cxc-tool-${name}`]
      : [command.argv[0]!, ...command.argv.slice(1).map((part) => fillArgument(part, values))];
  const subprocess = execa(file!, args, options);
  const stopper = new GroupStopper(subprocess.pid);
  trackGroup(subprocess.pid);
  const timer = setTimeout(() => stopper.stop("timeout"), timeoutSeconds * 1000);
  const onAbort = (): void => stopper.stop("cancel");
  context.signal.addEventListener("abort", onAbort, { once: true });
  if (context.signal.aborted) onAbort();
  const result = await subprocess;
  untrackGroup(subprocess.pid);
  clearTimeout(timer);
  context.signal.removeEventListener("abort", onAbort);
  const output = joinOutput(String(result.stdout ?? ""), String(result.stderr ?? ""));
  if (result.isMaxBuffer) {
    return { isError: true, content: `${output}\n[output cut at ${ceiling} bytes; the command was stopped]` };
  }
  if (stopper.reason === "timeout") {
    return { isError: true, content: `${output}[timed out after ${timeoutSeconds}s]`.trim() };
  }
  if (stopper.reason === "cancel") return { isError: true, content: `${output}[cancelled]`.trim() };
  if (result.exitCode === undefined) {
    const reason = result.signal ? `killed by ${result.signal}` : (result.shortMessage ?? "could not run");
    return { isError: true, content: `${output}[${reason}]`.trim() };
  }
  if (result.exitCode !== 0) return { isError: true, content: `${output}[exit status ${result.exitCode}]` };
  return { isError: false, content: output };
}

/** Tool process groups still running; killed if cxc exits first (a second Ctrl-C). */
const runningGroups = new Set<number>();
let exitHandlerInstalled = false;

function trackGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  runningGroups.add(pid);
  if (exitHandlerInstalled) return;
  exitHandlerInstalled = true;
  process.on("exit", () => {
    for (const group of runningGroups) {
      try {
        process.kill(-group, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  });
}

function untrackGroup(pid: number | undefined): void {
  if (pid !== undefined) runningGroups.delete(pid);
}

/** Ends a process group: SIGTERM, then SIGKILL two seconds later. Remembers why. */
class GroupStopper {
  readonly #pid: number | undefined;
  reason: "timeout" | "cancel" | undefined;

  constructor(pid: number | undefined) {
    this.#pid = pid;
  }

  stop(reason: "timeout" | "cancel"): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    this.#signal("SIGTERM");
    setTimeout(() => this.#signal("SIGKILL"), 2000).unref();
  }

  #signal(signal: NodeJS.Signals): void {
    if (this.#pid === undefined) return;
    try {
      process.kill(-this.#pid, signal);
    } catch {
      // The group is already gone.
    }
  }
}

function joinOutput(stdout: string, stderr: string): string {
  if (stderr.length === 0) return stdout;
  const separator = stdout.length === 0 || stdout.endsWith("\n") ? "" : "\n";
  return `${stdout}${separator}[stderr]\n${stderr}${stderr.endsWith("\n") ? "" : "\n"}`;
}
