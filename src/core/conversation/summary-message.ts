/**
 * The message a summary stands as in the projected view (projection.ts), and how to find its
 * parts again in an agent's transcript (the restore after an agent compacts). Pure.
 *
 *   <the summary text, as written>
 *
 *   [Facts of these turns, from their raw events]
 *   The user's instructions, verbatim:
 *   - "Never touch the migrations folder." (turn 1)
 *   Files modified: src/a.ts
 *
 *   [Pinned messages, kept verbatim]
 *   turn 3, the user:
 *   ```text
 *   …
 *   ```
 *
 * The facts block is stored with the compaction (`summary.facts`, compaction/core/summary/range-facts.ts);
 * the pinned messages are the raw messages of the summarized range that pins or keep rules hold
 * (pins.ts), each fenced by more backticks than any run inside it, in stream order. The pinned
 * section is always last, so it runs to the end of the message.
 */
import type { ToolCallRequest, TurnEvent } from "./events.js";

/** The first line of the facts block cxc puts after a summary. */
export const FACTS_HEADING = "[Facts of these turns, from their raw events]";

/** The first line of the pinned messages after a summary. */
export const PINNED_HEADING = "[Pinned messages, kept verbatim]";

/** A pinned raw message and its 0-based turn. */
export interface PinnedMessage {
  readonly turn: number;
  readonly event: TurnEvent;
}

/** What follows a summary's text. */
export interface SummaryAddition {
  /** The facts block stored with the compaction. */
  readonly facts?: string;
  readonly pinned?: readonly PinnedMessage[];
  /** Tool requests by call id: a pinned result is labelled with the call it answers. */
  readonly requests?: ReadonlyMap<string, ToolCallRequest>;
}

/** The summary's message: its text, then its facts block, then its pinned messages. */
export function composeSummaryMessage(text: string, addition: SummaryAddition): string {
  const parts = [text];
  if (addition.facts !== undefined && addition.facts !== "") parts.push(addition.facts);
  const pinned = addition.pinned ?? [];
  if (pinned.length > 0) parts.push(renderPinnedMessages(pinned, addition.requests ?? new Map()));
  return parts.length === 1 ? text : parts.map((part) => part.replace(/\s+$/, "")).join("\n\n");
}

/** The pinned section (see the module comment). */
export function renderPinnedMessages(
  pinned: readonly PinnedMessage[],
  requests: ReadonlyMap<string, ToolCallRequest>,
): string {
  const lines = [PINNED_HEADING];
  for (const { turn, event } of pinned) {
    const rendered = renderMessage(event, requests);
    if (rendered === undefined) continue;
    lines.push(`turn ${turn + 1}, ${rendered.label}:`, fenced(rendered.text));
  }
  return lines.join("\n");
}

function renderMessage(
  event: TurnEvent,
  requests: ReadonlyMap<string, ToolCallRequest>,
): { label: string; text: string } | undefined {
  switch (event.type) {
    case "chat_request":
      return { label: "the user", text: event.content };
    case "chat_response":
      if (event.message !== undefined) return { label: "the assistant", text: event.message };
      if (event.data !== undefined)
        return { label: "the assistant (structured)", text: JSON.stringify(event.data) };
      return undefined;
    case "tool_call_request":
      return { label: `the assistant called ${event.name} with`, text: JSON.stringify(event.arguments) };
    case "tool_call_response": {
      const request = requests.get(event.call_id);
      const call = request === undefined ? "a tool call" : callLabel(request);
      return { label: `the ${event.is_error ? "error" : "result"} of ${call}`, text: event.content };
    }
    default:
      return undefined;
  }
}

/** `read_file {"path":"src/a.ts"}`: the tool and its arguments, cut to a line. */
function callLabel(request: ToolCallRequest): string {
  const args = JSON.stringify(request.arguments);
  const shown = args === "{}" ? "" : ` ${args.length > 160 ? `${args.slice(0, 159)}…` : args}`;
  return `${request.name}${shown}`;
}

/** The text in a fence longer than any backtick run inside it. */
function fenced(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}text\n${text.replace(/\n+$/, "")}\n${fence}`;
}

/**
 * The pinned section of a summary's message as it was composed: its heading and the fenced
 * messages after it, or undefined when it has none. Read entry by entry (`turn N, …:` and its
 * fence), so whatever an agent put after the message is left out: a closing frame tag
 * (`<summary>…</summary>`), a recall index, or the messages Codex keeps after it in its own
 * compaction's history.
 */
export function pinnedSectionOf(text: string): string | undefined {
  const at = text.indexOf(`\n${PINNED_HEADING}\n`);
  const start = at >= 0 ? at + 1 : text.startsWith(`${PINNED_HEADING}\n`) ? 0 : -1;
  if (start < 0) return undefined;
  const lines = text.slice(start).split("\n");
  let end = 1;
  while (end < lines.length && /^turn \d+, .*:$/.test(lines[end]!)) {
    const fence = /^(`{3,})text$/.exec(lines[end + 1] ?? "")?.[1];
    const close = fence === undefined ? -1 : lines.indexOf(fence, end + 2);
    if (close < 0) break;
    end = close + 1;
  }
  return lines.slice(0, end).join("\n");
}
