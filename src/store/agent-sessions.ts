/**
 * Claude Code, pi, Codex and Gemini CLI session files read into conversations, streamed line by
 * line and each line parsed once, in two passes over the records (the first keeps the parsed
 * records the second converts; past `KEEP_BYTES` a file's second pass reads it again; Gemini
 * CLI's in one: its reader keeps the messages it replays). An import converts Claude Code's and
 * pi's records as the first pass reads them and stages their events at once (`EarlyImport`),
 * holding neither. The
 * conversions are the pure readers of src/core/interop/ (claude-code.ts, pi.ts, codex.ts,
 * gemini.ts); this module finds the files and streams them. The agents' own files are only read.
 * Writing a conversation back as a new session is agent-exports.ts. See docs/import-export.md.
 */
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { type ConversationEvent, compareTimestamps } from "../core/conversation/events.js";
import {
  AGENT_NAMES,
  type AgentFormat,
  type AgentImportSummary,
  convertKept,
  detectAgentSession,
  ORIGIN_META_KEY,
  type SessionEnd,
  type SessionIndexer,
  SessionLineIndexer,
  type SessionPlan,
} from "../core/interop/agent-session.js";
import { ClaudeCodeSessionReader } from "../core/interop/claude-code.js";
import { CodexSessionReader } from "../core/interop/codex.js";
import { GeminiSessionReader } from "../core/interop/gemini.js";
import { convertOpencodeSession, opencodeConversation } from "../core/interop/opencode.js";
import { PiSessionReader } from "../core/interop/pi.js";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../core/json-syntax.js";
import { CxcError } from "../errors.js";
import { TurnTally } from "../core/conversation/turns.js";
import { lockedImport } from "./import.js";
import { isOpencodeDocument, opencodeDatabase, openOpencodeSource } from "./opencode-source.js";
import type { StagedConversation, Store } from "./port.js";
import type { Parsed } from "../core/parsed.js";

export { AGENT_FORMATS, AGENT_NAMES, type AgentFormat } from "../core/interop/agent-session.js";
export { type AgentExportRequest, type AgentExportResult, writeAgentExport } from "./agent-exports.js";

/** One session file after pass 1: where it is, and the plan that converts it. */
export interface AgentFileImport {
  readonly file: string;
  /** The conversation without its events and title; `sourceId` is the file. */
  readonly conversation: SessionPlan["conversation"];
  readonly plan: SessionPlan;
  /**
   * What pass 1 converted as it read the file (`SessionPlan.convertedAsRead`): the events, staged
   * as they came; pass 2 finishes the plan's converter and commits them.
   */
  readonly early?: EarlyImport;
}

/** Every session of a file or folder, indexed and validated; nothing converted or written yet. */
export interface AgentImportBatch {
  readonly agent: AgentFormat;
  readonly files: AgentFileImport[];
  /**
   * Subagent transcripts next to the sessions (Claude Code's `<session>/subagents/*.jsonl`,
   * Gemini CLI's `<parent session>/*.jsonl`), left out.
   */
  readonly subagentFiles: number;
  /** Files of a folder left out: without a single prompt, or holding a session another file holds. */
  readonly emptyFiles: number;
  readonly duplicateFiles: number;
  /** Closes what the batch holds open (opencode's database), once it is converted. */
  readonly release?: () => void;
}

/** What became of one session file. */
export interface AgentImportOutcome {
  readonly file: string;
  readonly id: string;
  readonly sourceId: string;
  readonly title?: string;
  readonly turns: number;
  readonly events: number;
  readonly skipped: boolean;
  readonly summary: AgentImportSummary;
  /** Everything of note about the file, in the order found. */
  readonly warnings: readonly string[];
}

/**
 * The agent whose session PATH is (a `.jsonl` file, or a folder of them such as
 * `~/.claude/projects/<project>`), judged by the first line of its (first) file; undefined when
 * PATH is something else (a cxc log, a jp directory, a JSON document).
 */
export function detectAgentPath(path: string): AgentFormat | undefined {
  if (opencodeDatabase(path) !== undefined || isOpencodeDocument(path)) return "opencode";
  const files = sessionFilesOf(path);
  const first = files?.[0];
  if (first === undefined) return undefined;
  if (first.endsWith(".json")) return isGeminiDocument(first) ? "gemini" : undefined;
  const line = firstLine(first);
  if (line === undefined || line.includes('"conversation-log"')) return undefined;
  return detectAgentSession(line);
}

/**
 * Pass 1 over PATH (one session file or a folder of them) as sessions of `agent`: streams each
 * file line by line, validating every line and keeping a small index of its records and the
 * parsed records pass 2 converts (see agent-session.ts). Throws a `CxcError` naming the file (and line) on the first problem, before
 * anything is written.
 */
export async function readAgentImport(
  path: string,
  agent: AgentFormat,
  env: Readonly<Record<string, string | undefined>> = process.env,
  options: {
    /**
     * Where an import will save the sessions: each file's records are then converted as pass 1
     * reads them and their events staged there at once (`EarlyImport`), none kept for pass 2.
     * `--update`, which compares the events before it writes, leaves it out.
     */
    readonly stageInto?: Pick<Store, "locate" | "stage">;
  } = {},
): Promise<AgentImportBatch> {
  if (agent === "opencode") return readOpencodeImport(path, env);
  const files = sessionFilesOf(path);
  if (files === undefined) throw new CxcError("import-invalid", `${path}: no such file or directory`);
  if (files.length === 0) {
    throw new CxcError("import-invalid", `${path}: holds no .jsonl session files`, {
      hint: `pass a ${AGENT_NAMES[agent]} session file or the folder that holds them`,
    });
  }
  const folder = statSync(path).isDirectory();
  const imports: AgentFileImport[] = [];
  try {
    return readFiles(path, agent, files, folder, imports, options.stageInto);
  } catch (error) {
    // Nothing of a batch that failed stays staged.
    for (const entry of imports) entry.early?.discard();
    throw error;
  }
}

function readFiles(
  path: string,
  agent: AgentFormat,
  files: readonly string[],
  folder: boolean,
  imports: AgentFileImport[],
  stageInto: Pick<Store, "locate" | "stage"> | undefined,
): AgentImportBatch {
  let emptyFiles = 0;
  // The bytes of the files whose records are kept for pass 2: beyond `KEEP_BYTES`, pass 2 reads
  // a file again instead, so a folder of any size streams.
  let keptBytes = 0;
  for (const file of files) {
    const size = statSync(file).size;
    const keep = keptBytes + size <= KEEP_BYTES;
    if (keep) keptBytes += size;
    const early = keep && stageInto !== undefined ? new EarlyImport(stageInto) : undefined;
    const plan = indexSessionFile(file, agent, keep, early);
    if (!plan.ok || plan.value.convertedAsRead !== true || plan.value.empty === true) early?.discard();
    if (!plan.ok) throw new CxcError("import-invalid", plan.message);
    if (plan.value.empty) {
      if (!folder) {
        throw new CxcError(
          "import-invalid",
          `${file}: a ${AGENT_NAMES[agent]} session without a single prompt; nothing to import`,
        );
      }
      emptyFiles += 1;
      continue;
    }
    const conversation = plan.value.conversation;
    const origin: Record<string, unknown> = {
      ...(conversation.extra[ORIGIN_META_KEY] as Record<string, unknown>),
      file: resolve(file),
    };
    if (agent === "gemini") {
      const root = geminiProjectRoot(file);
      if (root !== undefined) origin.cwd = root;
    }
    imports.push({
      file,
      // Messages name the file ("… was already imported as …"), not the agent's session id.
      conversation: {
        ...conversation,
        sourceId: file,
        extra: { ...conversation.extra, [ORIGIN_META_KEY]: origin },
      },
      plan: plan.value,
      ...(early !== undefined && plan.value.convertedAsRead === true ? { early } : {}),
    });
  }
  // A folder may hold one session twice (Gemini CLI keeps an older `.json` beside the `.jsonl` it
  // made of it): the file read last (in name order, so `.jsonl`) stands for it.
  const byId = new Map<string, AgentFileImport>();
  for (const entry of imports) {
    byId.get(entry.conversation.id)?.early?.discard();
    byId.set(entry.conversation.id, entry);
  }
  const unique = [...byId.values()];
  const subagentFiles =
    agent === "claude-code"
      ? countSubagentFiles(files)
      : agent === "gemini" && folder
        ? countGeminiSubagentFiles(path)
        : 0;
  return { agent, files: unique, subagentFiles, emptyFiles, duplicateFiles: imports.length - unique.length };
}

/**
 * opencode's sessions: every session of its database (a subagent's, which has a parent, is a side
 * chain, counted and left out), or the one session of an `opencode export` document. Only the
 * sessions' rows are read here; each session's messages and parts when it is converted.
 */
function readOpencodeImport(
  path: string,
  env: Readonly<Record<string, string | undefined>>,
): AgentImportBatch {
  if (!existsSync(path)) throw new CxcError("import-invalid", `${path}: no such file or directory`);
  const source = openOpencodeSource(path, env);
  const files: AgentFileImport[] = [];
  let subagents = 0;
  let empty = 0;
  for (const info of source.sessions) {
    if (typeof info.parentID === "string") {
      subagents += 1;
      continue;
    }
    if (!source.prompted.has(String(info.id))) {
      empty += 1;
      continue;
    }
    const sessionId = String(info.id);
    const label = source.path.endsWith(".json") ? source.path : `${source.path}#${sessionId}`;
    const identity = opencodeConversation(info, label);
    if (!identity.ok) throw new CxcError("import-invalid", identity.message);
    const conversation = identity.value;
    const origin = {
      ...(conversation.extra[ORIGIN_META_KEY] as Record<string, unknown>),
      file: resolve(source.path),
    };
    const plan: SessionPlan = {
      conversation,
      lines: 0,
      warnings: [],
      wants: () => false,
      convert: () => ({
        addLine: () => ({ ok: true, value: [] }),
        finish: () => {
          const document = source.load(sessionId);
          return document.ok ? convertOpencodeSession(document.value, label) : document;
        },
      }),
    };
    files.push({
      file: label,
      conversation: {
        ...conversation,
        sourceId: label,
        extra: { ...conversation.extra, [ORIGIN_META_KEY]: origin },
      },
      plan,
    });
  }
  if (files.length === 0) {
    source.close();
    const only = [
      subagents > 0 ? `${subagents} of subagents` : "",
      empty > 0 ? `${empty} without a prompt` : "",
    ]
      .filter(Boolean)
      .join(", ");
    throw new CxcError(
      "import-invalid",
      `${path}: holds no opencode sessions to import${only === "" ? "" : ` (only ${only})`}`,
    );
  }
  return {
    agent: "opencode",
    files,
    subagentFiles: subagents,
    emptyFiles: empty,
    duplicateFiles: 0,
    release: () => source.close(),
  };
}

/**
 * The project folder of a Gemini CLI session file: Gemini keeps its sessions in
 * `~/.gemini/tmp/<project>/chats/` and the folder's path in `~/.gemini/tmp/<project>/.project_root`.
 */
function geminiProjectRoot(file: string): string | undefined {
  try {
    const root = readFileSync(join(dirname(dirname(resolve(file))), ".project_root"), "utf8").trim();
    return root === "" ? undefined : root;
  } catch {
    return undefined;
  }
}

/** Gemini CLI's subagent sessions: `.jsonl` files in the folders beside its sessions. */
function countGeminiSubagentFiles(path: string): number {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    try {
      total += readdirSync(join(path, entry.name)).filter((name) => name.endsWith(".jsonl")).length;
    } catch {
      // An unreadable folder holds nothing cxc counts.
    }
  }
  return total;
}

/** Whether a `.json` file is a Gemini CLI session document (older versions wrote one). */
function isGeminiDocument(file: string): boolean {
  const head = firstBytes(file);
  return head !== undefined && /"sessionId"\s*:/.test(head) && /"projectHash"\s*:/.test(head);
}

/**
 * Pass 2 and the writes: under the locks of the batch's ids (`lockedImport`: refused before
 * anything is written when one exists, unless `skipExisting`), each file's kept records are
 * converted (or the file is streamed again) and the events of its conversation go to a staged
 * conversation as they come (`Store.stage`); every conversation is committed once all converted, so a bad file leaves
 * nothing behind. A file skipped as existing is still converted, for its report, not written.
 */
export async function saveAgentImport(
  store: Pick<Store, "locate" | "locked" | "stage">,
  batch: AgentImportBatch,
  options: { skipExisting: boolean },
): Promise<AgentImportOutcome[]> {
  const conversations = batch.files.map((file) => file.conversation);
  try {
    return await saveBatch(store, batch, conversations, options);
  } finally {
    // What was staged and not committed (a failure, a conversation skipped) goes.
    for (const file of batch.files) file.early?.discard();
    batch.release?.();
  }
}

function saveBatch(
  store: Pick<Store, "locate" | "locked" | "stage">,
  batch: AgentImportBatch,
  conversations: AgentFileImport["conversation"][],
  options: { skipExisting: boolean },
): Promise<AgentImportOutcome[]> {
  return lockedImport(store, conversations, options, () => {
    const staged: {
      conversation: StagedConversation;
      title: string | undefined;
      updatedAt: string;
      extra: Record<string, unknown>;
    }[] = [];
    try {
      const outcomes: AgentImportOutcome[] = [];
      for (const { file, conversation, plan, early } of batch.files) {
        const skipped = store.locate(conversation.id) !== undefined;
        const target = skipped
          ? undefined
          : (early?.staged ??
            store.stage({
              id: conversation.id,
              createdAt: conversation.createdAt,
              extra: conversation.extra,
            }));
        const entry =
          target === undefined
            ? undefined
            : {
                conversation: target,
                title: undefined as string | undefined,
                updatedAt: conversation.createdAt,
                extra: conversation.extra,
              };
        if (entry !== undefined) staged.push(entry);
        const written = early?.written ?? new WrittenEvents(conversation.createdAt);
        const end = convertSessionFile(file, plan, (converted) => {
          target?.write(converted);
          written.add(converted);
        });
        if (!end.ok) throw new CxcError("import-invalid", end.message);
        const { title, summary, warnings } = end.value;
        if (entry !== undefined) {
          entry.title = title;
          entry.updatedAt = written.latest;
          // Where the log holds the session's events (all of it, from the start): `import
          // --update` appends the ones after them (agent-update.ts).
          const origin = conversation.extra[ORIGIN_META_KEY] as Record<string, unknown>;
          entry.extra = {
            ...conversation.extra,
            [ORIGIN_META_KEY]: { ...origin, session_events: [[0, written.count]] },
          };
        }
        outcomes.push({
          file,
          id: conversation.id,
          sourceId: conversation.sourceId,
          ...(title === undefined ? {} : { title }),
          turns: written.tally.turns,
          events: written.count,
          skipped,
          summary,
          warnings,
        });
      }
      for (const { conversation, title, updatedAt, extra } of staged) {
        conversation.commit({ updatedAt, ...(title === undefined ? {} : { title }), extra });
      }
      return outcomes;
    } finally {
      for (const { conversation } of staged) conversation.discard();
    }
  });
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
  // Gemini CLI's older sessions are single JSON documents, `session-….json`.
  const own = readdirSync(path, { withFileTypes: true })
    .filter(
      (entry) =>
        entry.isFile() &&
        !entry.name.startsWith(".") &&
        (entry.name.endsWith(".jsonl") || /^session-.*\.json$/.test(entry.name)),
    )
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
  return firstBytes(file)
    ?.split("\n")
    .find((line) => line.trim() !== "");
}

/** The first 64 KiB of a file as text, or undefined. */
function firstBytes(file: string): string | undefined {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(file, "r");
    const buffer = Buffer.alloc(64 * 1024);
    const length = readSync(descriptor, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, length).toString("utf8");
  } catch {
    return undefined;
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

/** What the report and the metadata say of the events an import wrote: how many, their turns, the latest time. */
class WrittenEvents {
  readonly tally = new TurnTally();
  count = 0;

  /** `latest`: the time to go on from (the conversation's creation). */
  constructor(public latest: string) {}

  add(events: readonly ConversationEvent[]): void {
    this.tally.add(events);
    this.count += events.length;
    for (const event of events) {
      if (event.type !== "unknown" && compareTimestamps(event.ts, this.latest) > 0) this.latest = event.ts;
    }
  }
}

/**
 * One session file's events as pass 1 converts them (`SessionLineIndexer.convertAsRead`): staged
 * in the store as they come (`Store.stage`, a hidden directory until the commit), so neither the
 * records nor the events are held until pass 2, and counted (`written`) for the report and the
 * metadata. Only while the conversation does not exist yet: else the bet is called off and pass 2
 * converts the file again (to say it is skipped, or refused).
 */
export class EarlyImport {
  staged: StagedConversation | undefined;
  /** Undefined until the first events are staged. */
  written: WrittenEvents | undefined;
  private failure: unknown;
  private off = false;

  constructor(private readonly store: Pick<Store, "locate" | "stage">) {}

  /** Stages a batch of events of `conversation`; false calls the bet off. */
  take(
    conversation: { readonly id: string; readonly createdAt: string } | undefined,
    events: readonly ConversationEvent[],
  ): boolean {
    if (this.off || conversation === undefined) return this.callOff();
    try {
      if (this.staged === undefined) {
        if (this.store.locate(conversation.id) !== undefined) return this.callOff();
        this.staged = this.store.stage({ id: conversation.id, createdAt: conversation.createdAt });
        this.written = new WrittenEvents(conversation.createdAt);
      }
      this.staged.write(events);
    } catch (error) {
      // Thrown here, it would read as the file's error: said after the read (`rethrow`).
      this.failure ??= error;
      return this.callOff();
    }
    this.written?.add(events);
    return true;
  }

  /** Throws what staging threw, if it did. */
  rethrow(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  /** Removes what was staged, unless it was committed. */
  discard(): void {
    this.staged?.discard();
  }

  private callOff(): boolean {
    this.off = true;
    this.discard();
    return false;
  }
}

/**
 * The most bytes of session files whose parsed records an import holds from pass 1 to pass 2
 * (each line then parsed once); a file past it is read and parsed again in pass 2. Parsed, a
 * file takes about three times its size in memory.
 */
const KEEP_BYTES = 256 * 1024 * 1024;

/**
 * The size and modification time of each file whose plan kept its records, as pass 1 found them
 * before it read: pass 2 converts the kept records only while the file is still so, and else
 * reads the file again (refusing what no longer agrees with the index).
 */
const keptStamps = new WeakMap<SessionPlan, string>();

function stampOf(file: string): string | undefined {
  try {
    const stat = statSync(file);
    return `${stat.size}:${stat.mtimeMs}`;
  } catch {
    return undefined;
  }
}

/**
 * Pass 1: streams one file into the agent's reader; the last line without a newline is a
 * fragment. `keep`: the plan keeps the records pass 2 converts.
 */
function indexSessionFile(
  file: string,
  agent: AgentFormat,
  keep: boolean,
  early: EarlyImport | undefined,
): Parsed<SessionPlan> {
  if (agent === "gemini" && file.endsWith(".json")) return indexGeminiDocument(file);
  const stamp = stampOf(file);
  const reader = sessionReader(file, agent, keep);
  if (early !== undefined && reader instanceof SessionLineIndexer) {
    reader.convertAsRead((events) => early.take(reader.earlyConversation, events));
  }
  const read = feedLines(file, reader);
  // A store that failed to stage what came is an error of its own, not of the file.
  early?.rethrow();
  if (!read.ok) return read;
  const plan = reader.finish();
  if (plan.ok && plan.value.records !== undefined && stamp !== undefined) keptStamps.set(plan.value, stamp);
  return plan;
}

/**
 * A new reader (pass 1) of `agent`'s session lines, naming `file` in its messages; `keep`: it
 * keeps the records pass 2 converts.
 */
export function sessionReader(file: string, agent: AgentFormat, keep = true): SessionIndexer {
  return agent === "claude-code"
    ? new ClaudeCodeSessionReader(file, keep)
    : agent === "pi"
      ? new PiSessionReader(file, keep)
      : agent === "gemini"
        ? new GeminiSessionReader(file)
        : new CodexSessionReader(file, keep);
}

/** A Gemini CLI session written as one JSON document (`session-….json`): one parse. */
function indexGeminiDocument(file: string): Parsed<SessionPlan> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    return { ok: false, message: `${file}: cannot read it (${(error as Error).message})` };
  }
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    return {
      ok: false,
      message: `${file}: nested more than ${MAX_JSON_DEPTH} levels deep, which no session needs`,
    };
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    const reason = (error as Error).message.replace(/\s*in JSON at position \d+.*$/s, "");
    return { ok: false, message: `${file}: not valid JSON (${reason}); not a Gemini CLI session` };
  }
  const reader = new GeminiSessionReader(file);
  const read = reader.addDocument(document);
  return read.ok ? reader.finish() : read;
}

function feedLines(file: string, reader: Pick<SessionIndexer, "addLine" | "addFinalFragment">): Parsed<void> {
  return eachLine(file, {
    last: Number.POSITIVE_INFINITY,
    checks: () => true,
    visit: (line) => reader.addLine(line),
    visitFragment: (fragment) => reader.addFinalFragment(fragment),
  });
}

/**
 * Pass 2: converts the records pass 1 kept, or else streams the file again, feeding the lines the
 * plan wants to its converter; each batch of events it hands out goes to `take` (so they are
 * written as they come, never all held).
 */
export function convertSessionFile(
  file: string,
  plan: SessionPlan,
  take: (events: readonly ConversationEvent[], lines: readonly number[]) => void,
): Parsed<SessionEnd> {
  const converter = plan.convert();
  // Events are handed on in batches of about this many, so writes are few and large.
  const BATCH = 512;
  let batch: ConversationEvent[] = [];
  /** The line read when each event of the batch was handed out (what `--update` names). */
  let lines: number[] = [];
  const hand = (events: readonly ConversationEvent[], number: number): void => {
    for (const event of events) {
      batch.push(event);
      lines.push(number);
      if (batch.length >= BATCH) {
        take(batch, lines);
        batch = [];
        lines = [];
      }
    }
  };
  const convert = (line: string, number: number): Parsed<void> => {
    if (!plan.wants(number)) return { ok: true, value: undefined };
    const converted = converter.addLine(line, number);
    if (!converted.ok) return converted;
    hand(converted.value, number);
    return { ok: true, value: undefined };
  };
  const stamp = keptStamps.get(plan);
  const kept =
    stamp !== undefined && stampOf(file) === stamp ? convertKept(plan, converter, hand) : undefined;
  if (kept !== undefined) {
    if (!kept.ok) return kept;
  } else if (plan.lines > 0) {
    const read = eachLine(file, {
      last: plan.lines,
      checks: (number) => plan.wants(number),
      visit: convert,
      visitFragment: (fragment, number) => convert(fragment, number),
    });
    if (!read.ok) return read;
  }
  const held = converter.convertHeld?.((events) => hand(events, plan.lines));
  if (held !== undefined && !held.ok) return held;
  const end = converter.finish();
  if (!end.ok) return end;
  // What the converter held to the end (a reader that converts at the end: all of it), in batches.
  hand(end.value.events, plan.lines);
  if (batch.length > 0) take(batch, lines);
  return end;
}

/**
 * Streams `file` line by line (split at `\n`, a `\r` before it dropped) up to line `last`:
 * `visit` gets each line with its 1-based number, `visitFragment` the text after the last
 * newline, if any. A line `checks` picks that is nested deeper than `MAX_JSON_DEPTH` is refused
 * before anything parses it. Stops at the first error.
 */
function eachLine(
  file: string,
  options: {
    readonly last: number;
    readonly checks: (number: number) => boolean;
    readonly visit: (line: string, number: number) => Parsed<void>;
    readonly visitFragment: (fragment: string, number: number) => Parsed<void>;
  },
): Parsed<void> {
  let number = 0;
  const take = (text: string, visit: typeof options.visit): Parsed<void> => {
    number += 1;
    const line = text.endsWith("\r") ? text.slice(0, -1) : text;
    if (options.checks(number) && nestsDeeperThan(line, MAX_JSON_DEPTH)) {
      return {
        ok: false,
        message: `${file}:${number}: nested more than ${MAX_JSON_DEPTH} levels deep, which no session needs`,
      };
    }
    return visit(line, number);
  };
  let descriptor: number | undefined;
  // The pieces of a line that spans reads, joined once it ends: a line of many megabytes (Gemini
  // CLI rewrites its whole history as one line) is copied once, not once per read.
  let pieces: string[] = [];
  try {
    descriptor = openSync(file, "r");
    const buffer = Buffer.allocUnsafe(1 << 16);
    const decoder = new StringDecoder("utf8");
    for (let read = readSync(descriptor, buffer); read > 0; read = readSync(descriptor, buffer)) {
      const text = decoder.write(buffer.subarray(0, read));
      let start = 0;
      for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n", start)) {
        const tail = text.slice(start, end);
        const line = pieces.length === 0 ? tail : pieces.join("") + tail;
        pieces = [];
        const taken = take(line, options.visit);
        if (!taken.ok) return taken;
        start = end + 1;
        if (number >= options.last) return { ok: true, value: undefined };
      }
      if (start < text.length) pieces.push(text.slice(start));
    }
    pieces.push(decoder.end());
  } catch (error) {
    return { ok: false, message: `${file}: cannot read it (${(error as Error).message})` };
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
  const rest = pieces.join("");
  return rest === "" ? { ok: true, value: undefined } : take(rest, options.visitFragment);
}
