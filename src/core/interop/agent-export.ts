/**
 * What the writers of other agents' sessions (claude-code-export.ts, pi-export.ts) share: the
 * projected view (what the model sees after cxc's compactions) as a list of messages. Pure.
 *
 * A summary that opens the view can be written in the agent's own compaction shape (the agent
 * then treats it as its own); one further in stays what the projection makes of it, a request
 * `[Summary of previous conversation]` answered by the summary. Tool calls are paired (a call
 * without a result gets the interrupted result), and stripped or omitted calls and reasoning
 * appear as the projection has them.
 */
import type {
  ChatRequest,
  ChatResponse,
  Compaction,
  ConversationEvent,
  NativeSummary,
  ToolCallRequest,
  ToolCallResponse,
} from "../conversation/events.js";
import { NATIVE_SUMMARY_ADDITION_KEY, NATIVE_SUMMARY_KEY } from "../provider-keys.js";
import { projectConversation } from "../conversation/projection.js";
import { modelOf } from "./agent-session.js";
import { timestampMilliseconds } from "./jp-encoding.js";
import { pairToolCalls } from "./openai-messages.js";

/** One message of the projected view. */
export type ViewMessage =
  | {
      readonly kind: "summary";
      readonly text: string;
      readonly ts: string;
      /** The compaction the summary comes from (its `origin` names an agent for imported ones). */
      readonly compaction: Compaction | undefined;
      /** Whether the summary opens the view (and can take the agent's own compaction shape). */
      readonly opening: boolean;
      /** A provider's own summary standing for its whole range, and what cxc adds after it natively. */
      readonly native?: { readonly summary: NativeSummary; readonly addition: string };
    }
  | { readonly kind: "user"; readonly event: ChatRequest }
  | {
      readonly kind: "assistant";
      readonly events: readonly (ChatResponse | ToolCallRequest)[];
      /** The model in force (a cxc model id such as `anthropic/claude-sonnet-4-5`), if any. */
      readonly model: string | undefined;
    }
  | { readonly kind: "results"; readonly events: readonly ToolCallResponse[] };

/** A written session: its JSON Lines (without newlines) and notes on what was left out. */
export interface AgentSessionExport {
  readonly lines: readonly string[];
  /** Summaries written in the agent's own compaction shape. */
  readonly nativeSummaries: number;
  readonly warnings: readonly string[];
}

/**
 * The recall index an export carries (docs/recall.md, "Exports"): its text, and the id of the
 * view's event it stands before (the user message or tool result after the hidden range); at the
 * end when absent. Its references name the cxc conversation (`cxc <id> turn 3, call 1`), which the
 * agent's `recall` reads.
 */
export interface ExportRecallIndex {
  readonly text: string;
  readonly beforeEventId?: string;
}

/** The id of the user message an export's recall index is written as. */
export const RECALL_INDEX_EVENT_ID = "cxc-recall-index";

/**
 * The projected view of `events` as messages, in order; with `recallIndex`, the index as a user
 * message of its own before the message that holds its event (never inside a summary).
 */
export function viewMessages(
  events: readonly ConversationEvent[],
  recallIndex?: ExportRecallIndex,
): ViewMessage[] {
  const messages = projectedMessages(events);
  if (recallIndex === undefined) return messages;
  const holds = (message: ViewMessage): boolean =>
    (message.kind === "user" && message.event.id === recallIndex.beforeEventId) ||
    (message.kind === "results" && message.events.some((event) => event.id === recallIndex.beforeEventId));
  const at = recallIndex.beforeEventId === undefined ? -1 : messages.findIndex(holds);
  const next = at < 0 ? undefined : messages[at];
  const ts =
    next === undefined
      ? messages.at(-1)?.kind === "summary"
        ? (messages.at(-1) as { ts: string }).ts
        : lastTimestamp(messages)
      : next.kind === "user"
        ? next.event.ts
        : next.kind === "results"
          ? next.events[0]!.ts
          : "";
  const index: ViewMessage = {
    kind: "user",
    event: { type: "chat_request", id: RECALL_INDEX_EVENT_ID, ts, content: recallIndex.text },
  };
  // A tool result answers the call before it: the index goes after the results then.
  if (next?.kind === "results") messages.splice(at + 1, 0, index);
  else if (at >= 0) messages.splice(at, 0, index);
  else messages.push(index);
  return messages;
}

function lastTimestamp(messages: readonly ViewMessage[]): string {
  const last = messages.at(-1);
  if (last === undefined) return "";
  if (last.kind === "summary") return last.ts;
  if (last.kind === "user") return last.event.ts;
  return last.events.at(-1)?.ts ?? "";
}

/** The projected view of `events` as messages, in order. */
function projectedMessages(events: readonly ConversationEvent[]): ViewMessage[] {
  const view = projectConversation(events);
  const compactions = new Map<string, Compaction>();
  for (const event of events) if (event.type === "compaction") compactions.set(event.id, event);
  const modelAt = new Map<string, string | undefined>();
  let model: string | undefined;
  for (const event of view.events) {
    const set = modelOf(event);
    if (set !== undefined) model = set;
    else if (event.type !== "unknown") modelAt.set(event.id, model);
  }
  const messages: ViewMessage[] = [];
  for (const turn of view.turns) {
    if (turn.origin.kind === "summary") {
      const response = turn.events.find((event) => event.type === "chat_response");
      const native = response?.metadata?.[NATIVE_SUMMARY_KEY] as NativeSummary | undefined;
      const addition = response?.metadata?.[NATIVE_SUMMARY_ADDITION_KEY];
      messages.push({
        kind: "summary",
        text: response?.type === "chat_response" ? (response.message ?? "") : "",
        ts: turn.events[0]?.ts ?? "",
        compaction: compactions.get(turn.origin.compactionId),
        opening: messages.length === 0,
        ...(native === undefined
          ? {}
          : { native: { summary: native, addition: typeof addition === "string" ? addition : "" } }),
      });
      continue;
    }
    for (const event of pairToolCalls(turn.events)) {
      const last = messages.at(-1);
      if (event.type === "chat_request") messages.push({ kind: "user", event });
      else if (event.type === "chat_response" || event.type === "tool_call_request") {
        if (last?.kind === "assistant") (last.events as (ChatResponse | ToolCallRequest)[]).push(event);
        else messages.push({ kind: "assistant", events: [event], model: modelAt.get(event.id) });
      } else if (event.type === "tool_call_response") {
        if (last?.kind === "results") (last.events as ToolCallResponse[]).push(event);
        else messages.push({ kind: "results", events: [event] });
      }
    }
  }
  return messages;
}

/** The names of the tools called in `events`, by call id. */
export function toolNames(events: readonly ConversationEvent[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const event of events) if (event.type === "tool_call_request") names.set(event.call_id, event.name);
  return names;
}

/** A summary written by cxc, framed for an agent that reads it as the opening user message. */
export function framedSummary(text: string): string {
  return `This session continues an earlier conversation that was compacted with cxc. The summary below stands for the earlier part of it.\n\n<summary>\n${text}\n</summary>`;
}

/**
 * The text an opening summary is written with in `agent`'s session: the agent's own summary as it
 * wrote it (it came from that agent's compaction), any other framed (`framedSummary`).
 */
export function openingSummaryText(
  message: Extract<ViewMessage, { kind: "summary" }>,
  agent: string,
): string {
  return message.compaction?.origin?.agent === agent ? message.text : framedSummary(message.text);
}

/** The timestamp form pi and Codex write: milliseconds, `Z` (a value cxc cannot read stays as it is). */
export function millisecondTimestamp(ts: string): string {
  const value = timestampMilliseconds(ts);
  return Number.isNaN(value) ? ts : new Date(value).toISOString();
}
