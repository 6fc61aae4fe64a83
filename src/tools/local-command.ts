/**
 * Local command tools: a tool defined in configuration (`conversation.tools.<name>`) that runs a
 * program on this machine.
 *
 * Configuration keys: `command` (a shell command line, or an array `[program, ...args]` run
 * without a shell), `description`, `parameters` (JSON Schema of the arguments object),
 * `timeout_secs` (default 60) and `max_output_bytes` (default 64 KiB).
 *
 * Arguments are validated against the schema (ajv) before anything runs; invalid arguments are a
 * tool error the model can correct. The command receives them three ways: as JSON on stdin, as
 * JSON in `CXC_TOOL_ARGUMENTS`, and through `{{name}}` placeholders in the command (shell-quoted in
 * a command line, verbatim as one argument in the array form), so a placeholder can never inject
 * shell syntax. The result reports the exit status; output beyond the ceiling is cut with a note.
 */
import type { ErrorObject, ValidateFunction } from "ajv";
import type { RunMode, Tool, ToolCallContext, ToolOutcome } from "./tool.js";

/** The configuration of one local command tool. */
export interface LocalCommandConfig {
  readonly command: string | readonly string[];
  readonly description?: string;
  readonly parameters?: Readonly<Record<string, unknown>>;
  readonly timeout_secs?: number;
  readonly max_output_bytes?: number;
}

export const DEFAULT_TIMEOUT_SECONDS = 60;
export const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024;
const EMPTY_SCHEMA = { type: "object", properties: {} } as const;

/** Reads a tool's configuration entry; returns an error sentence when it is not a usable tool. */
export function parseLocalCommandConfig(
  name: string,
  entry: Readonly<Record<string, unknown>>,
): LocalCommandConfig | string {
  const command = entry.command;
  const isArray =
    Array.isArray(command) && command.length > 0 && command.every((part) => typeof part === "string");
  if (!(typeof command === "string" && command.trim().length > 0) && !isArray) {
    return `conversation.tools.${name}.command must be a command line or a non-empty array of strings`;
  }
  const parameters = entry.parameters;
  if (
    parameters !== undefined &&
    (typeof parameters !== "object" || parameters === null || Array.isArray(parameters))
  ) {
    return `conversation.tools.${name}.parameters must be a JSON Schema object`;
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
  return config;
}

/**
 * Builds the tool. The schema is compiled on the first call (ajv is a large import and most turns
 * call no tool); a schema that does not compile makes every call a tool error naming the key.
 */
export function createLocalCommandTool(name: string, config: LocalCommandConfig): Tool {
  const parameters = config.parameters ?? EMPTY_SCHEMA;
  let validate: ValidateFunction | undefined;
  const run = async (
    argumentsObject: Readonly<Record<string, unknown>>,
    context: ToolCallContext,
  ): Promise<ToolOutcome> => {
    try {
      validate ??= await compileSchema(parameters);
    } catch (error) {
      const problem = (error as Error).message;
      return {
        isError: true,
        content: `conversation.tools.${name}.parameters is not a valid JSON Schema: ${problem}`,
      };
    }
    // useDefaults fills in schema defaults, so validate a copy.
    const checked = structuredClone(argumentsObject) as Record<string, unknown>;
    if (!validate(checked)) {
      return { isError: true, content: `Invalid arguments for ${name}: ${describeErrors(validate.errors)}` };
    }
    return runCommand(name, config, checked, context);
  };
  return {
    name,
    description: config.description ?? `Runs the local command \`${commandText(config.command)}\`.`,
    parameters,
    source: "local",
    defaults: { enable: true, run: "ask" satisfies RunMode },
    run,
  };
}

async function compileSchema(schema: Readonly<Record<string, unknown>>): Promise<ValidateFunction> {
  const { Ajv } = await import("ajv");
  return new Ajv({ allErrors: true, useDefaults: true, strict: false }).compile(schema);
}

function describeErrors(errors: readonly ErrorObject[] | null | undefined): string {
  if (!errors || errors.length === 0) return "they do not match the schema";
  return errors
    .map(
      (error) =>
        `${error.instancePath === "" ? "arguments" : error.instancePath} ${error.message ?? "invalid"}`,
    )
    .join("; ");
}

function commandText(command: string | readonly string[]): string {
  return typeof command === "string" ? command : command.join(" ");
}

/** Replaces `{{name}}` placeholders; `quote` makes a value safe inside a shell command line. */
export function fillPlaceholders(
  template: string,
  argumentsObject: Readonly<Record<string, unknown>>,
  quote: (value: string) => string,
): string {
  return template.replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g, (_match, key: string) => {
    const value = argumentsObject[key];
    if (value === undefined || value === null) return quote("");
    return quote(typeof value === "string" ? value : JSON.stringify(value));
  });
}

/** POSIX shell single-quoting. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

async function runCommand(
  name: string,
  config: LocalCommandConfig,
  argumentsObject: Readonly<Record<string, unknown>>,
  context: ToolCallContext,
): Promise<ToolOutcome> {
  const timeoutSeconds = config.timeout_secs ?? DEFAULT_TIMEOUT_SECONDS;
  const ceiling = config.max_output_bytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const json = JSON.stringify(argumentsObject);
  const options = {
    cwd: context.cwd,
    input: json,
    env: { CXC_TOOL_NAME: name, CXC_TOOL_ARGUMENTS: json, CXC_CONVERSATION_ID: context.conversationId },
    reject: false,
    maxBuffer: ceiling,
    stripFinalNewline: false,
    // Its own process group: a Ctrl-C meant for cxc does not reach the tool behind its back, and
    // a timeout or cancellation can stop the whole group (a shell's children hold the pipes open).
    detached: true,
  } as const;
  // Loaded on first use: execa is a large import, and most turns run no local command.
  const { execa } = await import("execa");
  const subprocess =
    typeof config.command === "string"
      ? execa(fillPlaceholders(config.command, argumentsObject, shellQuote), { ...options, shell: true })
      : execa(
          config.command[0]!,
          config.command.slice(1).map((part) => fillPlaceholders(part, argumentsObject, (value) => value)),
          options,
        );
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
