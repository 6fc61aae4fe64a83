/**
 * cxc events → a new pi session file (format version 3) holding the projected view. Pure: the
 * shell passes the session id, the working directory, the time, the model pi will resume with and
 * a source of entry ids, and writes the lines.
 *
 * The file is pi's header, a `model_change` entry, then one `message` entry per message, each the
 * child of the one before. Assistant messages always carry `usage` (pi fails on resume without
 * it) and the resuming provider and model (with others pi would resend thinking as plain text).
 * A summary opening the view is written as pi's own `compaction` entry, which keeps everything
 * after it. See docs/import-export.md.
 */
import type { ChatResponse, ConversationEvent, ToolCallRequest } from "../conversation/events.js";
import type { ExportRecallIndex } from "./agent-export.js";
import { ANTHROPIC_SIGNATURE_KEY } from "../provider-keys.js";
import { SUMMARY_REQUEST_TEXT } from "../conversation/projection.js";
import { type AgentSessionExport, millisecondTimestamp, toolNames, viewMessages } from "./agent-export.js";
import { interopError } from "./jp.js";
import { timestampMilliseconds } from "./jp-encoding.js";
import { metadataOf } from "./openai-messages.js";
import { PI_SESSION_VERSION, PI_SIGNATURE_KEY, PI_SUMMARY_KEY } from "./pi.js";
import type { Parsed } from "../parsed.js";

type Json = Record<string, unknown>;

/** What the shell decides for a new pi session. */
export interface PiExportOptions {
  /** The recall index of the conversation, written where the hidden range ends (agent-export.ts). */
  readonly recallIndex?: ExportRecallIndex;
  /** The session id (a UUID) for the header. */
  readonly sessionId: string;
  readonly cwd: string;
  /** The header's timestamp (RFC 3339). */
  readonly timestamp: string;
  /** The provider and model pi resumes with (`--provider`, `--model`). */
  readonly provider: string;
  readonly model: string;
  /** The API of that model in pi's terms; default `anthropic-messages`. */
  readonly api?: string;
  /** A new entry id each call (pi uses 8 hex digits). */
  readonly newId: () => string;
}

const ZERO_USAGE = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

/** Writes the projected view of `events` as a pi session. */
export function exportPiSession(
  events: readonly ConversationEvent[],
  options: PiExportOptions,
): Parsed<AgentSessionExport> {
  if (options.sessionId === "") return interopError("the new session needs an id");
  const entries: Json[] = [
    {
      type: "session",
      version: PI_SESSION_VERSION,
      id: options.sessionId,
      timestamp: options.timestamp,
      cwd: options.cwd,
    },
  ];
  let previous: string | null = null;
  const add = (entry: Json, ts: string): Json => {
    const id = options.newId();
    const written = { ...entry, id, parentId: previous, timestamp: millisecondTimestamp(ts) };
    entries.push(written);
    previous = id;
    return written;
  };
  const message = (body: Json, ts: string) =>
    add({ type: "message", message: { ...body, timestamp: milliseconds(ts) } }, ts);
  const assistant = (content: Json[], ts: string) =>
    message(
      {
        role: "assistant",
        content,
        api: options.api ?? "anthropic-messages",
        provider: options.provider,
        model: options.model,
        usage: ZERO_USAGE,
        stopReason: content.some((block) => block.type === "toolCall") ? "toolUse" : "stop",
      },
      ts,
    );
  add({ type: "model_change", provider: options.provider, modelId: options.model }, options.timestamp);
  const names = toolNames(events);
  let nativeSummaries = 0;
  let pendingCompaction: Json | undefined;
  for (const [index, item] of viewMessages(events, options.recallIndex).entries()) {
    const before = entries.length;
    const ownSummary = item.kind === "user" ? metadataOf(item.event)[PI_SUMMARY_KEY] : undefined;
    if (index === 0 && typeof ownSummary === "string") {
      // pi's own summary opening the session: its own shape again.
      nativeSummaries += 1;
      pendingCompaction = add(
        piCompactionEntry(ownSummary),
        item.kind === "user" ? item.event.ts : options.timestamp,
      );
      continue;
    }
    switch (item.kind) {
      case "summary":
        if (item.opening) {
          nativeSummaries += 1;
          // It keeps what follows it: firstKeptEntryId is set to the next entry once written.
          pendingCompaction = add(piCompactionEntry(item.text), item.ts);
          continue;
        }
        message({ role: "user", content: [{ type: "text", text: SUMMARY_REQUEST_TEXT }] }, item.ts);
        assistant([{ type: "text", text: item.text }], item.ts);
        break;
      case "user":
        message({ role: "user", content: [{ type: "text", text: item.event.content }] }, item.event.ts);
        break;
      case "assistant": {
        const content = item.events.flatMap((event) => assistantBlock(event));
        if (content.length > 0) assistant(content, item.events[0]!.ts);
        break;
      }
      case "results":
        for (const event of item.events) {
          message(
            {
              role: "toolResult",
              toolCallId: event.call_id,
              toolName: names.get(event.call_id) ?? "unknown",
              content: [{ type: "text", text: event.content }],
              isError: event.is_error,
            },
            event.ts,
          );
        }
        break;
    }
    if (pendingCompaction !== undefined && entries.length > before) {
      pendingCompaction.firstKeptEntryId = entries[before]!.id;
      pendingCompaction = undefined;
    }
  }
  if (pendingCompaction !== undefined) pendingCompaction.firstKeptEntryId = pendingCompaction.id;
  return {
    ok: true,
    value: { lines: entries.map((entry) => JSON.stringify(entry)), nativeSummaries, warnings: [] },
  };
}

/**
 * pi's own `compaction` session entry (pi's file format, not a cxc event): the summary pi's model
 * sees first; `firstKeptEntryId` is filled in once the entry it keeps is written.
 */
function piCompactionEntry(summary: string): Json {
  return { type: "compaction", summary, firstKeptEntryId: "", tokensBefore: 0, fromHook: false };
}

function assistantBlock(event: ChatResponse | ToolCallRequest): Json[] {
  if (event.type === "tool_call_request") {
    return [{ type: "toolCall", id: event.call_id, name: event.name, arguments: event.arguments }];
  }
  if (event.reasoning !== undefined) {
    const metadata = metadataOf(event);
    const signature = metadata[ANTHROPIC_SIGNATURE_KEY] ?? metadata[PI_SIGNATURE_KEY];
    if (event.reasoning === "") return [];
    return [
      {
        type: "thinking",
        thinking: event.reasoning,
        ...(typeof signature === "string" ? { thinkingSignature: signature } : {}),
      },
    ];
  }
  const text = event.message ?? JSON.stringify(event.data);
  return text === "" ? [] : [{ type: "text", text }];
}

function milliseconds(ts: string): number {
  const value = timestampMilliseconds(ts);
  return Number.isNaN(value) ? 0 : value;
}
