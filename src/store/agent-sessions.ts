/**
 * Claude Code and pi session files: reading them into conversations (streamed, line by line) and
 * writing a conversation's projected view as a new session the agent resumes. The conversions
 * are the pure readers and writers of src/core/interop/ (claude-code*.ts, pi*.ts); this module
 * finds the files, streams them, and writes the new session atomically without ever replacing a
 * file. The agents' own files are only read. See docs/import-export.md.
 */
import { randomUUID } from "node:crypto";
import {
  createReadStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readSync,
  openSync,
  closeSync,
  statSync,
} from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import {
  AGENT_NAMES,
  type AgentFormat,
  type AgentImport,
  type AgentImportSummary,
  claudeCodeProjectFolder,
  detectAgentSession,
  type ExportAgent,
  modelOf,
  ORIGIN_META_KEY,
  piSessionFileName,
  piSessionFolder,
} from "../core/interop/agent-session.js";
import type { AgentSessionExport } from "../core/interop/agent-export.js";
import { ClaudeCodeSessionReader } from "../core/interop/claude-code.js";
import { CodexSessionReader } from "../core/interop/codex.js";
import { exportClaudeCodeSession } from "../core/interop/claude-code-export.js";
import { eventListProblem, type ImportedConversation, type InteropResult } from "../core/interop/jp.js";
import { exportPiSession } from "../core/interop/pi-export.js";
import { PiSessionReader } from "../core/interop/pi.js";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../core/json-syntax.js";
import { CxcError, usageError } from "../errors.js";
import { createFileAtomic } from "./files.js";
import type { Environment, LoadedConversation } from "./port.js";

export { AGENT_FORMATS, AGENT_NAMES, type AgentFormat } from "../core/interop/agent-session.js";

/** One session file read: where it was and what the import made of it. */
export interface AgentFileImport {
  readonly file: string;
  readonly conversation: ImportedConversation;
  readonly summary: AgentImportSummary;
}

/** Every session of a file or folder, read and converted; nothing written yet. */
export interface AgentImportBatch {
  readonly agent: AgentFormat;
  readonly files: AgentFileImport[];
  /** Subagent transcripts (`<session>/subagents/*.jsonl`) next to the sessions, left out. */
  readonly subagentFiles: number;
  readonly warnings: string[];
}

/**
 * The agent whose session PATH is (a `.jsonl` file, or a folder of them such as
 * `~/.claude/projects/<project>`), judged by the first line of its (first) file; undefined when
 * PATH is something else (a cxc log, a jp directory, a JSON document).
 */
export function detectAgentPath(path: string): AgentFormat | undefined {
  const files = sessionFilesOf(path);
  const first = files?.[0];
  if (first === undefined) return undefined;
  const line = firstLine(first);
  if (line === undefined || line.includes('"conversation-log"')) return undefined;
  return detectAgentSession(line);
}

/**
 * Reads PATH (one session file or a folder of them) as sessions of `agent`, streaming each file
 * line by line. Throws a `CxcError` naming the file (and line) on the first problem.
 */
export async function readAgentImport(path: string, agent: AgentFormat): Promise<AgentImportBatch> {
  const files = sessionFilesOf(path);
  if (files === undefined) throw new CxcError("import-invalid", `${path}: no such file or directory`);
  if (files.length === 0) {
    throw new CxcError("import-invalid", `${path}: holds no .jsonl session files`, {
      hint: `pass a ${AGENT_NAMES[agent]} session file or the folder that holds them`,
    });
  }
  const imports: AgentFileImport[] = [];
  const warnings: string[] = [];
  for (const file of files) {
    const result = await readSessionFile(file, agent);
    if (!result.ok) throw new CxcError("import-invalid", result.error);
    const { conversation, summary } = result.value;
    const problem = eventListProblem(conversation.events);
    if (problem !== undefined) throw new CxcError("import-invalid", `${file}: ${problem}`);
    warnings.push(...result.value.warnings);
    const origin = {
      ...(conversation.extra[ORIGIN_META_KEY] as Record<string, unknown>),
      file: resolve(file),
    };
    imports.push({
      file,
      // Messages name the file ("… was already imported as …"), not the agent's session id.
      conversation: {
        ...conversation,
        sourceId: file,
        extra: { ...conversation.extra, [ORIGIN_META_KEY]: origin },
      },
      summary,
    });
  }
  const subagentFiles = agent === "claude-code" ? countSubagentFiles(files) : 0;
  return { agent, files: imports, subagentFiles, warnings };
}

/** The session files PATH stands for, sorted; undefined when PATH does not exist. */
function sessionFilesOf(path: string): string[] | undefined {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch {
    return undefined;
  }
  if (!isDirectory) return [path];
  // The folder's own sessions only: subagents write theirs one level down (`<session>/subagents/`).
  const own = readdirSync(path, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".jsonl") && !entry.name.startsWith("."))
    .map((entry) => join(path, entry.name))
    .sort();
  // Codex keeps its rollouts by date (`sessions/YYYY/MM/DD/rollout-….jsonl`).
  return own.length > 0 ? own : rolloutFiles(path);
}

/** `rollout-*.jsonl` files anywhere under `path`, sorted (Codex's dated folders). */
function rolloutFiles(path: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const inner = join(path, entry.name);
    if (entry.isDirectory()) found.push(...rolloutFiles(inner));
    else if (entry.isFile() && /^rollout-.*\.jsonl$/.test(entry.name)) found.push(inner);
  }
  return found.sort();
}

/** Claude Code's subagent transcripts beside the given session files. */
function countSubagentFiles(files: readonly string[]): number {
  let total = 0;
  for (const file of files) {
    const folder = join(dirname(file), basename(file, ".jsonl"), "subagents");
    if (!existsSync(folder)) continue;
    total += readdirSync(folder).filter((name) => name.endsWith(".jsonl")).length;
  }
  return total;
}

/** The first non-empty line of a file (within its first 64 KiB), or undefined. */
function firstLine(file: string): string | undefined {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(file, "r");
    const buffer = Buffer.alloc(64 * 1024);
    const length = readSync(descriptor, buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, length).toString("utf8");
    return text.split("\n").find((line) => line.trim() !== "");
  } catch {
    return undefined;
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

/** Streams one file into the agent's reader; the last line without a newline is a fragment. */
async function readSessionFile(file: string, agent: AgentFormat): Promise<InteropResult<AgentImport>> {
  const reader =
    agent === "claude-code"
      ? new ClaudeCodeSessionReader(file)
      : agent === "pi"
        ? new PiSessionReader(file)
        : new CodexSessionReader(file);
  const endsWithNewline = lastByteIsNewline(file);
  const lines = createInterface({ input: createReadStream(file, { encoding: "utf8" }), crlfDelay: Infinity });
  let pending: string | undefined;
  let number = 0;
  try {
    for await (const line of lines) {
      if (pending !== undefined) {
        const added = reader.addLine(pending);
        if (!added.ok) return added;
      }
      number += 1;
      if (nestsDeeperThan(line, MAX_JSON_DEPTH)) {
        return {
          ok: false,
          error: `${file}:${number}: nested more than ${MAX_JSON_DEPTH} levels deep, which no session needs`,
        };
      }
      pending = line;
    }
  } catch (error) {
    return { ok: false, error: `${file}: cannot read it (${(error as Error).message})` };
  } finally {
    lines.close();
  }
  if (pending !== undefined) {
    const added = endsWithNewline ? reader.addLine(pending) : reader.addFinalFragment(pending);
    if (!added.ok) return added;
  }
  return reader.finish();
}

function lastByteIsNewline(file: string): boolean {
  const size = statSync(file).size;
  if (size === 0) return true;
  const descriptor = openSync(file, "r");
  try {
    const byte = Buffer.alloc(1);
    readSync(descriptor, byte, 0, 1, size - 1);
    return byte[0] === 0x0a;
  } finally {
    closeSync(descriptor);
  }
}

// ---------------------------------------------------------------------------------------------
// Export

/** What `export --to claude-code|pi` decides and what it wrote. */
export interface AgentExportRequest {
  readonly agent: ExportAgent;
  /** A file to write instead of the agent's own folder. */
  readonly output?: string;
  /** `provider/model` or a bare model name; default: the conversation's last model. */
  readonly model?: string;
  /** The working directory when the conversation came from no agent. */
  readonly cwd: string;
  readonly env: Environment;
  readonly now: string;
}

export interface AgentExportResult {
  readonly path: string;
  readonly sessionId: string;
  /** The working directory the session belongs to (the agent must be started there). */
  readonly cwd: string;
  /** The command that continues the session, as arguments. */
  readonly resume: readonly string[];
  /** Where the agent looks for the session, when the file was written elsewhere (`--output`). */
  readonly agentPath?: string;
  readonly nativeSummaries: number;
  readonly warnings: readonly string[];
}

const DEFAULT_MODEL = { provider: "anthropic", model: "claude-sonnet-4-5" };

/** Writes the projected view of `conversation` as a new session of the agent. */
export function writeAgentExport(
  conversation: LoadedConversation,
  request: AgentExportRequest,
): AgentExportResult {
  const origin = conversation.meta[ORIGIN_META_KEY];
  const originCwd =
    typeof origin === "object" && origin !== null && typeof (origin as { cwd?: unknown }).cwd === "string"
      ? (origin as { cwd: string }).cwd
      : undefined;
  const cwd = originCwd ?? request.cwd;
  const model = chooseModel(request.model, conversation);
  const sessionId = randomUUID();
  let session: InteropResult<AgentSessionExport>;
  let path: string;
  let agentPath: string | undefined;
  if (request.agent === "claude-code") {
    session = exportClaudeCodeSession(conversation.events, {
      sessionId,
      cwd,
      newUuid: () => randomUUID(),
      model: model.model,
    });
    // Claude Code resumes by id from its own folder only.
    agentPath = join(
      claudeConfigDirectory(request.env),
      "projects",
      claudeCodeProjectFolder(cwd),
      `${sessionId}.jsonl`,
    );
    path = request.output ?? agentPath;
  } else {
    session = exportPiSession(conversation.events, {
      sessionId,
      cwd,
      timestamp: request.now,
      provider: model.provider,
      model: model.model,
      newId: () => randomUUID().slice(0, 8),
    });
    path =
      request.output ??
      join(
        piAgentDirectory(request.env),
        "sessions",
        piSessionFolder(cwd),
        piSessionFileName(request.now, sessionId),
      );
  }
  if (!session.ok) throw new CxcError("internal", `conversation ${conversation.meta.id}: ${session.error}`);
  const text = session.value.lines.map((line) => `${line}\n`).join("");
  writeNewFile(path, text);
  const resume =
    request.agent === "claude-code" ? ["claude", "--resume", sessionId] : ["pi", "--session", path];
  return {
    path,
    sessionId,
    cwd,
    resume,
    ...(agentPath !== undefined && agentPath !== path ? { agentPath } : {}),
    nativeSummaries: session.value.nativeSummaries,
    warnings: session.value.warnings,
  };
}

/** `--model`, else the conversation's last model, else Anthropic's Claude Sonnet 4.5. */
function chooseModel(
  requested: string | undefined,
  conversation: LoadedConversation,
): { provider: string; model: string } {
  let id = requested;
  if (id === undefined) {
    for (const event of conversation.events) id = modelOf(event) ?? id;
  }
  if (id === undefined || id === "") return DEFAULT_MODEL;
  const slash = id.indexOf("/");
  if (slash <= 0) return { provider: DEFAULT_MODEL.provider, model: id };
  return { provider: id.slice(0, slash), model: id.slice(slash + 1) };
}

/** Claude Code's configuration folder: `CLAUDE_CONFIG_DIR`, else `~/.claude`. */
function claudeConfigDirectory(env: Environment): string {
  return env.CLAUDE_CONFIG_DIR || join(env.HOME ?? homedir(), ".claude");
}

/** pi's agent folder: `PI_CODING_AGENT_DIR`, else `~/.pi/agent`. */
function piAgentDirectory(env: Environment): string {
  const configured = env.PI_CODING_AGENT_DIR;
  if (configured)
    return configured.startsWith("~/") ? join(env.HOME ?? homedir(), configured.slice(2)) : configured;
  return join(env.HOME ?? homedir(), ".pi", "agent");
}

/** Creates the file and its folder; never replaces a file that is there. */
function writeNewFile(path: string, text: string): void {
  if (existsSync(path)) {
    throw usageError(`${path} already exists; export never overwrites a file`, "pass another --output path");
  }
  try {
    mkdirSync(dirname(path), { recursive: true });
    createFileAtomic(path, text);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      throw usageError(
        `${path} already exists; export never overwrites a file`,
        "pass another --output path",
      );
    }
    throw new CxcError("store-unreadable", `cannot write ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
