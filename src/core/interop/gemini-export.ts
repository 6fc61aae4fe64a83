/**
 * cxc events → a new Gemini CLI session holding the projected view. Pure: the shell passes the
 * session id, the project's hash, the time and a source of message ids, and writes the lines.
 *
 * The file is what `gemini --resume <id>` loads (gemini.ts reads the same format): the header
 * (`sessionId`, `projectHash`, `startTime`, `lastUpdated`, `kind: "main"`), then one record per
 * message. A user message is `{type: "user", content: [{text}]}`; a reply is
 * `{type: "gemini", content, thoughts, toolCalls, model}` whose tool calls carry their results
 * (`{functionResponse: {id, name, response: {output}}}`, `{error}` for a failed one), as Gemini CLI
 * records them. Gemini CLI also records each function response as a user message of its own and
 * then sends it twice on resume; cxc writes it once, with its call. Gemini adds its own context
 * message (the machine and the folder) when it resumes, so none is written.
 *
 * A summary opening the view takes the shape of Gemini CLI's own compression: the summary as a user
 * message (Gemini's own `<state_snapshot>` word for word; cxc's framed), then Gemini's
 * acknowledgement; one further in is the request `[Summary of previous conversation]` and the
 * summary as the reply. Reasoning goes back as thoughts (Gemini CLI sends them as thought parts).
 */
import type {
  ChatResponse,
  ConversationEvent,
  ToolCallRequest,
  ToolCallResponse,
} from "../conversation/events.js";
import { SUMMARY_REQUEST_TEXT } from "../conversation/projection.js";
import {
  type AgentSessionExport,
  openingSummaryText,
  millisecondTimestamp,
  viewMessages,
} from "./agent-export.js";
import { GEMINI_COMPRESSION_ACK } from "./gemini.js";
import { interopError } from "./jp.js";
import type { Parsed } from "../parsed.js";

type Json = Record<string, unknown>;

/** What the shell decides for a new Gemini CLI session. */
export interface GeminiExportOptions {
  /** The new session's id (a UUID). */
  readonly sessionId: string;
  /** SHA-256 (hex) of the project folder, as Gemini CLI records it. */
  readonly projectHash: string;
  /** When the session starts (RFC 3339). */
  readonly timestamp: string;
  /** The Gemini model named on replies (without `google/`); the conversation's, else a default. */
  readonly model: string;
  /** A new message id (Gemini CLI uses UUIDs). */
  readonly newId: () => string;
}

/** Gemini CLI's file name for a session started at `timestamp`: `session-<YYYY-MM-DDThh-mm>-<id8>.jsonl`. */
export function geminiSessionFileName(timestamp: string, sessionId: string): string {
  return `session-${millisecondTimestamp(timestamp).slice(0, 16).replace(/:/g, "-")}-${sessionId.slice(0, 8)}.jsonl`;
}

/** Writes the projected view of `events` as a Gemini CLI session. */
export function exportGeminiSession(
  events: readonly ConversationEvent[],
  options: GeminiExportOptions,
): Parsed<AgentSessionExport> {
  if (options.sessionId === "") return interopError("the new session needs an id");
  const start = millisecondTimestamp(options.timestamp);
  const lines: string[] = [
    JSON.stringify({
      sessionId: options.sessionId,
      projectHash: options.projectHash,
      startTime: start,
      lastUpdated: start,
      kind: "main",
    }),
  ];
  const push = (record: Json) => lines.push(JSON.stringify(record));
  const user = (text: string, ts: string) =>
    push({ id: options.newId(), timestamp: millisecondTimestamp(ts), type: "user", content: [{ text }] });
  const reply = (fields: Json, ts: string, model: string) =>
    push({ id: options.newId(), timestamp: millisecondTimestamp(ts), type: "gemini", ...fields, model });
  const messages = viewMessages(events);
  let nativeSummaries = 0;
  for (const [index, message] of messages.entries()) {
    switch (message.kind) {
      case "summary":
        if (message.opening) {
          nativeSummaries += 1;
          user(openingSummaryText(message, "gemini"), message.ts);
          reply({ content: GEMINI_COMPRESSION_ACK, thoughts: [] }, message.ts, options.model);
        } else {
          user(SUMMARY_REQUEST_TEXT, message.ts);
          reply({ content: message.text, thoughts: [] }, message.ts, options.model);
        }
        break;
      case "user":
        user(message.event.content, message.event.ts);
        break;
      case "assistant": {
        const next = messages[index + 1];
        const results = next?.kind === "results" ? next.events : [];
        const model = message.model?.startsWith("google/") ? message.model.slice(7) : options.model;
        reply(replyFields(message.events, results), message.events[0]!.ts, model);
        break;
      }
      case "results":
        // Written with the calls they answer (above).
        break;
    }
  }
  return { ok: true, value: { lines, nativeSummaries, warnings: [] } };
}

/** A reply's content, thoughts and tool calls (each with its result). */
function replyFields(
  events: readonly (ChatResponse | ToolCallRequest)[],
  results: readonly ToolCallResponse[],
): Json {
  const texts: string[] = [];
  const thoughts: Json[] = [];
  const calls: Json[] = [];
  for (const event of events) {
    if (event.type === "tool_call_request") {
      const result = results.find((candidate) => candidate.call_id === event.call_id);
      const response =
        result === undefined
          ? undefined
          : result.is_error
            ? { error: result.content }
            : { output: result.content };
      calls.push({
        id: event.call_id,
        name: event.name,
        args: event.arguments,
        ...(response === undefined
          ? {}
          : { result: [{ functionResponse: { id: event.call_id, name: event.name, response } }] }),
        status: result === undefined ? "cancelled" : result.is_error ? "error" : "success",
        timestamp: millisecondTimestamp(result?.ts ?? event.ts),
      });
    } else if (event.reasoning !== undefined) {
      if (event.reasoning !== "") {
        thoughts.push({
          subject: "",
          description: event.reasoning,
          timestamp: millisecondTimestamp(event.ts),
        });
      }
    } else {
      const text = event.message ?? (event.data === undefined ? "" : JSON.stringify(event.data));
      if (text !== "") texts.push(text);
    }
  }
  return {
    content: texts.join("\n\n"),
    thoughts,
    ...(calls.length === 0 ? {} : { toolCalls: calls }),
  };
}
