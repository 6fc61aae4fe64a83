/**
 * A conversation's projected view written as a new session of Claude Code, pi, Codex or Gemini
 * CLI, in the agent's own folder (or `--output`), atomically and never over an existing file, with
 * the command that resumes it. The sessions themselves are the pure writers of src/core/interop/
 * (claude-code-export.ts, pi-export.ts, codex-export.ts, gemini-export.ts). See
 * docs/import-export.md.
 */
import type { ExportRecallIndex } from "../core/interop/agent-export.js";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import type { AgentSessionExport } from "../core/interop/agent-export.js";
import {
  claudeCodeProjectFolder,
  type ExportAgent,
  modelOf,
  ORIGIN_META_KEY,
  piSessionFileName,
  piSessionFolder,
} from "../core/interop/agent-session.js";
import { exportClaudeCodeSession } from "../core/interop/claude-code-export.js";
import { exportCodexSession } from "../core/interop/codex-export.js";
import { exportGeminiSession, geminiSessionFileName } from "../core/interop/gemini-export.js";
import type { OpencodeDocument } from "../core/interop/opencode.js";
import { exportOpencodeSession } from "../core/interop/opencode-export.js";
import { exportPiSession } from "../core/interop/pi-export.js";
import { CxcError, usageError } from "../errors.js";
import { createFileAtomic, ensureDirectory, findOnPath } from "./files.js";
import { nodeCrypto } from "./lazy-crypto.js";
import type { Environment, LoadedConversation } from "./port.js";
import type { Parsed } from "../core/parsed.js";

/** What `export --to claude-code|pi|codex` decides and what it wrote. */
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
  /**
   * The recall index the session carries (Claude Code, pi, Codex), its references naming the cxc
   * conversation (docs/recall.md, "Exports").
   */
  readonly recallIndex?: ExportRecallIndex;
}

export interface AgentExportResult {
  readonly path: string;
  readonly sessionId: string;
  /** The working directory the session belongs to (the agent must be started there). */
  readonly cwd: string;
  /** The command that continues the session, as arguments. */
  readonly resume: readonly string[];
  /** The same for scripts, where the agent has a form of it (`codex exec resume <id> "…"`). */
  readonly resumeInScripts?: readonly string[];
  /** Where the agent looks for the session, when the file was written elsewhere (`--output`). */
  readonly agentPath?: string;
  /** The command that brings the written file into the agent first (opencode's `import`), when cxc did not run it. */
  readonly importCommand?: readonly string[];
  readonly nativeSummaries: number;
  readonly warnings: readonly string[];
  /**
   * The lines written, for a session file of lines (what `import --update` finds the session still
   * begins with); absent for opencode's, which goes into its database.
   */
  readonly lines?: readonly string[];
  /**
   * opencode's: the session written, as a document (what `import --update` finds the session still
   * begins with, converted: opencode keeps it as rows, not lines).
   */
  readonly opencodeDocument?: OpencodeDocument;
}

const DEFAULT_MODEL = { provider: "anthropic", model: "claude-sonnet-4-5" };

/** Writes the projected view of `conversation` as a new session of the agent. */
export function writeAgentExport(
  conversation: LoadedConversation,
  request: AgentExportRequest,
): AgentExportResult {
  if (request.agent === "opencode") return writeOpencodeExport(conversation, request);
  const origin = conversation.meta[ORIGIN_META_KEY];
  const originCwd =
    typeof origin === "object" && origin !== null && typeof (origin as { cwd?: unknown }).cwd === "string"
      ? (origin as { cwd: string }).cwd
      : undefined;
  const cwd = originCwd ?? request.cwd;
  const model = chooseModel(request.model, conversation);
  const sessionId = nodeCrypto().randomUUID();
  let session: Parsed<AgentSessionExport>;
  let path: string;
  let agentPath: string | undefined;
  /** A folder to create, with a file in it, before the session (Gemini CLI's project marker). */
  let marker: { readonly path: string; readonly text: string } | undefined;
  if (request.agent === "gemini") {
    const gemini = geminiDirectory(request.env);
    const project = geminiProject(gemini, cwd);
    session = exportGeminiSession(conversation.events, {
      sessionId,
      projectHash: nodeCrypto().createHash("sha256").update(resolve(cwd)).digest("hex"),
      timestamp: request.now,
      model: model.provider === "google" ? model.model : GEMINI_MODEL,
      newId: () => nodeCrypto().randomUUID(),
    });
    // Gemini CLI resumes by id from the project's own folder only.
    agentPath = join(gemini, "tmp", project.slug, "chats", geminiSessionFileName(request.now, sessionId));
    path = request.output ?? agentPath;
    if (request.output === undefined && project.claimed) {
      marker = { path: join(gemini, "tmp", project.slug, ".project_root"), text: resolve(cwd) };
    }
  } else if (request.agent === "claude-code") {
    session = exportClaudeCodeSession(conversation.events, {
      ...(request.recallIndex === undefined ? {} : { recallIndex: request.recallIndex }),
      sessionId,
      cwd,
      newUuid: () => nodeCrypto().randomUUID(),
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
  } else if (request.agent === "pi") {
    session = exportPiSession(conversation.events, {
      ...(request.recallIndex === undefined ? {} : { recallIndex: request.recallIndex }),
      sessionId,
      cwd,
      timestamp: request.now,
      provider: model.provider,
      model: model.model,
      newId: () => nodeCrypto().randomUUID().slice(0, 8),
    });
    path =
      request.output ??
      join(
        piAgentDirectory(request.env),
        "sessions",
        piSessionFolder(cwd),
        piSessionFileName(request.now, sessionId),
      );
  } else {
    session = exportCodexSession(conversation.events, {
      ...(request.recallIndex === undefined ? {} : { recallIndex: request.recallIndex }),
      sessionId,
      cwd,
      timestamp: request.now,
      version: codexVersion(conversation),
      // Codex resumes a session only under the provider it records: name one only when asked to.
      ...(request.model?.includes("/") ? { provider: model.provider } : {}),
    });
    // Codex finds a session by the id at the end of a rollout's name, under its dated folders.
    agentPath = join(codexHome(request.env), "sessions", ...codexRolloutPath(request.now, sessionId));
    path = request.output ?? agentPath;
  }
  if (!session.ok) throw new CxcError("internal", `conversation ${conversation.meta.id}: ${session.message}`);
  const text = session.value.lines.map((line) => `${line}\n`).join("");
  if (marker !== undefined) writeNewFile(marker.path, marker.text);
  writeNewFile(path, text);
  const resume =
    request.agent === "claude-code"
      ? ["claude", "--resume", sessionId]
      : request.agent === "pi"
        ? ["pi", "--session", path]
        : request.agent === "gemini"
          ? ["gemini", "--resume", sessionId]
          : ["codex", "resume", sessionId];
  return {
    path,
    sessionId,
    cwd,
    resume,
    ...(request.agent === "codex" ? { resumeInScripts: ["codex", "exec", "resume", sessionId, "…"] } : {}),
    ...(agentPath !== undefined && agentPath !== path ? { agentPath } : {}),
    nativeSummaries: session.value.nativeSummaries,
    warnings: session.value.warnings,
    lines: session.value.lines,
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

/** The opencode version a new session says made it: the conversation's, else the one cxc tests with. */
const OPENCODE_VERSION = "1.18.33";

/**
 * The projected view as a new opencode session, brought in by opencode's own `opencode import`
 * (run in the session's folder, which opencode records as the session's): the document is
 * written to a private temporary file, imported, and removed. opencode's import is not atomic, so
 * a failed one has its half-made session deleted again (`opencode session delete`, the new id
 * only). With `--output`, or without `opencode` on PATH, the document is written (never over a
 * file) and the import is left to the user.
 */
function writeOpencodeExport(
  conversation: LoadedConversation,
  request: AgentExportRequest,
): AgentExportResult {
  const origin = conversation.meta[ORIGIN_META_KEY] as
    | { agent?: unknown; cwd?: unknown; version?: unknown }
    | undefined;
  const recorded = typeof origin?.cwd === "string" ? origin.cwd : undefined;
  const cwd = recorded !== undefined && isDirectory(recorded) ? recorded : request.cwd;
  const model = chooseModel(request.model, conversation);
  const now = Date.parse(request.now);
  const ids = opencodeIds(Number.isNaN(now) ? Date.now() : now);
  const sessionId = ids.session();
  const session = exportOpencodeSession(conversation.events, {
    sessionId,
    directory: cwd,
    title: conversation.meta.title ?? "Exported from cxc",
    timestamp: request.now,
    version:
      origin?.agent === "opencode" && typeof origin.version === "string" ? origin.version : OPENCODE_VERSION,
    providerID: model.provider,
    modelID: model.model,
    newId: ids.next,
  });
  if (!session.ok) throw new CxcError("internal", `conversation ${conversation.meta.id}: ${session.message}`);
  const text = `${JSON.stringify(session.value.document, null, 2)}\n`;
  const base = {
    sessionId,
    cwd,
    resume: ["opencode", "--session", sessionId],
    resumeInScripts: ["opencode", "run", "--session", sessionId, "…"],
    nativeSummaries: session.value.nativeSummaries,
    warnings: session.value.warnings,
  };
  const opencode = request.output === undefined ? findOnPath("opencode", request.env.PATH ?? "") : undefined;
  if (opencode === undefined) {
    const path = request.output ?? join(request.cwd, `opencode-${sessionId}.json`);
    writeNewFile(path, text);
    return {
      ...base,
      path,
      importCommand: ["opencode", "import", path],
      opencodeDocument: session.value.document,
    };
  }
  const folder = mkdtempSync(join(tmpdir(), "cxc-opencode-"));
  const file = join(folder, `${sessionId}.json`);
  try {
    createFileAtomic(file, text);
    const run = (args: string[]) =>
      execFileSync(opencode, args, {
        cwd,
        env: request.env as NodeJS.ProcessEnv,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
        timeout: 120_000,
      });
    try {
      const output = run(["import", file]);
      if (!output.includes(sessionId)) throw new Error(output.trim() || "it printed nothing");
    } catch (error) {
      try {
        run(["session", "delete", sessionId]);
      } catch {
        // Nothing was made, or opencode cannot say: either way nothing else is touched.
      }
      const stderr = String((error as { stderr?: unknown }).stderr ?? "").trim();
      throw new CxcError(
        "store-unreadable",
        `opencode import failed: ${stderr.split("\n").at(-1) || (error as Error).message}`,
        {
          hint: "pass --output FILE to write the session and import it yourself with `opencode import FILE`",
        },
      );
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  return { ...base, path: `${sessionId} (opencode's database)`, opencodeDocument: session.value.document };
}

/** opencode's ids: `<prefix>_` + 12 hex digits of (time × 4096 + a counter), inverted for sessions, + 14 random base-62 characters. */
function opencodeIds(start: number): { session: () => string; next: (kind: "msg" | "prt") => string } {
  const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  const random = () =>
    [...nodeCrypto().randomBytes(14)].map((byte) => alphabet[byte % alphabet.length]).join("");
  let counter = 0;
  const stamp = (descending: boolean) => {
    counter += 1;
    let value = BigInt(start) * 4096n + BigInt(counter);
    if (descending) value = ~value & 0xffffffffffffn;
    return value.toString(16).padStart(12, "0").slice(-12);
  };
  return {
    session: () => `ses_${stamp(true)}${random()}`,
    next: (kind) => `${kind}_${stamp(false)}${random()}`,
  };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The model a Gemini CLI session names on its replies when the conversation had no Gemini model. */
const GEMINI_MODEL = "gemini-2.5-pro";

/** Gemini CLI's folder: `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`. */
function geminiDirectory(env: Environment): string {
  return join(env.GEMINI_CLI_HOME || env.HOME || homedir(), ".gemini");
}

/**
 * The folder name Gemini CLI gives a project (`~/.gemini/tmp/<slug>`): the one its registry
 * (`projects.json`) or a folder's `.project_root` marker names for the working directory, else a
 * new one made as Gemini CLI makes them (the folder's name, lower case, `-` for the rest, `-N`
 * when taken), which the export claims by writing the marker Gemini CLI then adopts. cxc never
 * writes Gemini's registry.
 */
function geminiProject(gemini: string, cwd: string): { slug: string; claimed: boolean } {
  const root = resolve(cwd);
  const owner = (slug: string, base: string): string | undefined => {
    try {
      return readFileSync(join(gemini, base, slug, ".project_root"), "utf8").trim();
    } catch {
      return undefined;
    }
  };
  let registered: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(readFileSync(join(gemini, "projects.json"), "utf8")) as { projects?: unknown };
    if (typeof parsed.projects === "object" && parsed.projects !== null) {
      registered = parsed.projects as Record<string, unknown>;
    }
  } catch {
    // No registry yet (or one Gemini CLI would reset): the markers decide.
  }
  const listed = registered[root];
  if (typeof listed === "string" && [undefined, root].includes(owner(listed, "tmp"))) {
    return { slug: listed, claimed: false };
  }
  for (const base of ["tmp", "history"]) {
    let names: string[] = [];
    try {
      names = readdirSync(join(gemini, base));
    } catch {
      continue;
    }
    const found = names.find((name) => owner(name, base) === root);
    if (found !== undefined)
      return { slug: found, claimed: !existsSync(join(gemini, "tmp", found, ".project_root")) };
  }
  const taken = new Set(
    Object.values(registered).filter((value): value is string => typeof value === "string"),
  );
  const stem =
    basename(root)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, "-")
      .replace(/-+/g, "-")
      .replace(/^-|-$/g, "") || "project";
  for (let counter = 0; ; counter++) {
    const slug = counter === 0 ? stem : `${stem}-${counter}`;
    if (taken.has(slug) || existsSync(join(gemini, "tmp", slug)) || existsSync(join(gemini, "history", slug)))
      continue;
    return { slug, claimed: true };
  }
}

/** Codex's folder: `CODEX_HOME`, else `~/.codex`. */
function codexHome(env: Environment): string {
  return env.CODEX_HOME || join(env.HOME ?? homedir(), ".codex");
}

/**
 * Where Codex keeps a rollout started at `now`: `YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl`
 * (Codex uses local time; any date folder is found, since Codex looks a session up by its id).
 */
function codexRolloutPath(now: string, sessionId: string): string[] {
  const stamp = new Date(now).toISOString().slice(0, 19);
  const [date] = stamp.split("T") as [string];
  const [year, month, day] = date.split("-") as [string, string, string];
  return [year, month, day, `rollout-${stamp.replace(/:/g, "-")}-${sessionId}.jsonl`];
}

/** The Codex version a conversation came from (its rollout's), else the one cxc's tests resume with. */
function codexVersion(conversation: LoadedConversation): string {
  const origin = conversation.meta[ORIGIN_META_KEY] as { agent?: unknown; version?: unknown } | undefined;
  return origin?.agent === "codex" && typeof origin.version === "string" ? origin.version : CODEX_VERSION;
}

/** The Codex version cxc's interop tests resume exported rollouts with (agents/codex/package.json). */
const CODEX_VERSION = "0.169.0";

/**
 * Creates the file and its folder; never replaces a file that is there. The folder is made one
 * level at a time (`ensureDirectory`): a parent that is a file is named as such, and a folder
 * under `/proc` (a `CODEX_HOME` there) fails at once instead of spinning.
 */
function writeNewFile(path: string, text: string): void {
  if (existsSync(path)) {
    throw usageError(`${path} already exists; export never overwrites a file`, "pass another --output path");
  }
  try {
    ensureDirectory(dirname(path));
  } catch (error) {
    throw usageError(
      `cannot create the folder of ${path}: ${(error as Error).message}`,
      "pass another --output path (or set the agent's folder, e.g. CODEX_HOME, to a directory)",
    );
  }
  try {
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
