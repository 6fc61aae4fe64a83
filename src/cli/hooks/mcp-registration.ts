/**
 * `cxc mcp` registered with Claude Code and Codex through the agent's own command (`claude mcp
 * add|remove`, `codex mcp add|remove`), never by editing the agent's files: Claude Code keeps its
 * MCP servers in `~/.claude.json`, which it rewrites from memory while it runs.
 *
 * The scope follows the install's: Claude Code's `--scope user|project|local` for `--user`,
 * `--project DIR`, `--local DIR` (run in DIR); Codex's `mcp add` has one scope, its
 * `config.toml` (`$CODEX_HOME`), so only `--user` registers there. Where the agent's command is
 * not on `PATH`, the pinned version has no `mcp add`, or the scope has no place, the hooks are
 * installed all the same and the one command that adds the server is printed; it never fails
 * the install.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";

type Environment = Readonly<Record<string, string | undefined>>;

/** The server's name in the agent's configuration (its tool is `mcp__cxc__recall` there). */
export const MCP_SERVER_NAME = "cxc";

/** The install's scope, as registration needs it. */
export type McpScope =
  | { readonly kind: "user" }
  | { readonly kind: "project" | "local"; readonly directory: string };

/** What registering or removing did. */
export interface McpRegistration {
  readonly done: boolean;
  /** One line for the user. */
  readonly message: string;
  /** The command to run by hand when it was not done. */
  readonly command?: string;
}

/** The agents cxc registers its MCP server with. */
export type McpRegistrationAgent = "claude-code" | "codex";

const PROGRAMS: Readonly<Record<McpRegistrationAgent, string>> = { "claude-code": "claude", codex: "codex" };

/** A program's path on `PATH`, or undefined. */
export function onPath(program: string, env: Environment): string | undefined {
  for (const directory of (env.PATH ?? "").split(delimiter)) {
    if (directory === "") continue;
    const path = join(directory, program);
    if (existsSync(path)) return path;
  }
  return undefined;
}

function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/** The `mcp add` arguments for `agent` in `scope`, or why that scope has no place. */
function addArguments(
  agent: McpRegistrationAgent,
  scope: McpScope,
  serverCommand: readonly string[],
): { args: string[] } | { reason: string } {
  if (agent === "claude-code")
    return { args: ["mcp", "add", "--scope", scope.kind, MCP_SERVER_NAME, "--", ...serverCommand] };
  if (scope.kind !== "user")
    return {
      reason: "Codex's `mcp add` registers servers for the user only (its config.toml)",
    };
  return { args: ["mcp", "add", MCP_SERVER_NAME, "--", ...serverCommand] };
}

function removeArguments(agent: McpRegistrationAgent, scope: McpScope): string[] {
  return agent === "claude-code"
    ? ["mcp", "remove", "--scope", scope.kind, MCP_SERVER_NAME]
    : ["mcp", "remove", MCP_SERVER_NAME];
}

function run(
  program: string,
  args: readonly string[],
  scope: McpScope,
  env: Environment,
): { ok: boolean; output: string; missing: boolean } {
  const result = spawnSync(program, args, {
    cwd: scope.kind === "user" ? undefined : scope.directory,
    env: env as NodeJS.ProcessEnv,
    encoding: "utf8",
    timeout: 60_000,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`.trim();
  return {
    ok: result.status === 0,
    output,
    missing: result.error !== undefined && (result.error as NodeJS.ErrnoException).code === "ENOENT",
  };
}

/** The first line of a command's output, for a message. */
function firstLine(text: string): string {
  return (text.split("\n").find((line) => line.trim() !== "") ?? "").trim().slice(0, 200);
}

/**
 * Registers `cxc mcp --agent AGENT` (run as `serverCommand`) with the agent; a server of the same
 * name is replaced, so installing again after moving cxc updates it.
 */
export function registerMcpServer(
  agent: McpRegistrationAgent,
  scope: McpScope,
  serverCommand: readonly string[],
  env: Environment,
  options: { readonly dryRun?: boolean } = {},
): McpRegistration {
  const program = PROGRAMS[agent];
  const add = addArguments(agent, scope, serverCommand);
  if ("reason" in add) {
    const command = `${program} mcp add ${MCP_SERVER_NAME} -- ${serverCommand.map(quote).join(" ")}`;
    return {
      done: false,
      message: `cxc's MCP server (recall) was not registered: ${add.reason}; to offer it to every session, run: ${command}`,
      command,
    };
  }
  const shown = `${program} ${add.args.map(quote).join(" ")}`;
  const path = onPath(program, env);
  if (path === undefined)
    return {
      done: false,
      message: `cxc's MCP server (recall) was not registered: \`${program}\` is not on PATH; once it is, run: ${shown}`,
      command: shown,
    };
  if (options.dryRun === true)
    return {
      done: false,
      message: `dry run: would register cxc's MCP server (recall): ${shown}`,
      command: shown,
    };
  // A server of this name from an earlier install goes first (its paths may have changed).
  run(path, removeArguments(agent, scope), scope, env);
  const added = run(path, add.args, scope, env);
  if (!added.ok)
    return {
      done: false,
      message: `cxc's MCP server (recall) was not registered: \`${program} mcp add\` failed (${firstLine(added.output) || "no output"}); run it yourself: ${shown}`,
      command: shown,
    };
  return {
    done: true,
    message: `Registered cxc's MCP server (recall) with \`${program} mcp add\` (${scope.kind} scope).`,
  };
}

/** Removes cxc's MCP server the way it was added; says so when there was none or it cannot. */
export function unregisterMcpServer(
  agent: McpRegistrationAgent,
  scope: McpScope,
  env: Environment,
  options: { readonly dryRun?: boolean } = {},
): McpRegistration {
  const program = PROGRAMS[agent];
  const args = removeArguments(agent, scope);
  const shown = `${program} ${args.join(" ")}`;
  if (agent === "codex" && scope.kind !== "user") return { done: false, message: "" };
  const path = onPath(program, env);
  if (path === undefined)
    return {
      done: false,
      message: `cxc's MCP server was not looked for: \`${program}\` is not on PATH; if it is registered, run: ${shown}`,
      command: shown,
    };
  if (options.dryRun === true) return { done: false, message: `dry run: would run ${shown}`, command: shown };
  const removed = run(path, args, scope, env);
  return removed.ok
    ? { done: true, message: `Removed cxc's MCP server with \`${shown}\`.` }
    : { done: false, message: "" };
}
