/**
 * Export of a cxc conversation as a jp conversation directory (`metadata.json`,
 * `base_config.json`, `events.json`; see interop/jp.ts for the format and the round-trip
 * markers). Pure: it returns JSON values; writing the files is the store's job
 * (src/store/export.ts). It writes exactly what jp's own writer would: its timestamp format with
 * the original fraction digits, its key order, base64 re-encoding of the storage-encoded fields,
 * and the base config back into its own file. Resets and the compactions they retire are left
 * out: jp has no resets. jp has no cycles either: a compaction inside a turn that covers whole
 * turns after all (it starts at a turn's start and ends at a turn's last cycle) is written as
 * jp's whole-turn compaction; any other is left out and listed in `leftOut` (docs/import-export.md).
 */
import { activeCompactions } from "../conversation/compactions.js";
import { compactionPolicies, layoutCycles } from "../conversation/cycles.js";
import { type Compaction, type ConversationEvent, isOverlay } from "../conversation/events.js";
import { composeSummaryMessage } from "../conversation/summary-message.js";
import {
  BASE_CONFIG_MARKER,
  FLAT_CONFIG_MARKER,
  interopError,
  interopValue,
  METADATA_TIMESTAMPS,
  pickFields,
  UNDECODED_FIELD,
} from "./jp.js";
import { encodeLeaves, isRecord, rfc3339ToJpTimestamp, timestampMilliseconds } from "./jp-encoding.js";
import type { Parsed } from "../parsed.js";

/** The three files of a jp conversation directory, as JSON values to pretty-print. */
export interface JpConversationFiles {
  readonly directoryName: string;
  readonly metadata: Record<string, unknown>;
  readonly baseConfig?: unknown;
  readonly events: Record<string, unknown>[];
  /** The compactions inside a turn that jp cannot hold, left out of `events`. */
  readonly leftOut: readonly Compaction[];
}

/** What export needs to know about the conversation besides its events. */
export interface ExportSource {
  readonly createdAt: string;
  readonly meta: Readonly<Record<string, unknown>>;
  readonly events: readonly ConversationEvent[];
}

/** jp's file format: pretty JSON, 2-space indent, trailing newline. */
export function renderJpJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Converts a cxc conversation into the three files of a jp conversation directory. */
export function exportJpConversation(source: ExportSource): Parsed<JpConversationFiles> {
  const createdMilliseconds = timestampMilliseconds(source.createdAt);
  if (Number.isNaN(createdMilliseconds)) return interopError(`'${source.createdAt}' is not a timestamp`);
  // Retired compactions (and every reset) are left out: jp has no resets, so only what is in force goes.
  const inForce = new Set(activeCompactions(source.events).map(({ compaction }) => compaction.id));
  const { cycleCounts } = layoutCycles(source.events);
  const leftOut: Compaction[] = [];
  let baseConfig: unknown;
  const entries: Record<string, unknown>[] = [];
  for (const event of source.events) {
    if (event.type === "unknown") {
      entries.push({ ...event.raw });
      continue;
    }
    // jp has no resets and no pins (the command says when pins are left out), and keeps no usage.
    if (isOverlay(event) && event.type !== "compaction") continue;
    if (event.type === "compaction" && !inForce.has(event.id)) continue;
    // jp has no cycles: one it cannot hold as whole turns would reach jp without policy.
    if (event.type === "compaction" && !jpCanHold(event, cycleCounts)) {
      leftOut.push(event);
      continue;
    }
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
      leftOut,
    },
  };
}

/**
 * True when jp can hold a compaction: whole turns, or one inside a turn that covers whole turns
 * after all (it ends at the last cycle of its last turn and starts at its first turn's start; for
 * mechanical policies, which never touch a user message, its first cycle is as good). jp reads it
 * with the policies of `cycles` at the top level.
 */
export function jpCanHold(compaction: Compaction, cycleCounts: readonly number[]): boolean {
  const { cycles } = compaction;
  if (cycles === undefined) return true;
  const endsWithTurn = cycles.to >= (cycleCounts[compaction.to_turn] ?? 0) - 1;
  const startsWithTurn = cycles.from === undefined || (cycles.from === 0 && cycles.summary === undefined);
  return endsWithTurn && startsWithTurn;
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

type KnownExportable = Exclude<
  ConversationEvent,
  | { type: "unknown" }
  | { type: "compaction_reset" }
  | { type: "pin" }
  | { type: "pin_reset" }
  | { type: "usage" }
  | { type: "recall_exclusion" }
>;

/** One cxc event in jp's shape and key order. */
function exportEvent(event: KnownExportable): Parsed<Record<string, unknown>> {
  const timestamp = rfc3339ToJpTimestamp(event.ts);
  if (timestamp === undefined) return interopError(`event ${event.id}: '${event.ts}' is not a timestamp`);
  const keep = new Set(Array.isArray(event[UNDECODED_FIELD]) ? (event[UNDECODED_FIELD] as string[]) : []);
  const head = { timestamp, type: event.type };
  switch (event.type) {
    case "config_delta":
      if (event.metadata?.[FLAT_CONFIG_MARKER] === true)
        return interopValue({ type: event.type, timestamp, ...event.delta });
      return interopValue({ type: event.type, timestamp, delta: event.delta });
    case "compaction": {
      const entry: Record<string, unknown> = { type: event.type, timestamp };
      Object.assign(entry, { from_turn: event.from_turn, to_turn: event.to_turn });
      const policies = compactionPolicies(event);
      // The facts block goes with the text: jp shows the summary as cxc's view has it.
      if (policies.summary)
        entry.summary = {
          summary: composeSummaryMessage(policies.summary.summary, {
            ...(policies.summary.facts === undefined ? {} : { facts: policies.summary.facts }),
          }),
        };
      if (policies.reasoning) entry.reasoning = policies.reasoning;
      if (policies.tool_calls) entry.tool_calls = policies.tool_calls;
      return interopValue(entry);
    }
    case "turn_start":
      return interopValue(withMetadata(head, event.metadata, keep));
    case "chat_request":
      return interopValue(
        withMetadata(
          { ...head, ...pickFields(event, ["content", "schema", "author"]) },
          event.metadata,
          keep,
        ),
      );
    case "chat_response":
      return interopValue(withMetadata({ ...head, ...responseVariant(event) }, event.metadata, keep));
    case "tool_call_request": {
      const encoded = encodeLeaves(event.arguments, ["arguments"], keep);
      const entry = { ...head, id: event.call_id, name: event.name, arguments: encoded };
      return interopValue(withMetadata(entry, event.metadata, keep));
    }
    case "tool_call_response": {
      const content = encodeLeaves(event.content, ["content"], keep);
      const entry = { ...head, id: event.call_id, content, is_error: event.is_error };
      return interopValue(withMetadata(entry, event.metadata, keep));
    }
    case "inquiry_request": {
      const entry = { ...head, id: event.inquiry_id, source: event.source, question: event.question };
      return interopValue(withMetadata(entry, event.metadata, keep));
    }
    case "inquiry_response":
      return interopValue(
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
