/**
 * The advisor's word inside an agent whose compaction only the user can start (Claude Code's
 * `/compact`): the tier line, and the focus instructions cxc suggests typing after `/compact`
 * (what to keep, and where the live work starts, quoted from the user's request). Pure.
 */
import { layoutCycles } from "../../../core/conversation/cycles.js";
import { type ConversationEvent, isTurnEvent } from "../../../core/conversation/events.js";
import type { RangeFacts } from "../summary/range-facts.js";
import type { LiveFromPick } from "./advisor.js";

/** The most characters the suggested `/compact` line may have. */
export const FOCUS_CHARACTERS = 600;
/** The most characters of the user's request quoted as where the live work starts. */
const QUOTE_CHARACTERS = 120;

/** The user's request, flattened and cut to a quotable length. */
export function quoteRequest(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= QUOTE_CHARACTERS ? flat : `${flat.slice(0, QUOTE_CHARACTERS - 1)}…`;
}

/**
 * Where the live work starts: the user's request that opens it, or, inside a long turn, a tool call
 * (its number among the turn's calls, and the call as `name {arguments}`).
 */
export type LiveFrom = { readonly request: string } | { readonly call: number; readonly text: string };

/**
 * Where the live work starts for a cut-point pick: the request that opens the picked turn, or,
 * inside a turn, the first call of the picked cycle (numbered among the turn's calls).
 */
export function liveFromPick(
  events: readonly ConversationEvent[],
  pick: Pick<LiveFromPick, "turn" | "cycle">,
): LiveFrom | undefined {
  const layout = layoutCycles(events);
  let calls = 0;
  let request: string | undefined;
  for (const [position, event] of events.entries()) {
    if (layout.turnIndices[position] !== pick.turn || !isTurnEvent(event)) continue;
    if (event.type === "chat_request" && request === undefined) request = event.content;
    if (event.type !== "tool_call_request") continue;
    calls += 1;
    if (pick.cycle !== undefined && layout.cycles[position] === pick.cycle)
      return { call: calls, text: `${event.name} ${JSON.stringify(event.arguments)}` };
  }
  return request === undefined ? undefined : { request };
}

/** `the request "…"` or `call 14 (Bash {"command":"npm test"})`, for a sentence. */
export function describeLiveFrom(from: LiveFrom): string {
  return "request" in from
    ? `the request "${quoteRequest(from.request)}"`
    : `call ${from.call} (${quoteRequest(from.text)})`;
}

/**
 * `/compact Keep the user's instructions verbatim: "…"; keep the list of files modified: a, b.
 * The live work starts at the request "…": keep it and everything after it in full.` (inside a
 * turn: `The live work starts at call 14 (Bash {"command":"npm test"}): …`). Within
 * `maxCharacters`: files go first (oldest first), then sentences (newest first), as in
 * `renderRangeFacts`. Undefined when there is nothing to say.
 */
export function compactFocus(
  facts: Pick<RangeFacts, "filesModified" | "bindingSentences">,
  liveFrom: LiveFrom | string | undefined,
  maxCharacters = FOCUS_CHARACTERS,
): string | undefined {
  const sentences = facts.bindingSentences.map((sentence) => sentence.text.replace(/\s+/g, " ").trim());
  const files = [...facts.filesModified];
  const from = typeof liveFrom === "string" ? { request: liveFrom } : liveFrom;
  const live =
    from === undefined
      ? undefined
      : `The live work starts at ${describeLiveFrom(from)}: keep it and everything after it in full.`;
  const compose = (): string | undefined => {
    const keep: string[] = [];
    if (sentences.length > 0)
      keep.push(`the user's instructions verbatim: ${sentences.map((text) => `"${text}"`).join(" ")}`);
    if (files.length > 0) keep.push(`the list of files modified: ${files.join(", ")}`);
    const parts = [keep.length > 0 ? `Keep ${keep.join("; keep ")}.` : undefined, live].filter(
      (part): part is string => part !== undefined,
    );
    return parts.length === 0 ? undefined : `/compact ${parts.join(" ")}`;
  };
  for (;;) {
    const line = compose();
    if (line === undefined || line.length <= maxCharacters) return line;
    if (files.length > 0) files.shift();
    else if (sentences.length > 0) sentences.pop();
    else return line.slice(0, maxCharacters);
  }
}

/**
 * The message shown to the user: the advisor's lines (`renderAdvice`: the tier, the live count,
 * the reason), then the `/compact` line to type, then any notes (a failure told once, `token
 * lines only`).
 */
export function renderHookAdvice(
  advice: readonly string[],
  focus: string | undefined,
  notes: readonly string[] = [],
): string {
  const lines = advice.map((line) => `cxc ${line}`);
  if (focus !== undefined) lines.push(`To compact, type: ${focus}`);
  lines.push(...notes);
  return lines.join("\n");
}
