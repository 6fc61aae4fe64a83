/**
 * cxc events → a new Claude Code session file holding the projected view. Pure: the shell passes
 * the session id, the working directory and a source of record uuids, and writes the lines.
 *
 * The records are the ones Claude Code resumes from: `user`, `assistant`, `attachment` and
 * `system` records chained by `uuid`/`parentUuid`, each with `sessionId`, `cwd` and `timestamp`,
 * assistant messages complete with `model` and `usage`. A summary opening the view is written as
 * Claude Code's own compaction (a `compact_boundary` record, then the summary as an
 * `isCompactSummary` prompt), so Claude Code treats it as its own; one of Claude Code's own
 * summaries goes back word for word. Attachments the import kept (`claude_code_attachment`,
 * `claude_code_context`) go back after the event that held them. Reasoning without a signature is
 * left out (the API refuses unsigned thinking). Pinned messages go verbatim after a summary (in
 * its text, as the projection has them) or stay in place with the indexes of their blocks in
 * `cxcPinned`, which the restore after Claude Code's own compaction reads back. See
 * docs/import-export.md.
 */
import type { ChatResponse, ConversationEvent, ToolCallRequest } from "../conversation/events.js";
import type { ExportRecallIndex } from "./agent-export.js";
import { formatCount } from "../present/labels.js";
import { assistantBlock as anthropicAssistantBlock } from "./anthropic-messages.js";
import { SUMMARY_REQUEST_TEXT } from "../conversation/projection.js";
import { type AgentSessionExport, framedSummary, viewMessages } from "./agent-export.js";
import {
  CLAUDE_CODE_ATTACHMENT_KEY,
  CLAUDE_CODE_CONTEXT_KEY,
  CLAUDE_CODE_LEADING_CONTEXT_KEY,
  CLAUDE_CODE_META_KEY,
  CLAUDE_CODE_PINNED_FIELD,
  CLAUDE_CODE_SUMMARY_KEY,
} from "./claude-code.js";
import { pinnedMessages } from "../conversation/pins.js";
import { interopError } from "./jp.js";
import { isRecord } from "./jp-encoding.js";
import { metadataOf } from "./openai-messages.js";
import type { Parsed } from "../parsed.js";

type Json = Record<string, unknown>;

/** What the shell decides for a new Claude Code session. */
export interface ClaudeCodeExportOptions {
  /** The recall index of the conversation, written where the hidden range ends (agent-export.ts). */
  readonly recallIndex?: ExportRecallIndex;
  /** The new session's id (a UUID); the file is `<sessionId>.jsonl`. */
  readonly sessionId: string;
  /** The working directory the session belongs to. */
  readonly cwd: string;
  /** A new record uuid each call. */
  readonly newUuid: () => string;
  /** The model for assistant messages when the conversation names none, e.g. `claude-sonnet-4-5`. */
  readonly model: string;
  /** The Claude Code version to write in the records, when known. */
  readonly version?: string;
}

/** Writes the projected view of `events` as a Claude Code session. */
export function exportClaudeCodeSession(
  events: readonly ConversationEvent[],
  options: ClaudeCodeExportOptions,
): Parsed<AgentSessionExport> {
  if (options.sessionId === "") return interopError("the new session needs an id");
  const writer = new ChainWriter(options);
  const warnings: string[] = [];
  // Pinned messages kept in place carry their block indexes, for the restore after Claude Code compacts.
  const { ids: pinned } = pinnedMessages(events);
  const marks = (indexes: readonly number[]): Json =>
    indexes.length === 0 ? {} : { [CLAUDE_CODE_PINNED_FIELD]: [...indexes] };
  let unsigned = 0;
  let nativeSummaries = 0;
  let lastPrompt: string | undefined;
  for (const [index, message] of viewMessages(events, options.recallIndex).entries()) {
    switch (message.kind) {
      case "summary":
        if (message.opening) {
          nativeSummaries += 1;
          writeNativeSummary(writer, {
            text: message.text,
            ts: message.ts,
            own: message.compaction?.origin?.agent === "claude-code",
            auto: message.compaction?.source === "auto",
          });
        } else {
          writer.user(SUMMARY_REQUEST_TEXT, message.ts, {});
          writer.assistant([{ type: "text", text: message.text }], message.ts, undefined);
        }
        break;
      case "user": {
        const event = message.event;
        const metadata = metadataOf(event);
        const attachment = metadata[CLAUDE_CODE_ATTACHMENT_KEY];
        writer.context(event, CLAUDE_CODE_LEADING_CONTEXT_KEY);
        if (index === 0 && metadata[CLAUDE_CODE_SUMMARY_KEY] === true) {
          // Claude Code's own summary opening the session: its own shape again.
          nativeSummaries += 1;
          writeNativeSummary(writer, { text: event.content, ts: event.ts, own: true, auto: false });
        } else if (isRecord(attachment)) writer.record(attachment, event.ts);
        else {
          writer.user(event.content, event.ts, {
            ...(metadata[CLAUDE_CODE_META_KEY] === true ? { isMeta: true } : {}),
            ...marks(pinned.has(event.id) ? [0] : []),
          });
          lastPrompt = event.content;
        }
        writer.context(event);
        break;
      }
      case "assistant": {
        const blocks: Json[] = [];
        const pinnedBlocks: number[] = [];
        for (const event of message.events) {
          const block = assistantBlock(event);
          if (block === undefined) {
            if (event.type === "chat_response" && event.reasoning !== undefined) unsigned += 1;
          } else {
            if (pinned.has(event.id)) pinnedBlocks.push(blocks.length);
            blocks.push(block);
          }
        }
        if (blocks.length > 0) {
          writer.assistant(blocks, message.events[0]!.ts, message.model, marks(pinnedBlocks));
          for (const event of message.events) writer.context(event);
        }
        break;
      }
      case "results": {
        const blocks = message.events.map((event) => ({
          type: "tool_result",
          tool_use_id: event.call_id,
          content: event.content,
          ...(event.is_error ? { is_error: true } : {}),
        }));
        const pinnedResults = message.events.flatMap((event, index) => (pinned.has(event.id) ? [index] : []));
        writer.record(
          { type: "user", message: { role: "user", content: blocks }, ...marks(pinnedResults) },
          message.events[0]!.ts,
        );
        for (const event of message.events) writer.context(event);
        break;
      }
    }
  }
  if (unsigned > 0) {
    const were = unsigned === 1 ? "was" : "were";
    warnings.push(
      `${formatCount(unsigned, "reasoning block")} without a signature ${were} left out (the API refuses them)`,
    );
  }
  const leaf = writer.leaf();
  if (leaf !== undefined) {
    writer.lines.push(
      JSON.stringify({
        type: "last-prompt",
        ...(lastPrompt === undefined ? {} : { lastPrompt }),
        leafUuid: leaf,
        sessionId: options.sessionId,
      }),
    );
  }
  return { ok: true, value: { lines: writer.lines, nativeSummaries, warnings } };
}

/**
 * The summary as Claude Code's own compaction: a boundary, then the summary prompt (Claude Code's
 * own summaries as they were, cxc's framed).
 */
function writeNativeSummary(
  writer: ChainWriter,
  summary: { text: string; ts: string; own: boolean; auto: boolean },
): void {
  writer.record(
    {
      type: "system",
      subtype: "compact_boundary",
      content: "Conversation compacted",
      isMeta: false,
      level: "info",
      compactMetadata: { trigger: summary.auto ? "auto" : "manual", preTokens: 0 },
    },
    summary.ts,
    { parentUuid: null, logicalParentUuid: writer.leaf() ?? null },
  );
  writer.record(
    {
      type: "user",
      message: { role: "user", content: summary.own ? summary.text : framedSummary(summary.text) },
      isVisibleInTranscriptOnly: true,
      isCompactSummary: true,
    },
    summary.ts,
  );
}

function assistantBlock(event: ChatResponse | ToolCallRequest): Json | undefined {
  if (event.type === "tool_call_request") {
    return { type: "tool_use", id: event.call_id, name: event.name, input: event.arguments };
  }
  return anthropicAssistantBlock(event);
}

/** Writes records one after another, each the child of the one before. */
class ChainWriter {
  readonly lines: string[] = [];
  private previous: string | null = null;
  private messages = 0;

  constructor(private readonly options: ClaudeCodeExportOptions) {}

  leaf(): string | undefined {
    return this.previous ?? undefined;
  }

  record(content: Json, ts: string, chain: Json = {}): void {
    const uuid = this.options.newUuid();
    this.lines.push(
      JSON.stringify({
        parentUuid: this.previous,
        isSidechain: false,
        ...content,
        ...chain,
        uuid,
        timestamp: claudeTimestamp(ts),
        userType: "external",
        cwd: this.options.cwd,
        sessionId: this.options.sessionId,
        ...(this.options.version === undefined ? {} : { version: this.options.version }),
      }),
    );
    this.previous = uuid;
  }

  user(text: string, ts: string, extra: Json): void {
    this.record({ type: "user", message: { role: "user", content: text }, ...extra }, ts);
  }

  assistant(blocks: Json[], ts: string, model: string | undefined, extra: Json = {}): void {
    this.messages += 1;
    const name = model?.startsWith("anthropic/") ? model.slice("anthropic/".length) : this.options.model;
    this.record(
      {
        type: "assistant",
        message: {
          id: `msg_cxc_${this.options.sessionId.replace(/-/g, "").slice(0, 12)}_${this.messages}`,
          type: "message",
          role: "assistant",
          model: name,
          content: blocks,
          stop_reason: blocks.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn",
          stop_sequence: null,
          usage: {
            input_tokens: 0,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
            output_tokens: 0,
          },
        },
        ...extra,
      },
      ts,
    );
  }

  /** The context attachments an event carried under `key` (by default those that followed it). */
  context(event: ConversationEvent, key = CLAUDE_CODE_CONTEXT_KEY): void {
    const context = metadataOf(event)[key];
    if (!Array.isArray(context) || event.type === "unknown") return;
    for (const attachment of context) if (isRecord(attachment)) this.record(attachment, event.ts);
  }
}

/** Claude Code's timestamp form: milliseconds, `Z`. */
function claudeTimestamp(ts: string): string {
  const parsed = Date.parse(ts);
  return Number.isNaN(parsed) ? ts : new Date(parsed).toISOString();
}
