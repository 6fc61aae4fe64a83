/**
 * Which tools a turn offers, how each is approved, and whether the model is forced to call one.
 *
 * Sources: the built-in registry and `conversation.tools.<name>` entries with a `command` (local
 * command tools). An entry without `command` configures a built-in tool of that name; the `'*'`
 * entry supplies defaults for every tool. Per tool, `enable` is `true`, `false` or `"explicit"`
 * (offered only when named with `-t` or `-u`), and `run` is `ask`, `unattended`, `edit` or `skip`.
 *
 * `-t NAME` / `-T NAME` directives apply left to right as given; `-u NAME` forces the model to call
 * NAME on the first cycle and implies `-t NAME`. Naming a tool that does not exist is a usage error.
 */
import { type ConfigTable, isConfigTable } from "../core/config.js";
import type { ToolChoice, ToolDefinition } from "../core/conversation/request.js";
import { CxcError, usageError } from "../errors.js";
import {
  createLocalCommandTool,
  isToolConfigProblem,
  parseLocalCommandConfig,
  parseSharedToolEnv,
  type ToolConfigProblem,
} from "../tools/local-command.js";
import type { ToolRegistry } from "../tools/registry.js";
import { type EnableState, RUN_MODES, type RunMode, type Tool } from "../tools/tool.js";

/** One `-t NAME` (enable) or `-T NAME` (disable), in command-line order. */
export interface ToolDirective {
  readonly name: string;
  readonly enable: boolean;
}

/** A tool offered to the model this turn. */
export interface SelectedTool {
  readonly tool: Tool;
  readonly run: RunMode;
}

/** The outcome of selection. */
export interface ToolSelection {
  /** Offered tools, in a stable order (built-ins first, then configured ones by name). */
  readonly tools: readonly SelectedTool[];
  /** The tool the model must call on the first cycle (`-u`). */
  readonly forced?: string;
}

/** Inputs of `selectTools`. */
export interface SelectToolsOptions {
  readonly registry: ToolRegistry;
  /** `conversation.tools` */
  readonly configured: ConfigTable;
  readonly directives?: readonly ToolDirective[];
  readonly forced?: string;
  /** cxc's environment, which local commands get a minimal part of (default: `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Provider key variables of the configuration, refused in a tool's `env` list. */
  readonly protectedVariables?: readonly string[];
}

/** Resolves the tools of a turn; throws a usage or configuration error. */
export function selectTools(options: SelectToolsOptions): ToolSelection {
  const defaults = tableOrEmpty(options.configured["*"], "*");
  // A built-in that is off by default exists only where its own entry enables it (tool.ts).
  const local = (tool: Tool, entry: Readonly<Record<string, unknown>>): boolean =>
    tool.source === "builtin" && tool.defaults.enable === false && entry.enable === undefined;
  const all = collectTools(options);
  const candidates = all.filter(({ tool, entry }) => !local(tool, entry));
  const enabled = new Map<string, boolean>();
  const names = candidates.map((entry) => entry.tool.name);
  for (const { tool, entry } of candidates) {
    const state = readEnable(tool.name, entry.enable ?? defaults.enable ?? tool.defaults.enable);
    enabled.set(tool.name, state === true);
  }
  const directives = [...(options.directives ?? [])];
  if (options.forced !== undefined) directives.push({ name: options.forced, enable: true });
  for (const directive of directives) {
    if (!enabled.has(directive.name)) {
      const elsewhere = all.find(({ tool }) => tool.name === directive.name);
      throw elsewhere === undefined ? unknownTool(directive.name, names) : notHere(directive.name, names);
    }
    enabled.set(directive.name, directive.enable);
  }
  const tools = candidates
    .filter(({ tool }) => enabled.get(tool.name))
    .map(({ tool, entry }) => ({
      tool,
      run: readRunMode(tool.name, entry.run ?? defaults.run ?? tool.defaults.run),
    }));
  return options.forced === undefined ? { tools } : { tools, forced: options.forced };
}

/** Tool definitions as sent to the model. */
export function toolDefinitions(selection: ToolSelection): ToolDefinition[] {
  return selection.tools.map(({ tool }) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.arguments.schema,
  }));
}

/** The tool choice of a cycle: forced on the first cycle only, as jp does. */
export function toolChoiceForCycle(selection: ToolSelection, cycle: number): ToolChoice | undefined {
  if (selection.forced === undefined || cycle > 0) return undefined;
  return { type: "tool", name: selection.forced };
}

function collectTools({
  registry,
  configured,
  env,
  protectedVariables,
}: SelectToolsOptions): { tool: Tool; entry: Readonly<Record<string, unknown>> }[] {
  const result: { tool: Tool; entry: Readonly<Record<string, unknown>> }[] = [];
  const sharedEnv = parseSharedToolEnv(tableOrEmpty(configured["*"], "*"), protectedVariables);
  if (!Array.isArray(sharedEnv)) throw configProblem(sharedEnv);
  for (const tool of registry.list()) {
    result.push({ tool, entry: tableOrEmpty(configured[tool.name], tool.name) });
  }
  for (const name of Object.keys(configured).sort()) {
    if (name === "*" || registry.get(name)) continue;
    const entry = tableOrEmpty(configured[name], name);
    if (entry.command === undefined) {
      throw new CxcError(
        "invalid-config",
        `conversation.tools.${name} has no command and is not a built-in tool`,
        {
          hint: `add conversation.tools.${name}.command, or remove the entry`,
        },
      );
    }
    const config = parseLocalCommandConfig(name, entry, protectedVariables, sharedEnv);
    if (isToolConfigProblem(config)) throw configProblem(config);
    result.push({ tool: createLocalCommandTool(name, config, env === undefined ? {} : { env }), entry });
  }
  return result;
}

function configProblem(problem: ToolConfigProblem): CxcError {
  return new CxcError(
    "invalid-config",
    problem.problem,
    problem.hint === undefined ? {} : { hint: problem.hint },
  );
}

function tableOrEmpty(value: unknown, name: string): Readonly<Record<string, unknown>> {
  if (value === undefined) return {};
  if (!isConfigTable(value))
    throw new CxcError("invalid-config", `conversation.tools.${name} must be a table`);
  return value;
}

function readEnable(name: string, value: unknown): EnableState {
  if (value === true || value === "on" || value === "true") return true;
  if (value === false || value === "off" || value === "false") return false;
  if (value === "explicit") return "explicit";
  throw new CxcError("invalid-config", `conversation.tools.${name}.enable must be true, false or "explicit"`);
}

function readRunMode(name: string, value: unknown): RunMode {
  if ((RUN_MODES as readonly unknown[]).includes(value)) return value as RunMode;
  throw new CxcError(
    "invalid-config",
    `conversation.tools.${name}.run must be one of ${RUN_MODES.join(", ")}`,
  );
}

function notHere(name: string, known: readonly string[]): CxcError {
  return usageError(
    `tool '${name}' is not available in this conversation`,
    `${name} works only inside a compaction review (cxc conversation compact --interactive); available tools: ${known.join(", ")}`,
  );
}

function unknownTool(name: string, known: readonly string[]): CxcError {
  return usageError(
    `tool '${name}' not found`,
    known.length === 0
      ? "no tools are configured; define one under conversation.tools.<name> (see docs/query.md)"
      : `available tools: ${known.join(", ")}`,
  );
}
