/**
 * cxc events → a new opencode session holding the projected view, as the document
 * `opencode import` reads (the shape `opencode export` prints: `{info, messages: [{info, parts}]}`).
 * Pure: the shell passes the ids (opencode orders messages and parts by id, so they must grow),
 * the folder, the model and the time, and runs `opencode import`.
 *
 * Each user message is one text part. Each reply (the events up to its results) is one assistant
 * message, as opencode writes one per model call: `step-start`, its reasoning, text and tool parts
 * (each with its result in its `state`: `completed` with the output, or `error`), `step-finish`.
 * opencode gives reasoning back to Anthropic with its signature only, so reasoning without an
 * Anthropic signature is left out (counted). A summary opening the view takes the shape of
 * opencode's own compaction: a user message holding a `compaction` part, then the summary as the
 * compaction agent's reply (`summary: true`), which opencode sends as "What did we do so far?" and
 * the summary; one further in is the request `[Summary of previous conversation]` and the summary.
 */
import type {
  ChatResponse,
  ConversationEvent,
  ToolCallRequest,
  ToolCallResponse,
} from "../conversation/events.js";
import { pinnedMessages } from "../conversation/pins.js";
import { SUMMARY_REQUEST_TEXT } from "../conversation/projection.js";
import { formatCount } from "../present/labels.js";
import { ANTHROPIC_SIGNATURE_KEY } from "../provider-keys.js";
import { openingSummaryText, viewMessages } from "./agent-export.js";
import { CXC_PINNED_KEY } from "./agents.js";
import { interopError } from "./jp.js";
import { isRecord, timestampMilliseconds } from "./jp-encoding.js";
import { metadataOf } from "./openai-messages.js";
import type { OpencodeDocument } from "./opencode.js";
import type { Parsed } from "../parsed.js";

type Json = Record<string, unknown>;

/** What the shell decides for a new opencode session. */
export interface OpencodeExportOptions {
  /** The new session's id (`ses_…`). */
  readonly sessionId: string;
  /** The folder the session belongs to. */
  readonly directory: string;
  readonly title: string;
  /** When the session is made (RFC 3339). */
  readonly timestamp: string;
  /** The opencode version the session says made it. */
  readonly version: string;
  /** The provider and model named on the messages (opencode resumes with the user's own choice). */
  readonly providerID: string;
  readonly modelID: string;
  /** A new message (`msg`) or part (`prt`) id, each larger than the one before. */
  readonly newId: (kind: "msg" | "prt") => string;
}

/** A session written for `opencode import`, and what was left out. */
export interface OpencodeSessionExport {
  readonly document: OpencodeDocument;
  readonly nativeSummaries: number;
  readonly warnings: readonly string[];
}

/** Writes the projected view of `events` as an opencode session document. */
export function exportOpencodeSession(
  events: readonly ConversationEvent[],
  options: OpencodeExportOptions,
): Parsed<OpencodeSessionExport> {
  if (!options.sessionId.startsWith("ses_"))
    return interopError("the new session needs an opencode id (`ses_…`)");
  const sessionID = options.sessionId;
  const now = millis(options.timestamp, Date.parse("1970-01-01T00:00:00Z"));
  const messages: { info: Json; parts: Json[] }[] = [];
  let lastUser: string | undefined;
  let unsigned = 0;
  const model = { providerID: options.providerID, modelID: options.modelID };
  const part = (messageID: string, fields: Json): Json => ({
    ...fields,
    id: options.newId("prt"),
    sessionID,
    messageID,
  });
  const user = (ts: string, build: (id: string) => Json[]) => {
    const id = options.newId("msg");
    lastUser = id;
    messages.push({
      info: { role: "user", time: { created: millis(ts, now) }, agent: "build", model, id, sessionID },
      parts: build(id),
    });
  };
  const assistant = (ts: string, fields: Json, build: (id: string) => Json[]) => {
    const id = options.newId("msg");
    const created = millis(ts, now);
    const parts = build(id);
    messages.push({
      info: {
        parentID: lastUser ?? id,
        role: "assistant",
        mode: "build",
        agent: "build",
        path: { cwd: options.directory, root: "/" },
        cost: 0,
        tokens: ZERO_TOKENS,
        modelID: options.modelID,
        providerID: options.providerID,
        time: { created, completed: created },
        finish: "stop",
        ...fields,
        id,
        sessionID,
      },
      parts: [
        part(id, { type: "step-start" }),
        ...parts,
        part(id, { type: "step-finish", reason: fields.finish ?? "stop", tokens: ZERO_TOKENS, cost: 0 }),
      ],
    });
  };
  const text = (id: string, value: string, ts: string): Json => {
    const at = millis(ts, now);
    return part(id, { type: "text", text: value, time: { start: at, end: at } });
  };
  // Pinned messages kept in place carry a mark opencode keeps with the part, for the restore after
  // opencode compacts (a prompt's or an answer's text part; a tool part for its pinned result).
  const { ids: pinned } = pinnedMessages(events);
  const marked = (fields: Json, pin: boolean): Json =>
    pin
      ? {
          ...fields,
          metadata: { ...(isRecord(fields.metadata) ? fields.metadata : {}), [CXC_PINNED_KEY]: true },
        }
      : fields;
  let nativeSummaries = 0;
  const view = viewMessages(events);
  for (const [index, message] of view.entries()) {
    switch (message.kind) {
      case "summary":
        if (message.opening) {
          nativeSummaries += 1;
          user(message.ts, (id) => [part(id, { type: "compaction", auto: false, overflow: false })]);
          assistant(message.ts, { mode: "compaction", agent: "compaction", summary: true }, (id) => [
            text(id, openingSummaryText(message, "opencode"), message.ts),
          ]);
        } else {
          user(message.ts, (id) => [text(id, SUMMARY_REQUEST_TEXT, message.ts)]);
          assistant(message.ts, {}, (id) => [text(id, message.text, message.ts)]);
        }
        break;
      case "user":
        user(message.event.ts, (id) => [
          marked(text(id, message.event.content, message.event.ts), pinned.has(message.event.id)),
        ]);
        break;
      case "assistant": {
        const next = view[index + 1];
        const results = next?.kind === "results" ? next.events : [];
        const calls = message.events.some((event) => event.type === "tool_call_request");
        assistant(message.events[0]!.ts, { finish: calls ? "tool-calls" : "stop" }, (id) =>
          message.events.flatMap((event) => {
            if (event.type === "tool_call_request") {
              const result = results.find((candidate) => candidate.call_id === event.call_id);
              return [
                part(
                  id,
                  marked(toolPart(event, results, now), result !== undefined && pinned.has(result.id)),
                ),
              ];
            }
            const converted = responsePart(event, now);
            if (converted === "unsigned") {
              unsigned += 1;
              return [];
            }
            return converted === undefined ? [] : [part(id, marked(converted, pinned.has(event.id)))];
          }),
        );
        break;
      }
      case "results":
        // Written with the calls they answer (above).
        break;
    }
  }
  const created = millis(view[0]?.kind === "user" ? view[0].event.ts : options.timestamp, now);
  const document: OpencodeDocument = {
    info: {
      id: sessionID,
      slug: "cxc-export",
      projectID: "global",
      directory: options.directory,
      title: options.title,
      version: options.version,
      time: { created, updated: now },
    },
    messages,
  };
  const warnings =
    unsigned === 0
      ? []
      : [
          `${formatCount(unsigned, "reasoning block")} without an Anthropic signature ${unsigned === 1 ? "was" : "were"} left out (opencode sends a model's reasoning back only with its signature)`,
        ];
  return { ok: true, value: { document, nativeSummaries, warnings } };
}

const ZERO_TOKENS = { total: 0, input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } };

function millis(ts: string, fallback: number): number {
  const value = timestampMilliseconds(ts);
  return Number.isNaN(value) ? fallback : value;
}

/** A reasoning or text part; reasoning opencode cannot send back is `"unsigned"`. */
function responsePart(event: ChatResponse, now: number): Json | "unsigned" | undefined {
  const at = millis(event.ts, now);
  if (event.reasoning !== undefined) {
    const signature = metadataOf(event)[ANTHROPIC_SIGNATURE_KEY];
    if (typeof signature !== "string" || signature === "")
      return event.reasoning === "" ? undefined : "unsigned";
    return {
      type: "reasoning",
      text: event.reasoning,
      time: { start: at, end: at },
      metadata: { anthropic: { signature } },
    };
  }
  const text = event.message ?? (event.data === undefined ? "" : JSON.stringify(event.data));
  return text === "" ? undefined : { type: "text", text, time: { start: at, end: at } };
}

/** A tool part with its result in its state. */
function toolPart(event: ToolCallRequest, results: readonly ToolCallResponse[], now: number): Json {
  const result = results.find((candidate) => candidate.call_id === event.call_id);
  const start = millis(event.ts, now);
  const end = result === undefined ? start : millis(result.ts, start);
  const state: Json =
    result === undefined || result.is_error
      ? {
          status: "error",
          input: event.arguments,
          error: result?.content ?? "Tool execution was interrupted",
          time: { start, end },
        }
      : {
          status: "completed",
          input: event.arguments,
          output: result.content,
          title: event.name,
          metadata: {},
          time: { start, end },
        };
  return { type: "tool", tool: event.name, callID: event.call_id, state };
}
