/**
 * Renders conversations as transcripts for `cxc conversation print`.
 *
 * The renderer works on a list of `TranscriptTurn`s (a header plus the events to show), so the raw
 * view (one entry per stored turn, built by `buildRawTranscript`) and a projected view (one entry
 * per projected turn, e.g. `turns 2–5 (summary)`) share it. Everything that came from outside cxc
 * (messages, reasoning, tool names, arguments and output) is sanitized; headers are chrome.
 */
import { type ConversationEvent, serializeEvent, type ToolCallsPolicy } from "../../core/events.js";
import { describeCompaction, describePolicies } from "../../core/labels.js";
import { sanitizeTerminalText } from "../../core/sanitize.js";
import { assignTurnIndices, countTurns } from "../../core/turns.js";
import { formatTimestamp } from "./relative-time.js";
import type { ResolvedTurns } from "./turn-selection.js";

/** One block of a transcript. */
export interface TranscriptTurn {
  /** Chrome above the block, e.g. `turn 3` or `turns 2–5 (summary)`. Trusted text. */
  readonly header: string;
  /** The 1-based raw turn numbers the block covers (one for a raw turn). */
  readonly turnNumbers: readonly number[];
  /** Events in stream order, global entries (config, compactions) included where they fell. */
  readonly events: readonly ConversationEvent[];
}

/** The raw view of the selected turns: one block per stored turn, numbered from 1. */
export function buildRawTranscript(
  events: readonly ConversationEvent[],
  selection: ResolvedTurns,
): TranscriptTurn[] {
  const turnCount = countTurns(events);
  const indices = assignTurnIndices(events);
  const byTurn: ConversationEvent[][] = Array.from({ length: turnCount }, () => []);
  events.forEach((event, position) => {
    byTurn[indices[position]!]?.push(event);
  });
  const turns: TranscriptTurn[] = [];
  for (let index = selection.start; index < selection.end && index < turnCount; index++) {
    const turnEvents = byTurn[index]!;
    const first = turnEvents.find((event) => event.type !== "unknown");
    const when = first && "ts" in first ? ` · ${formatTimestamp(first.ts)}` : "";
    turns.push({ header: `turn ${index + 1}${when}`, turnNumbers: [index + 1], events: turnEvents });
  }
  return turns;
}

/** The whole transcript as text, one block per turn, separated by blank lines. */
export function renderTranscriptText(turns: readonly TranscriptTurn[]): string {
  const toolNames = new Map<string, string>();
  for (const turn of turns)
    for (const event of turn.events)
      if (event.type === "tool_call_request") toolNames.set(event.call_id, event.name);
  const blocks = turns.map((turn) => {
    const lines = [`── ${turn.header} ──`];
    for (const event of turn.events) lines.push(...renderEventLines(event, toolNames));
    return lines.join("\n");
  });
  return blocks.length === 0 ? "" : `${blocks.join("\n\n")}\n`;
}

/** The transcript as JSON-ready objects: stored event shapes, unchanged. */
export function transcriptToJson(turns: readonly TranscriptTurn[]): Record<string, unknown>[] {
  return turns.map((turn) => ({
    header: turn.header,
    turns: [...turn.turnNumbers],
    events: turn.events.map(serializeEvent),
  }));
}

function clean(text: string): string {
  return sanitizeTerminalText(text).replace(/\n+$/, "");
}

function renderEventLines(event: ConversationEvent, toolNames: ReadonlyMap<string, string>): string[] {
  switch (event.type) {
    case "turn_start":
      return [];
    case "chat_request":
      return [`[user${event.author ? `: ${clean(event.author)}` : ""}]`, clean(event.content)];
    case "chat_response": {
      const suffix = event.interrupted ? ", interrupted" : "";
      if (event.message !== undefined) return [`[assistant${suffix}]`, clean(event.message)];
      if (event.reasoning !== undefined) return [`[reasoning${suffix}]`, clean(event.reasoning)];
      return [`[structured${suffix}]`, clean(JSON.stringify(event.data, null, 2))];
    }
    case "tool_call_request":
      return [`[tool call] ${clean(event.name)} ${clean(JSON.stringify(event.arguments))}`];
    case "tool_call_response": {
      const name = toolNames.get(event.call_id) ?? event.call_id;
      return [`[tool result] ${clean(name)} ${event.is_error ? "error" : "ok"}`, clean(event.content)];
    }
    case "inquiry_request":
      return [`[inquiry] ${clean(JSON.stringify(event.question))}`];
    case "inquiry_response":
      return [`[inquiry answer] ${clean(JSON.stringify(event.answer))}`];
    case "config_delta":
      return [`[config] ${clean(JSON.stringify(event.delta))}`];
    case "compaction": {
      const facts: string[] = [event.source];
      if (event.deferred_until_turn !== undefined)
        facts.push(`deferred until turn ${event.deferred_until_turn + 1}`);
      const note = event.note ? ` — ${clean(event.note)}` : "";
      return [`[compaction] ${describeCompaction(event)} [${facts.join(", ")}]${note}`];
    }
    case "compaction_reset":
      return [
        `[compaction reset] retires ${event.retires.length} entr${event.retires.length === 1 ? "y" : "ies"}`,
      ];
    case "unknown":
      return [`[${clean(String(event.raw.type))}] (an event kind this cxc does not know)`];
  }
}

/** `summary`, or jp's label of the mechanical policies (`reasoning + tools`), or `no policy`. */
export function describePolicy(compaction: {
  readonly summary?: unknown;
  readonly reasoning?: "strip" | undefined;
  readonly tool_calls?: ToolCallsPolicy | undefined;
}): string {
  if (compaction.summary !== undefined) return "summary";
  return describePolicies(compaction) ?? "no policy";
}
