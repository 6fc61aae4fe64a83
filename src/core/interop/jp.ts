/**
 * Conversion between jp's on-disk conversation (`metadata.json`, `base_config.json`,
 * `events.json`; see reference/jp-compaction.md §1) and cxc events. Pure: it takes and returns
 * parsed JSON values; reading and writing files is the store's job (src/store/import.ts, export.ts).
 *
 * Import is deterministic: conversation and event ids are derived from jp's conversation id and each
 * entry's position, so importing the same data twice yields identical events. Export writes exactly
 * what jp's own writer would: its timestamp format with the original fraction digits, its key order,
 * base64 re-encoding of the storage-encoded fields, and the base config back into its own file.
 *
 * Round-trip markers (kept on the cxc events, never sent to a provider):
 * - a `config_delta` with metadata `{ jp_base_config: true }` is `base_config.json`;
 * - metadata `{ jp_flat_config: true }` is a legacy first entry with the config fields inline;
 * - `jp_undecoded` lists the fields (JSON pointers) that were not valid base64 of UTF-8 and were
 *   therefore kept as stored, so export writes them back unchanged instead of encoding them again.
 *
 * jp's encodings (timestamps, base64 leaves, derived ids) are in `jp-encoding.ts`.
 */
import {
  ChatRequestSchema,
  ChatResponseSchema,
  CompactionSchema,
  ConfigDeltaSchema,
  type ConversationEvent,
  InquiryRequestSchema,
  InquiryResponseSchema,
  ToolCallRequestSchema,
  ToolCallResponseSchema,
  TurnStartSchema,
} from "../events.js";
import { activeCompactions } from "../compactions.js";
import {
  decodeLeaves,
  deriveConversationId,
  deriveEventId,
  encodeLeaves,
  isRecord,
  jpTimestampToRfc3339,
  rfc3339ToJpTimestamp,
  timestampMilliseconds,
} from "./jp-encoding.js";

/** A result of a conversion: the value, or one sentence naming what is wrong and where. */
export type InteropResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** A conversation converted from another format, ready for `ConversationStore.create`. */
export interface ImportedConversation {
  /** The cxc conversation id (derived, or carried over from a cxc export). */
  readonly id: string;
  /** How the source names it, for messages: `jp-c17648402467`, a file name, `-`. */
  readonly sourceId: string;
  readonly title?: string;
  /** RFC 3339 creation time. */
  readonly createdAt: string;
  readonly archived: boolean;
  /** Further metadata fields (timestamps, labels) for the conversation's meta. */
  readonly extra: Readonly<Record<string, unknown>>;
  /** Validated events, in stream order. */
  readonly events: readonly ConversationEvent[];
}

/** One jp conversation directory, its files already parsed. */
export interface JpConversationSource {
  /** The directory name: `<deciseconds>` or `<deciseconds>-<slug>`. */
  readonly directoryName: string;
  /** Parsed `metadata.json` (undefined when the file is absent). */
  readonly metadata: unknown;
  /** Parsed `base_config.json`, absent in legacy conversations. */
  readonly baseConfig?: unknown;
  /** Parsed `events.json`. */
  readonly events: unknown;
  /** Whether it was found under `.archive/`. */
  readonly archived: boolean;
}

/** The three files of a jp conversation directory, as JSON values to pretty-print. */
export interface JpConversationFiles {
  readonly directoryName: string;
  readonly metadata: Record<string, unknown>;
  readonly baseConfig?: unknown;
  readonly events: Record<string, unknown>[];
}

/** What export needs to know about the conversation besides its events. */
export interface ExportSource {
  readonly createdAt: string;
  readonly meta: Readonly<Record<string, unknown>>;
  readonly events: readonly ConversationEvent[];
}

const BASE_CONFIG_MARKER = "jp_base_config";
const FLAT_CONFIG_MARKER = "jp_flat_config";
const UNDECODED_FIELD = "jp_undecoded";

/** jp's file format: pretty JSON, 2-space indent, trailing newline. */
export function renderJpJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

// ---------------------------------------------------------------------------------------------
// Import

/** Converts one jp conversation into cxc events and metadata. */
export function importJpConversation(source: JpConversationSource): InteropResult<ImportedConversation> {
  const deciseconds = parseDirectoryName(source.directoryName);
  if (deciseconds === undefined) {
    return fail(`'${source.directoryName}' is not a jp conversation directory name (<deciseconds>-<slug>)`);
  }
  if (!Array.isArray(source.events)) return fail("events.json must hold a JSON array");
  const createdMilliseconds = deciseconds * 100;
  const createdAt = new Date(createdMilliseconds).toISOString();
  const metadata = importMetadata(source.metadata);
  if (!metadata.ok) return metadata;
  const events: ConversationEvent[] = [];
  const key = String(deciseconds);
  if (source.baseConfig !== undefined) {
    if (!isRecord(source.baseConfig)) return fail("base_config.json must hold a JSON object");
    const baseEvent = validateEvent(
      {
        id: deriveEventId(createdMilliseconds, `${key}:base`),
        ts: createdAt,
        type: "config_delta",
        delta: source.baseConfig,
        metadata: { [BASE_CONFIG_MARKER]: true },
      },
      "base_config.json",
    );
    if (!baseEvent.ok) return baseEvent;
    events.push(baseEvent.value);
  }
  for (const [position, entry] of source.events.entries()) {
    const converted = importEntry(entry, `${key}:${position}`);
    const where = `entry ${position}${isRecord(entry) && typeof entry.type === "string" ? ` (${entry.type})` : ""}`;
    if (!converted.ok) return fail(`${where}: ${converted.error}`);
    const checked = validateEvent(converted.value, where);
    if (!checked.ok) return checked;
    events.push(checked.value);
  }
  const { title, ...extra } = metadata.value;
  return {
    ok: true,
    value: {
      id: deriveConversationId(createdMilliseconds, key),
      sourceId: `jp-c${key}`,
      ...(typeof title === "string" && title !== "" ? { title } : {}),
      createdAt,
      archived: source.archived,
      extra: { ...extra, jp_id: `jp-c${key}` },
      events,
    },
  };
}

/** The decisecond id at the front of a jp directory name, or undefined. */
export function parseDirectoryName(name: string): number | undefined {
  const match = /^(\d+)(?:-.*)?$/s.exec(name);
  return match ? Number(match[1]) : undefined;
}

const METADATA_TIMESTAMPS = ["last_activated_at", "pinned_at", "archived_at", "expires_at"] as const;

function importMetadata(value: unknown): InteropResult<Record<string, unknown>> {
  if (value === undefined) return { ok: true, value: {} };
  if (!isRecord(value)) return fail("metadata.json must hold a JSON object");
  const result: Record<string, unknown> = {};
  if (value.title !== undefined && value.title !== null) {
    if (typeof value.title !== "string") return fail("metadata.json: `title` must be a string");
    result.title = value.title;
  }
  for (const field of METADATA_TIMESTAMPS) {
    if (value[field] === undefined || value[field] === null) continue;
    const converted = typeof value[field] === "string" ? jpTimestampToRfc3339(value[field]) : undefined;
    if (converted === undefined) return fail(`metadata.json: \`${field}\` is not a timestamp`);
    result[field] = converted;
  }
  if (isRecord(value.labels) && Object.keys(value.labels).length > 0) result.labels = value.labels;
  return { ok: true, value: result };
}

/** Builds the cxc shape of one jp entry (validation follows). */
function importEntry(entry: unknown, idKey: string): InteropResult<Record<string, unknown>> {
  if (!isRecord(entry)) return fail("an entry must be a JSON object");
  if (typeof entry.type !== "string") return fail("an entry needs a string `type`");
  const known = ["turn_start", "chat_request", "chat_response", "tool_call_request"];
  const alsoKnown = [
    "tool_call_response",
    "inquiry_request",
    "inquiry_response",
    "config_delta",
    "compaction",
  ];
  if (![...known, ...alsoKnown].includes(entry.type))
    return { ok: true, value: { type: "unknown", raw: entry } };
  if (typeof entry.timestamp !== "string") return fail("`timestamp` must be a string");
  const ts = jpTimestampToRfc3339(entry.timestamp);
  if (ts === undefined) return fail(`'${entry.timestamp}' is not a jp timestamp`);
  const undecoded: string[] = [];
  const common: Record<string, unknown> = { id: deriveEventId(timestampMilliseconds(ts), idKey), ts };
  const body = importBody(entry, undecoded);
  if (!body.ok) return body;
  const event: Record<string, unknown> = { ...common, type: entry.type, ...body.value };
  if (entry.type !== "config_delta" && entry.type !== "compaction" && isRecord(entry.metadata)) {
    if (Object.keys(entry.metadata).length > 0) {
      event.metadata = decodeLeaves(entry.metadata, ["metadata"], undecoded);
    }
  }
  if (undecoded.length > 0) event[UNDECODED_FIELD] = undecoded;
  return { ok: true, value: event };
}

function importBody(
  entry: Record<string, unknown>,
  undecoded: string[],
): InteropResult<Record<string, unknown>> {
  switch (entry.type) {
    case "turn_start":
      return { ok: true, value: {} };
    case "chat_request":
      return {
        ok: true,
        value: pick(entry, ["content", "author", "schema"]),
      };
    case "chat_response":
      // jp's variants are untagged and tried in this order; the first key present wins.
      for (const variant of ["message", "reasoning", "data"]) {
        if (variant in entry) return { ok: true, value: { [variant]: entry[variant] } };
      }
      return fail("needs one of `message`, `reasoning` or `data`");
    case "tool_call_request": {
      const argumentsValue = entry.arguments ?? {};
      if (!isRecord(argumentsValue)) return fail("`arguments` must be a JSON object");
      return {
        ok: true,
        value: {
          call_id: entry.id,
          name: entry.name,
          arguments: decodeLeaves(argumentsValue, ["arguments"], undecoded),
        },
      };
    }
    case "tool_call_response":
      return {
        ok: true,
        value: {
          call_id: entry.id,
          content:
            typeof entry.content === "string"
              ? decodeLeaves(entry.content, ["content"], undecoded)
              : entry.content,
          is_error: entry.is_error,
        },
      };
    case "inquiry_request":
      return { ok: true, value: { inquiry_id: entry.id, source: entry.source, question: entry.question } };
    case "inquiry_response":
      return "answer" in entry
        ? { ok: true, value: { inquiry_id: entry.id, answer: entry.answer } }
        : fail("needs an `answer`");
    case "config_delta":
      return importConfigDelta(entry);
    default:
      return importCompaction(entry);
  }
}

function importConfigDelta(entry: Record<string, unknown>): InteropResult<Record<string, unknown>> {
  if ("delta" in entry) return { ok: true, value: { delta: entry.delta } };
  // The oldest jp files store the whole config inline on the first entry, with no `delta` key.
  const { type: _type, timestamp: _timestamp, ...flat } = entry;
  return { ok: true, value: { delta: flat, metadata: { [FLAT_CONFIG_MARKER]: true } } };
}

function importCompaction(entry: Record<string, unknown>): InteropResult<Record<string, unknown>> {
  const value: Record<string, unknown> = {
    from_turn: entry.from_turn,
    to_turn: entry.to_turn,
    source: "user",
  };
  if (entry.summary !== undefined) {
    if (!isRecord(entry.summary)) return fail("`summary` must be an object with a `summary` string");
    value.summary = { summary: entry.summary.summary, source: "derived" };
  }
  if (entry.reasoning !== undefined) value.reasoning = entry.reasoning;
  if (entry.tool_calls !== undefined) value.tool_calls = entry.tool_calls;
  return { ok: true, value };
}

const SCHEMAS = {
  turn_start: TurnStartSchema,
  chat_request: ChatRequestSchema,
  chat_response: ChatResponseSchema,
  tool_call_request: ToolCallRequestSchema,
  tool_call_response: ToolCallResponseSchema,
  inquiry_request: InquiryRequestSchema,
  inquiry_response: InquiryResponseSchema,
  config_delta: ConfigDeltaSchema,
  compaction: CompactionSchema,
} as const;

/**
 * Validates a converted event against its own kind's schema (not the union), so the message names
 * the field at fault. Unknown entries pass through as they are.
 */
export function validateEvent(
  value: Record<string, unknown>,
  where: string,
): InteropResult<ConversationEvent> {
  if (value.type === "unknown") return { ok: true, value: value as unknown as ConversationEvent };
  const schema = SCHEMAS[value.type as keyof typeof SCHEMAS];
  if (schema === undefined) return fail(`${where}: unknown event type '${String(value.type)}'`);
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data as ConversationEvent };
  const issue = parsed.error.issues[0];
  const field = issue && issue.path.length > 0 ? ` \`${issue.path.join(".")}\`` : "";
  return fail(`${where}:${field} ${issue?.message ?? "does not match the schema"}`);
}

// ---------------------------------------------------------------------------------------------
// Export

/** Converts a cxc conversation into the three files of a jp conversation directory. */
export function exportJpConversation(source: ExportSource): InteropResult<JpConversationFiles> {
  const createdMilliseconds = timestampMilliseconds(source.createdAt);
  if (Number.isNaN(createdMilliseconds)) return fail(`'${source.createdAt}' is not a timestamp`);
  // Retired compactions (and every reset) are left out: jp has no resets, so only what is in force goes.
  const inForce = new Set(activeCompactions(source.events).map(({ compaction }) => compaction.id));
  let baseConfig: unknown;
  const entries: Record<string, unknown>[] = [];
  for (const event of source.events) {
    if (event.type === "unknown") {
      entries.push({ ...event.raw });
      continue;
    }
    if (event.type === "compaction_reset") continue;
    if (event.type === "compaction" && !inForce.has(event.id)) continue;
    if (
      event.type === "config_delta" &&
      event.metadata?.[BASE_CONFIG_MARKER] === true &&
      baseConfig === undefined
    ) {
      baseConfig = event.delta;
      continue;
    }
    const entry = exportEvent(event);
    if (!entry.ok) return entry;
    entries.push(entry.value);
  }
  const title = typeof source.meta.title === "string" ? source.meta.title : undefined;
  return {
    ok: true,
    value: {
      directoryName: jpDirectoryName(Math.floor(createdMilliseconds / 100), title),
      metadata: exportMetadata(source.meta, source.createdAt),
      ...(baseConfig === undefined ? {} : { baseConfig }),
      events: entries,
    },
  };
}

function exportMetadata(meta: Readonly<Record<string, unknown>>, createdAt: string): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  if (typeof meta.title === "string" && meta.title !== "") result.title = meta.title;
  const lastActivated = meta.last_activated_at ?? meta.updated_at ?? createdAt;
  result.last_activated_at = rfc3339ToJpTimestamp(String(lastActivated)) ?? lastActivated;
  for (const field of METADATA_TIMESTAMPS.slice(1)) {
    if (typeof meta[field] === "string") result[field] = rfc3339ToJpTimestamp(meta[field]) ?? meta[field];
  }
  if (isRecord(meta.labels) && Object.keys(meta.labels).length > 0) result.labels = meta.labels;
  return result;
}

type KnownExportable = Exclude<ConversationEvent, { type: "unknown" } | { type: "compaction_reset" }>;

/** One cxc event in jp's shape and key order. */
function exportEvent(event: KnownExportable): InteropResult<Record<string, unknown>> {
  const timestamp = rfc3339ToJpTimestamp(event.ts);
  if (timestamp === undefined) return fail(`event ${event.id}: '${event.ts}' is not a timestamp`);
  const keep = new Set(Array.isArray(event[UNDECODED_FIELD]) ? (event[UNDECODED_FIELD] as string[]) : []);
  const head = { timestamp, type: event.type };
  switch (event.type) {
    case "config_delta":
      if (event.metadata?.[FLAT_CONFIG_MARKER] === true)
        return done({ type: event.type, timestamp, ...event.delta });
      return done({ type: event.type, timestamp, delta: event.delta });
    case "compaction": {
      const entry: Record<string, unknown> = { type: event.type, timestamp };
      Object.assign(entry, { from_turn: event.from_turn, to_turn: event.to_turn });
      if (event.summary) entry.summary = { summary: event.summary.summary };
      if (event.reasoning) entry.reasoning = event.reasoning;
      if (event.tool_calls) entry.tool_calls = event.tool_calls;
      return done(entry);
    }
    case "turn_start":
      return done(withMetadata(head, event.metadata, keep));
    case "chat_request":
      return done(
        withMetadata({ ...head, ...pick(event, ["content", "schema", "author"]) }, event.metadata, keep),
      );
    case "chat_response":
      return done(withMetadata({ ...head, ...responseVariant(event) }, event.metadata, keep));
    case "tool_call_request": {
      const encoded = encodeLeaves(event.arguments, ["arguments"], keep);
      const entry = { ...head, id: event.call_id, name: event.name, arguments: encoded };
      return done(withMetadata(entry, event.metadata, keep));
    }
    case "tool_call_response": {
      const content = encodeLeaves(event.content, ["content"], keep);
      const entry = { ...head, id: event.call_id, content, is_error: event.is_error };
      return done(withMetadata(entry, event.metadata, keep));
    }
    case "inquiry_request": {
      const entry = { ...head, id: event.inquiry_id, source: event.source, question: event.question };
      return done(withMetadata(entry, event.metadata, keep));
    }
    case "inquiry_response":
      return done(
        withMetadata({ ...head, id: event.inquiry_id, answer: event.answer }, event.metadata, keep),
      );
  }
}

function responseVariant(event: {
  message?: string;
  reasoning?: string;
  data?: unknown;
}): Record<string, unknown> {
  if (event.message !== undefined) return { message: event.message };
  if (event.reasoning !== undefined) return { reasoning: event.reasoning };
  return { data: event.data };
}

function withMetadata(
  entry: Record<string, unknown>,
  metadata: Record<string, unknown> | undefined,
  keep: ReadonlySet<string>,
): Record<string, unknown> {
  if (!metadata || Object.keys(metadata).length === 0) return entry;
  return { ...entry, metadata: encodeLeaves(metadata, ["metadata"], keep) };
}

/**
 * jp's directory name: `<deciseconds>` or `<deciseconds>-<slug>`, the slug being the first 60
 * characters of the trimmed title with every non-alphanumeric character replaced by `-` (runs kept),
 * trailing dashes stripped, lowercased; a title over 60 bytes is cut back to the last `-`.
 */
export function jpDirectoryName(deciseconds: number, title: string | undefined): string {
  const prefix = String(deciseconds);
  if (title === undefined || title.trim() === "") return prefix;
  const characters = [...title.trim()].slice(0, 60);
  const slug = characters
    .map((character) => (/[\p{Alphabetic}\p{N}]/u.test(character) ? character : "-"))
    .join("")
    .replace(/-+$/, "")
    .toLowerCase();
  const joined = `${prefix}-${slug}`;
  if (new TextEncoder().encode(title).length <= 60) return joined;
  return joined.slice(0, joined.lastIndexOf("-"));
}

// ---------------------------------------------------------------------------------------------
// Helpers

function pick(source: Readonly<Record<string, unknown>>, keys: readonly string[]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const key of keys) if (source[key] !== undefined) result[key] = source[key];
  return result;
}

function fail(error: string): { ok: false; error: string } {
  return { ok: false, error };
}

function done<T>(value: T): InteropResult<T> {
  return { ok: true, value };
}
