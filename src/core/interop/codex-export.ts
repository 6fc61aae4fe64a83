/**
 * cxc events → a new Codex rollout holding the projected view. Pure: the shell passes the session
 * id, the working directory and the time, and writes the lines.
 *
 * The rollout is what `codex resume <id>` and `codex exec resume <id>` load: a `session_meta`
 * record (the id, the working directory, `originator: "cxc"`, `source: "cli"`; the
 * `model_provider` only when the export names one, since Codex refuses to resume a session under
 * another provider than the one it records), then one `response_item` per item Codex sends its
 * model, in the Responses API's shapes, with the `event_msg` records (`user_message`,
 * `agent_message`) Codex shows when it replays a session. A summary opening the view is written
 * as Codex's own compaction (a `compacted` record whose `replacement_history` is the summary as
 * the user message Codex's model then sees); one of Codex's own summaries goes back word for word,
 * and one holding OpenAI's encrypted compaction items goes back as Codex recorded it (its replacement
 * history verbatim, docs/native-compaction.md). The lines of pinned messages kept in place carry
 * `cxc_pinned: true` (Codex ignores the field and never rewrites a line), which the restore after
 * Codex's own compaction reads back (codex-records.ts).
 * Reasoning Codex cannot send back (without OpenAI's encrypted content) is left out, with a
 * warning. See docs/import-export.md.
 */
import type { ChatResponse, ConversationEvent, ToolCallRequest, TurnEvent } from "../conversation/events.js";
import type { ExportRecallIndex } from "./agent-export.js";
import { formatCount } from "../present/labels.js";
import { SUMMARY_REQUEST_TEXT } from "../conversation/projection.js";
import {
  NATIVE_SUMMARY_HELD_KEY,
  OPENAI_ENCRYPTED_REASONING_KEY,
  OPENAI_REASONING_ID_KEY,
} from "../provider-keys.js";
import {
  type AgentSessionExport,
  openingSummaryText,
  millisecondTimestamp,
  viewMessages,
} from "./agent-export.js";
import { pinnedMessages } from "../conversation/pins.js";
import { CXC_PINNED_KEY } from "./agents.js";
import { CODEX_CUSTOM_TOOL_KEY } from "./codex-records.js";
import { interopError } from "./jp.js";
import { metadataOf } from "./openai-messages.js";
import type { Parsed } from "../parsed.js";

type Json = Record<string, unknown>;

/** What the shell decides for a new Codex rollout. */
export interface CodexExportOptions {
  /** The recall index of the conversation, written where the hidden range ends (agent-export.ts). */
  readonly recallIndex?: ExportRecallIndex;
  /** The new session's id (a UUID); the file name ends in `-<sessionId>.jsonl`. */
  readonly sessionId: string;
  /** The working directory the session belongs to. */
  readonly cwd: string;
  /** When the session starts (RFC 3339). */
  readonly timestamp: string;
  /** The provider Codex resumes with (`session_meta.model_provider`); left out when unset. */
  readonly provider?: string;
  /** The Codex version the rollout says wrote it (the conversation's, when it came from Codex). */
  readonly version: string;
}

/** Writes the projected view of `events` as a Codex rollout. */
export function exportCodexSession(
  events: readonly ConversationEvent[],
  options: CodexExportOptions,
): Parsed<AgentSessionExport> {
  if (options.sessionId === "") return interopError("the new session needs an id");
  const lines: string[] = [];
  // Pinned messages kept in place: their lines carry `cxc_pinned`, which Codex ignores and never
  // rewrites, for the restore after Codex's own compaction.
  const { ids: pinned } = pinnedMessages(events);
  const write = (type: string, payload: Json, ts: string, mark = false) => {
    lines.push(
      JSON.stringify({
        timestamp: millisecondTimestamp(ts),
        type,
        payload,
        ...(mark ? { [CXC_PINNED_KEY]: true } : {}),
      }),
    );
  };
  const item = (payload: Json, ts: string, mark = false) => write("response_item", payload, ts, mark);
  const userText = (text: string, ts: string, mark = false) => {
    item({ type: "message", role: "user", content: [{ type: "input_text", text }] }, ts, mark);
    write("event_msg", { type: "user_message", message: text, images: [] }, ts);
  };
  const assistantText = (text: string, ts: string, mark = false) => {
    item(
      { type: "message", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] },
      ts,
      mark,
    );
    write("event_msg", { type: "agent_message", message: text }, ts);
  };
  write(
    "session_meta",
    {
      id: options.sessionId,
      timestamp: millisecondTimestamp(options.timestamp),
      cwd: options.cwd,
      originator: "cxc",
      cli_version: options.version,
      source: "cli",
      ...(options.provider === undefined ? {} : { model_provider: options.provider }),
    },
    options.timestamp,
  );
  const custom = new Set<string>();
  // The events of a turn OpenAI's compaction was made inside that it stands for (its prompt, in
  // its history already, and the steps before it): Codex's rollout has them before the record.
  const held = (event: TurnEvent) => event.metadata?.[NATIVE_SUMMARY_HELD_KEY] === true;
  const heldCalls = new Set<string>();
  let unreplayable = 0;
  let nativeSummaries = 0;
  for (const message of viewMessages(events, options.recallIndex)) {
    switch (message.kind) {
      case "summary":
        if (message.native?.summary.format === "openai-compaction") {
          // OpenAI's encrypted compaction goes back to Codex as Codex recorded it.
          nativeSummaries += 1;
          const { summary, addition } = message.native;
          write(
            "compacted",
            { message: summary.message ?? "", replacement_history: summary.items ?? [] },
            message.ts,
          );
          if (addition !== "") userText(addition, message.ts);
        } else if (message.opening) {
          nativeSummaries += 1;
          const text = openingSummaryText(message, "codex");
          const history = [{ type: "message", role: "user", content: [{ type: "input_text", text }] }];
          write("compacted", { message: text, replacement_history: history }, message.ts);
        } else {
          userText(SUMMARY_REQUEST_TEXT, message.ts);
          assistantText(message.text, message.ts);
        }
        break;
      case "user":
        if (!held(message.event))
          userText(message.event.content, message.event.ts, pinned.has(message.event.id));
        break;
      case "assistant":
        for (const event of message.events) {
          if (held(event)) {
            if (event.type === "tool_call_request") heldCalls.add(event.call_id);
          } else if (event.type === "tool_call_request") {
            const isCustom = metadataOf(event)[CODEX_CUSTOM_TOOL_KEY] === true;
            if (isCustom) custom.add(event.call_id);
            item(toolCall(event, isCustom), event.ts, pinned.has(event.id));
          } else if (event.reasoning !== undefined) {
            const reasoning = reasoningItem(event);
            if (reasoning === undefined) unreplayable += 1;
            else item(reasoning, event.ts);
          } else {
            const text = event.message ?? JSON.stringify(event.data);
            if (text !== "" && text !== undefined) assistantText(text, event.ts, pinned.has(event.id));
          }
        }
        break;
      case "results":
        for (const event of message.events) {
          if (held(event) || heldCalls.has(event.call_id)) continue;
          const type = custom.has(event.call_id) ? "custom_tool_call_output" : "function_call_output";
          item({ type, call_id: event.call_id, output: event.content }, event.ts, pinned.has(event.id));
        }
        break;
    }
  }
  const warnings =
    unreplayable === 0
      ? []
      : [
          `${formatCount(unreplayable, "reasoning block")} without OpenAI's encrypted content ${unreplayable === 1 ? "was" : "were"} left out (Codex can only send its model's own reasoning back)`,
        ];
  return { ok: true, value: { lines, nativeSummaries, warnings } };
}

function toolCall(event: ToolCallRequest, isCustom: boolean): Json {
  if (isCustom) {
    const input = event.arguments.input;
    return {
      type: "custom_tool_call",
      call_id: event.call_id,
      name: event.name,
      input: typeof input === "string" ? input : JSON.stringify(event.arguments),
    };
  }
  return {
    type: "function_call",
    name: event.name,
    arguments: JSON.stringify(event.arguments),
    call_id: event.call_id,
  };
}

/** A reasoning item Codex can send back: one with OpenAI's encrypted content and its item id. */
function reasoningItem(event: ChatResponse): Json | undefined {
  const metadata = metadataOf(event);
  const encrypted = metadata[OPENAI_ENCRYPTED_REASONING_KEY];
  const id = metadata[OPENAI_REASONING_ID_KEY];
  if (typeof encrypted !== "string" || encrypted === "" || typeof id !== "string") return undefined;
  const text = event.reasoning ?? "";
  return {
    type: "reasoning",
    id,
    summary: text === "" ? [] : [{ type: "summary_text", text }],
    content: null,
    encrypted_content: encrypted,
  };
}
