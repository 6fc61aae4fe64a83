/**
 * Conversion between jp's on-disk conversation (`metadata.json`, `base_config.json`,
 * `events.json`; see docs/import-export.md, "The jp mapping") and cxc events. Pure: it takes and returns
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
 * Import is here; export is in `jp-export.ts`, jp's encodings (timestamps, base64 leaves, derived
 * ids) in `jp-encoding.ts`.
 */
import type { Parsed } from "../parsed.js";
import { JP_ID_META_KEY } from "./agents.js";
import {
  type ConversationEvent,
  checkKnownEvent,
  describeFieldIssue,
  isKnownEventType,
} from "../conversation/events.js";
import { countTurns } from "../conversation/turns.js";
import {
  decodeLeaves,
  deriveConversationId,
  deriveEventId,
  isRecord,
  jpTimestampToRfc3339,
  timestampMilliseconds,
} from "./jp-encoding.js";

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

/** Metadata marker of the `config_delta` that is `base_config.json`. */
export const BASE_CONFIG_MARKER = "jp_base_config";
/** Metadata marker of a legacy first entry with the config fields inline. */
export const FLAT_CONFIG_MARKER = "jp_flat_config";
/** Event field listing the pointers of fields kept as stored (not base64 of UTF-8). */
export const UNDECODED_FIELD = "jp_undecoded";

// ---------------------------------------------------------------------------------------------
// Import

/** Converts one jp conversation into cxc events and metadata. */
export function importJpConversation(source: JpConversationSource): Parsed<ImportedConversation> {
  const deciseconds = parseDirectoryName(source.directoryName);
  if (deciseconds === undefined) {
    return interopError(
      `'${source.directoryName}' is not a jp conversation directory name (<deciseconds>-<slug>)`,
    );
  }
  if (!Array.isArray(source.events)) return interopError("events.json must hold a JSON array");
  const createdMilliseconds = deciseconds * 100;
  if (!Number.isSafeInteger(createdMilliseconds) || createdMilliseconds > MAX_DATE_MILLISECONDS) {
    return interopError(`the directory name '${source.directoryName}' gives a creation time out of range`);
  }
  const createdAt = new Date(createdMilliseconds).toISOString();
  const metadata = importMetadata(source.metadata);
  if (!metadata.ok) return metadata;
  const events: ConversationEvent[] = [];
  const key = String(deciseconds);
  if (source.baseConfig !== undefined) {
    if (!isRecord(source.baseConfig)) return interopError("base_config.json must hold a JSON object");
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
    if (!converted.ok) return interopError(`${where}: ${converted.message}`);
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
      // The turns jp recorded: the first `cxc q` (turns not grown past these) names jp's tools.
      extra: { ...extra, [JP_ID_META_KEY]: `jp-c${key}`, jp_imported_turns: countTurns(events) },
      events,
    },
  };
}

/** The latest instant a JavaScript date can hold (year 275760). */
const MAX_DATE_MILLISECONDS = 8.64e15;

/** The decisecond id at the front of a jp directory name, or undefined. */
export function parseDirectoryName(name: string): number | undefined {
  const match = /^(\d+)(?:-.*)?$/s.exec(name);
  return match ? Number(match[1]) : undefined;
}

/** The timestamp fields of jp's `metadata.json`, converted both ways. */
export const METADATA_TIMESTAMPS = ["last_activated_at", "pinned_at", "archived_at", "expires_at"] as const;

function importMetadata(value: unknown): Parsed<Record<string, unknown>> {
  if (value === undefined) return { ok: true, value: {} };
  if (!isRecord(value)) return interopError("metadata.json must hold a JSON object");
  const result: Record<string, unknown> = {};
  if (value.title !== undefined && value.title !== null) {
    if (typeof value.title !== "string") return interopError("metadata.json: `title` must be a string");
    result.title = value.title;
  }
  for (const field of METADATA_TIMESTAMPS) {
    if (value[field] === undefined || value[field] === null) continue;
    const converted = typeof value[field] === "string" ? jpTimestampToRfc3339(value[field]) : undefined;
    if (converted === undefined) return interopError(`metadata.json: \`${field}\` is not a timestamp`);
    result[field] = converted;
  }
  if (isRecord(value.labels) && Object.keys(value.labels).length > 0) result.labels = value.labels;
  return { ok: true, value: result };
}

/** Builds the cxc shape of one jp entry (validation follows). */
function importEntry(entry: unknown, idKey: string): Parsed<Record<string, unknown>> {
  if (!isRecord(entry)) return interopError("an entry must be a JSON object");
  if (typeof entry.type !== "string") return interopError("an entry needs a string `type`");
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
  if (typeof entry.timestamp !== "string") return interopError("`timestamp` must be a string");
  const ts = jpTimestampToRfc3339(entry.timestamp);
  if (ts === undefined) {
    return interopError("`timestamp` is not a date and time like 2026-05-29 19:42:36.46732");
  }
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

function importBody(entry: Record<string, unknown>, undecoded: string[]): Parsed<Record<string, unknown>> {
  switch (entry.type) {
    case "turn_start":
      return { ok: true, value: {} };
    case "chat_request":
      return {
        ok: true,
        value: pickFields(entry, ["content", "author", "schema"]),
      };
    case "chat_response":
      // jp's variants are untagged and tried in this order; the first key present wins.
      for (const variant of ["message", "reasoning", "data"]) {
        if (variant in entry) return { ok: true, value: { [variant]: entry[variant] } };
      }
      return interopError("needs one of `message`, `reasoning` or `data`");
    case "tool_call_request": {
      const argumentsValue = entry.arguments ?? {};
      if (!isRecord(argumentsValue)) return interopError("`arguments` must be a JSON object");
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
        : interopError("needs an `answer`");
    case "config_delta":
      return importConfigDelta(entry);
    default:
      return importCompaction(entry);
  }
}

function importConfigDelta(entry: Record<string, unknown>): Parsed<Record<string, unknown>> {
  if ("delta" in entry) return { ok: true, value: { delta: entry.delta } };
  // The oldest jp files store the whole config inline on the first entry, with no `delta` key.
  const { type: _type, timestamp: _timestamp, ...flat } = entry;
  return { ok: true, value: { delta: flat, metadata: { [FLAT_CONFIG_MARKER]: true } } };
}

function importCompaction(entry: Record<string, unknown>): Parsed<Record<string, unknown>> {
  const value: Record<string, unknown> = {
    from_turn: entry.from_turn,
    to_turn: entry.to_turn,
    source: "user",
  };
  if (entry.summary !== undefined) {
    if (!isRecord(entry.summary)) return interopError("`summary` must be an object with a `summary` string");
    value.summary = { summary: entry.summary.summary, source: "derived" };
  }
  if (entry.reasoning !== undefined) value.reasoning = entry.reasoning;
  if (entry.tool_calls !== undefined) value.tool_calls = entry.tool_calls;
  return { ok: true, value };
}

/**
 * Validates a converted event against its own kind's schema (not the union), so the message names
 * the field at fault. Unknown entries pass through as they are.
 */
export function validateEvent(value: Record<string, unknown>, where: string): Parsed<ConversationEvent> {
  if (value.type === "unknown") return { ok: true, value: value as unknown as ConversationEvent };
  if (!isKnownEventType(value.type))
    return interopError(`${where}: unknown event type '${String(value.type)}'`);
  const checked = checkKnownEvent(value, value.type);
  if (!checked.ok) return interopError(`${where}: ${describeFieldIssue(checked.issue, value)}`);
  const problem = eventProblem(checked.event);
  if (problem !== undefined) return interopError(`${where}: ${problem}`);
  return { ok: true, value: checked.event };
}

/**
 * What the schemas cannot say about one event: a compaction's range must run forwards, to the
 * cycle when it starts and ends inside one turn. Undefined when the event is fine.
 */
export function eventProblem(event: ConversationEvent): string | undefined {
  if (event.type !== "compaction") return undefined;
  if (event.from_turn > event.to_turn) {
    return `from_turn ${event.from_turn} is after to_turn ${event.to_turn} (a range runs forwards)`;
  }
  const cycles = event.cycles;
  if (cycles?.from !== undefined && event.from_turn === event.to_turn && cycles.from > cycles.to) {
    return `cycles.from ${cycles.from} is after cycles.to ${cycles.to} in turn ${event.from_turn} (a range runs forwards)`;
  }
  return undefined;
}

/**
 * What is wrong with a whole imported event list, or undefined: an event that `eventProblem`
 * refuses, or an id used twice (later events refer to ids: resets, tool responses).
 */
export function eventListProblem(events: readonly ConversationEvent[]): string | undefined {
  const ids = new Set<string>();
  for (const [index, event] of events.entries()) {
    if (event.type === "unknown") continue;
    if (ids.has(event.id)) return `event ${index}: the id ${event.id} is used by an earlier event too`;
    ids.add(event.id);
    const problem = eventProblem(event);
    if (problem !== undefined) return `event ${index} (${event.type}): ${problem}`;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Helpers

/** The fields of `source` named in `keys` that are set, in the order of `keys`. */
export function pickFields(
  source: Readonly<Record<string, unknown>>,
  keys: readonly string[],
): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const key of keys) if (source[key] !== undefined) result[key] = source[key];
  return result;
}

/** A failed conversion. */
export function interopError(message: string): { ok: false; message: string } {
  return { ok: false, message };
}

/** A successful conversion. */
export function interopValue<T>(value: T): Parsed<T> {
  return { ok: true, value };
}
