/**
 * Reading conversations from other tools' files, and saving them into the store.
 *
 * `readImport` finds out what PATH is (a jp workspace, a jp `conversations` directory, one jp
 * conversation, a cxc conversation directory or log, a cxc export document, an OpenAI or Anthropic
 * request body or messages array), reads it and converts everything in memory; any problem stops it
 * with one error naming the file (and line and column for malformed JSON) before anything is written.
 * `saveImported` then checks that none of the conversations exists yet and creates them; each
 * create writes its log atomically, so an interrupted import leaves whole conversations only.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { recordedSettings } from "../core/conversation/settings.js";
import { describeJpTools } from "../core/interop/jp-config.js";
import { ORIGIN_META_KEY, titleFromPrompt } from "../core/interop/agent-session.js";
import { importAnthropicMessages } from "../core/interop/anthropic-messages.js";
import { eventListProblem, type ImportedConversation, importJpConversation } from "../core/interop/jp.js";
import { importOpenAiMessages } from "../core/interop/openai-messages.js";
import { type ConversationEvent, compareTimestamps, parseEvent } from "../core/conversation/events.js";
import { locateJsonError, MAX_JSON_DEPTH, nestsDeeperThan } from "../core/json-syntax.js";
import { countTurns } from "../core/conversation/turns.js";
import { CxcError, usageError } from "../errors.js";
import { CONVERSATION_ID_PATTERN } from "./ids.js";
import { parseLog } from "./log.js";
import type { Store } from "./port.js";

/** The formats `cxc conversation import --from` accepts. */
export const IMPORT_FORMATS = ["jp", "openai", "anthropic", "cxc"] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** The `export --to cxc` document's marker. */
export const CXC_EXPORT_MARKER = "conversation-export";

/** What to read and how to name new things. */
export interface ImportRequest {
  /** A file or directory path, or `-` for `stdinText`. */
  readonly path: string;
  readonly stdinText?: string;
  readonly from?: ImportFormat;
  /** Title for conversations from message arrays (which carry none). */
  readonly title?: string;
  readonly now: () => string;
  readonly newEventId: () => string;
  readonly newConversationId: () => string;
}

/** Everything read, plus notes on content that had to be left out or skipped. */
export interface ImportBatch {
  readonly conversations: ImportedConversation[];
  readonly warnings: string[];
}

/**
 * The warning naming the jp tools the given (imported) conversations had enabled, which cxc cannot
 * run; undefined when they had none. The first `cxc q` on each such conversation says it again.
 */
export function jpToolsWarning(conversations: readonly ImportedConversation[]): string | undefined {
  const tools = new Set<string>();
  let count = 0;
  for (const conversation of conversations) {
    const names = recordedSettings(conversation.events).jpTools;
    if (names.length > 0) count += 1;
    for (const name of names) tools.add(name);
  }
  return tools.size === 0 ? undefined : describeJpTools([...tools].sort(), count);
}

/** Reads and converts PATH completely; throws a `CxcError` naming the file on any problem. */
export function readImport(request: ImportRequest): ImportBatch {
  if (request.path === "-") return readText(request.stdinText ?? "", "<stdin>", request);
  let isDirectory: boolean;
  try {
    isDirectory = statSync(request.path).isDirectory();
  } catch {
    throw new CxcError("import-invalid", `${request.path}: no such file or directory`);
  }
  if (isDirectory) return readDirectory(request.path, request.from);
  if (basename(request.path) === "events.json" && (request.from ?? "jp") === "jp") {
    return readDirectory(dirname(request.path), "jp");
  }
  return readText(readFileText(request.path), request.path, request);
}

function readDirectory(path: string, from: ImportFormat | undefined): ImportBatch {
  if (from !== undefined && from !== "jp" && from !== "cxc") {
    throw usageError(`${path} is a directory; --from ${from} reads a file`, "pass the request body's file");
  }
  if (existsSync(join(path, "events.jsonl")))
    return { conversations: [readCxcDirectory(path)], warnings: [] };
  if (existsSync(join(path, "events.json"))) {
    return {
      conversations: [readJpConversation(path, basename(dirname(path)) === ".archive")],
      warnings: [],
    };
  }
  // The workspace (`~/project`), its `.jp` folder, or `.jp/conversations` itself.
  const nested = [join(path, ".jp", "conversations"), join(path, "conversations")].find(
    (candidate, index) => existsSync(candidate) && (index === 0 || isJpFolder(path)),
  );
  if (nested !== undefined) {
    if (!isDirectory(nested)) {
      throw new CxcError("import-invalid", `${nested} is not a directory`, {
        hint: "a jp workspace keeps its conversations in the directory .jp/conversations",
      });
    }
    return readJpConversations(nested);
  }
  if (basename(path) === "conversations" || listDirectories(path).some((name) => /^\d+(-|$)/.test(name))) {
    return readJpConversations(path);
  }
  throw new CxcError("import-invalid", `${path}: not a jp workspace, jp conversation or cxc conversation`, {
    hint: "a jp workspace holds .jp/conversations; a jp conversation directory holds events.json",
  });
}

/** A jp workspace's storage folder: named `.jp`, or holding jp's workspace id file `.id`. */
function isJpFolder(path: string): boolean {
  return basename(path) === ".jp" || existsSync(join(path, ".id"));
}

/** Every conversation of a jp `conversations` directory; those under `.archive/` come archived. */
function readJpConversations(path: string): ImportBatch {
  const warnings: string[] = [];
  const conversations: ImportedConversation[] = [];
  const archive = join(path, ".archive");
  const places = [
    ...listDirectories(path).map((name) => ({ directory: join(path, name), name, archived: false })),
    ...listDirectories(archive).map((name) => ({ directory: join(archive, name), name, archived: true })),
  ];
  for (const place of places) {
    // jp skips directories whose name does not start with a decisecond id; so do we, noisily.
    if (!/^\d+(-|$)/.test(place.name) || !existsSync(join(place.directory, "events.json"))) {
      warnings.push(`${place.directory}: not a jp conversation directory, skipped`);
      continue;
    }
    conversations.push(readJpConversation(place.directory, place.archived));
  }
  return { conversations, warnings };
}

function readJpConversation(directory: string, archived: boolean): ImportedConversation {
  const optional = (file: string) =>
    existsSync(join(directory, file)) ? parseJsonFile(join(directory, file)) : undefined;
  const eventsPath = join(directory, "events.json");
  const baseConfig = optional("base_config.json");
  const result = importJpConversation({
    directoryName: basename(directory),
    metadata: optional("metadata.json"),
    ...(baseConfig === undefined ? {} : { baseConfig }),
    events: parseJsonFile(eventsPath),
    archived,
  });
  if (!result.ok) throw new CxcError("import-invalid", `${eventsPath}: ${result.message}`);
  return result.value;
}

function readCxcDirectory(directory: string): ImportedConversation {
  const logPath = join(directory, "events.jsonl");
  const metaPath = join(directory, "meta.json");
  const meta = existsSync(metaPath) ? parseJsonFile(metaPath) : {};
  const text = readFileText(logPath);
  refuseDeepNesting(text, logPath);
  const log = parseLog(text, logPath);
  if (log.warnings.length > 0) throw new CxcError("import-invalid", log.warnings[0]!);
  const fallback = { id: log.header.id, created_at: log.header.created_at };
  return cxcConversation({ ...fallback, ...(isRecord(meta) ? meta : {}) }, log.events, directory, {
    archived: basename(dirname(directory)) === "archive",
  });
}

/**
 * The `meta.json` beside a log file, when it describes the same conversation (a log copied out of
 * a store, or the bundled sample): it carries the title and timestamps.
 */
function siblingMeta(logPath: string, id: string): Record<string, unknown> {
  if (logPath === "-") return {};
  const metaPath = join(dirname(logPath), "meta.json");
  if (!existsSync(metaPath)) return {};
  const meta = parseJsonFile(metaPath);
  return isRecord(meta) && meta.id === id ? meta : {};
}

/** A file's content: a cxc log, a cxc export document, or a request body / messages array. */
function readText(text: string, label: string, request: ImportRequest): ImportBatch {
  if (text.trim() === "") throw new CxcError("import-invalid", `${label} is empty`);
  const firstLine = text.slice(0, text.indexOf("\n") + 1 || text.length);
  const isLog = firstLine.includes('"conversation-log"');
  if (isLog && (request.from === undefined || request.from === "cxc")) {
    refuseDeepNesting(text, label);
    const log = parseLog(text.endsWith("\n") ? text : `${text}\n`, label);
    const header = { id: log.header.id, created_at: log.header.created_at };
    const meta = { ...header, ...siblingMeta(label, log.header.id) };
    return { conversations: [cxcConversation(meta, log.events, label, { archived: false })], warnings: [] };
  }
  const value = parseJsonText(text, label);
  const format = request.from ?? detectFormat(value);
  if (format === undefined) {
    throw usageError(
      `${label}: cannot tell which format this is`,
      "pass --from jp|openai|anthropic|cxc (jp imports take a directory)",
    );
  }
  if (format === "cxc") return { conversations: [readCxcDocument(value, label)], warnings: [] };
  if (format === "jp") throw usageError(`${label}: --from jp reads a directory (or its events.json)`);
  return readMessages(value, format, label, request);
}

function readMessages(
  value: unknown,
  format: "openai" | "anthropic",
  label: string,
  request: ImportRequest,
): ImportBatch {
  const source = { newId: request.newEventId, now: request.now };
  let events: ConversationEvent[];
  let warnings: string[] = [];
  if (format === "openai") {
    const result = importOpenAiMessages(value, source);
    if (!result.ok) throw new CxcError("import-invalid", `${label}: ${result.message}`);
    events = result.value;
  } else {
    const result = importAnthropicMessages(value, source);
    if (!result.ok) throw new CxcError("import-invalid", `${label}: ${result.message}`);
    events = result.value.events;
    warnings = result.value.warnings.map((warning) => `${label}: ${warning}`);
  }
  // Without --title, the first line of the first user message names it, as an agent session's.
  const firstRequest = events.find((event) => event.type === "chat_request");
  const title =
    request.title ||
    titleFromPrompt(firstRequest?.type === "chat_request" ? firstRequest.content : undefined);
  const conversation: ImportedConversation = {
    id: request.newConversationId(),
    sourceId: label,
    ...(title ? { title } : {}),
    createdAt: request.now(),
    archived: false,
    // Where it came from, for `ls`'s FROM and `show` (a file, or `-` for standard input).
    extra: { [ORIGIN_META_KEY]: { format, file: label } },
    events,
  };
  return { conversations: [conversation], warnings };
}

/** The document `cxc conversation export --to cxc` writes. */
function readCxcDocument(value: unknown, label: string): ImportedConversation {
  if (!isRecord(value) || value.cxc !== CXC_EXPORT_MARKER || !isRecord(value.conversation)) {
    throw new CxcError("import-invalid", `${label}: not a cxc export document`);
  }
  if (typeof value.version !== "number" || value.version > 1) {
    throw new CxcError(
      "unsupported-version",
      `${label}: written by a newer cxc (export ${String(value.version)})`,
      {
        hint: "upgrade cxc to import it",
      },
    );
  }
  if (!Array.isArray(value.events))
    throw new CxcError("import-invalid", `${label}: \`events\` must be an array`);
  const events = value.events.map((item, index) => {
    const parsed = parseEvent(item);
    if (!parsed.ok) throw new CxcError("import-invalid", `${label}: event ${index}: ${parsed.error}`);
    return parsed.event;
  });
  return cxcConversation(value.conversation, events, label, { archived: value.archived === true });
}

const DERIVED_META = new Set(["id", "title", "created_at", "updated_at", "event_count", "turn_count"]);

function cxcConversation(
  meta: Record<string, unknown>,
  events: ConversationEvent[],
  label: string,
  options: { archived: boolean },
): ImportedConversation {
  // Named in the export's own terms: the field of its "conversation" object.
  const field = (name: string, value: unknown, what: string): string | undefined =>
    value === undefined
      ? `"${name}" is missing`
      : typeof value !== "string" || value === ""
        ? `"${name}" must be ${what}, not ${value === "" ? "empty" : value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`}`
        : undefined;
  const id = meta.id;
  const idProblem =
    field("id", id, "a conversation id") ??
    (CONVERSATION_ID_PATTERN.test(id as string)
      ? undefined
      : `"id" is not a conversation id (3 to 64 lowercase letters, digits, _ and -): ${JSON.stringify(id)}`);
  if (idProblem !== undefined || typeof id !== "string")
    throw new CxcError("import-invalid", `${label}: conversation: ${idProblem}`);
  const createdProblem = field("created_at", meta.created_at, "a time (RFC 3339)");
  if (createdProblem !== undefined)
    throw new CxcError("import-invalid", `${label}: conversation: ${createdProblem}`);
  const createdAt = meta.created_at as string;
  const problem = eventListProblem(events);
  if (problem !== undefined) throw new CxcError("import-invalid", `${label}: ${problem}`);
  const extra = Object.fromEntries(Object.entries(meta).filter(([key]) => !DERIVED_META.has(key)));
  return {
    id,
    sourceId: id,
    ...(typeof meta.title === "string" && meta.title !== "" ? { title: meta.title } : {}),
    createdAt,
    archived: options.archived || typeof meta.archived_at === "string",
    extra,
    events,
  };
}

/**
 * Guesses the format of a parsed JSON file: a cxc export document, or a request body / messages
 * array, Anthropic when something only Anthropic has shows up (top-level `system`, content blocks
 * such as `tool_use`), otherwise OpenAI (the two agree on plain text messages).
 */
export function detectFormat(value: unknown): ImportFormat | undefined {
  if (isRecord(value) && value.cxc === CXC_EXPORT_MARKER) return "cxc";
  const messages = Array.isArray(value) ? value : isRecord(value) ? value.messages : undefined;
  if (!Array.isArray(messages) || !messages.every((message) => isRecord(message) && "role" in message)) {
    return undefined;
  }
  if (isRecord(value) && "system" in value) return "anthropic";
  const anthropicBlocks = new Set(["tool_use", "tool_result", "thinking", "redacted_thinking"]);
  for (const message of messages as Record<string, unknown>[]) {
    if (message.role === "system" || message.role === "developer" || message.role === "tool") return "openai";
    if ("tool_calls" in message) return "openai";
    const content = Array.isArray(message.content) ? message.content : [];
    if (content.some((block) => isRecord(block) && anthropicBlocks.has(String(block.type))))
      return "anthropic";
  }
  return "openai";
}

// ---------------------------------------------------------------------------------------------
// Saving

/** What happened to one conversation of a batch. */
export interface ImportOutcome {
  readonly conversation: ImportedConversation;
  readonly turns: number;
  readonly skipped: boolean;
}

/**
 * Creates every conversation of the batch. Refuses (before writing anything) when one already
 * exists, unless `skipExisting`, which leaves existing ones as they are.
 *
 * The check and the creates happen holding the lock of every id in the batch (taken in sorted
 * order, so two imports cannot deadlock): a second import of the same conversations waits, then
 * sees what the first created and reports the duplicate (or, with `skipExisting`, skips it).
 * Archived conversations are created in the archive directly, so a crash never leaves one live.
 */
export async function saveImported(
  store: Pick<Store, "locate" | "create" | "locked">,
  conversations: readonly ImportedConversation[],
  options: { skipExisting: boolean },
): Promise<ImportOutcome[]> {
  return lockedImport(store, conversations, options, () =>
    conversations.map((conversation) => {
      const turns = countTurns(conversation.events);
      if (store.locate(conversation.id)) return { conversation, turns, skipped: true };
      const archivedAt = conversation.extra.archived_at;
      store.create({
        id: conversation.id,
        createdAt: conversation.createdAt,
        updatedAt: lastActivity(conversation),
        events: conversation.events,
        extra: conversation.extra,
        ...(conversation.title ? { title: conversation.title } : {}),
        ...(conversation.archived
          ? { archivedAt: typeof archivedAt === "string" ? archivedAt : conversation.createdAt }
          : {}),
      });
      return { conversation, turns, skipped: false };
    }),
  );
}

/**
 * Runs `action` (which creates the conversations) holding the lock of every id of the batch, once
 * none of them exists, unless `skipExisting`; see `saveImported`.
 */
export async function lockedImport<T>(
  store: Pick<Store, "locate" | "locked">,
  conversations: readonly { readonly id: string; readonly sourceId: string }[],
  options: { skipExisting: boolean },
  action: () => T | Promise<T>,
): Promise<T> {
  const seen = new Set<string>();
  for (const conversation of conversations) {
    if (seen.has(conversation.id)) {
      throw new CxcError("import-invalid", `${conversation.sourceId} appears twice in the import`);
    }
    seen.add(conversation.id);
  }
  return lockedAll(store, [...seen].sort(), "cxc conversation import", () => {
    if (!options.skipExisting) {
      const existing = conversations.find((conversation) => store.locate(conversation.id));
      if (existing !== undefined) {
        throw new CxcError(
          "import-invalid",
          `${existing.sourceId} was already imported as conversation ${existing.id}`,
          {
            hint: `pass --skip-existing to import the rest, or remove it first: cxc conversation rm ${existing.id}`,
          },
        );
      }
    }
    return action();
  });
}

/** Runs `action` holding the locks of all `ids` (already sorted), taken one after another. */
function lockedAll<T>(
  store: Pick<Store, "locked">,
  ids: readonly string[],
  command: string,
  action: () => T | Promise<T>,
): Promise<T> {
  const hold = async (index: number): Promise<T> =>
    index === ids.length ? action() : store.locked(ids[index]!, command, () => hold(index + 1));
  return hold(0);
}

/** The time of the last event (or the `updated_at` the source recorded), for `ls` ordering. */
function lastActivity(conversation: ImportedConversation): string {
  const recorded = conversation.extra.updated_at;
  let latest = typeof recorded === "string" ? recorded : conversation.createdAt;
  for (const event of conversation.events) {
    const ts = event.type === "unknown" ? undefined : event.ts;
    if (ts !== undefined && compareTimestamps(ts, latest) > 0) latest = ts;
  }
  return latest;
}

// ---------------------------------------------------------------------------------------------
// Files

function readFileText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new CxcError("import-invalid", `${path}: cannot read it (${(error as Error).message})`);
  }
}

function parseJsonFile(path: string): unknown {
  const text = readFileText(path);
  if (text.trim() === "") throw new CxcError("import-invalid", `${path} is empty`);
  return parseJsonText(text, path);
}

/**
 * JSON.parse with an error that names the file, line and column and quotes nothing of it (the
 * file may be a symlink to anything, or hold escape sequences); a value nested deeper than
 * `MAX_JSON_DEPTH` is refused the same way, before any code walks it recursively.
 */
export function parseJsonText(text: string, label: string): unknown {
  refuseDeepNesting(text, label);
  try {
    return JSON.parse(text);
  } catch {
    const error = locateJsonError(text);
    const where = error === undefined ? "" : `:${error.line}:${error.column}`;
    throw new CxcError(
      "import-invalid",
      `${label}${where}: not valid JSON (${error?.reason ?? "unreadable"})`,
    );
  }
}

/** Refuses JSON text (or a log) nested deeper than `MAX_JSON_DEPTH`, before anything parses it. */
function refuseDeepNesting(text: string, label: string): void {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new CxcError(
      "import-invalid",
      `${label}: nested more than ${MAX_JSON_DEPTH} levels deep, which no conversation needs`,
    );
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function listDirectories(path: string): string[] {
  try {
    return readdirSync(path, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
