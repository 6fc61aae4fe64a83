/**
 * How a tool call and its result are shown on stderr: the call once, as one line
 * (`⚙ word_count {"text":"a b"}`), before any approval prompt; the result as one line, except an
 * error, which is shown whole (line by line, up to `MAX_ERROR_LINES`) because it is what the
 * model will act on. Everything is sanitized: the model and the tools wrote it.
 */
import type { ToolCallResponse } from "../../core/conversation/events.js";
import { sanitizeTerminalText } from "../../core/present/sanitize.js";
import type { ToolCallEnd } from "../../query/turn-loop.js";

/** The most characters of a call's arguments or a result shown on one line. */
export const MAX_TOOL_LINE = 160;
/** The most lines of an error result shown. */
const MAX_ERROR_LINES = 20;

/** The call's one line; `cut` when its arguments did not fit (the prompt then shows them whole). */
export function toolCallLine(call: {
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}): { line: string; cut: boolean } {
  const json = oneLine(JSON.stringify(call.arguments));
  const cut = json.length > MAX_TOOL_LINE;
  const shown = cut ? `${json.slice(0, MAX_TOOL_LINE - 1)}…` : json;
  return { line: `⚙ ${sanitizeTerminalText(call.name)} ${shown}`, cut };
}

/**
 * The result's lines, e.g. `  ↳ ok: 2`, `  ↳ declined (the model is told)`. `account`: the tool's
 * own one-line account of a successful result, in place of the start of its text.
 */
export function toolResultLines(response: ToolCallResponse, end: ToolCallEnd, account?: string): string[] {
  if (end === "declined") return ["  ↳ declined (the model is told it did not run)"];
  if (!response.is_error) {
    const label = end === "ran" ? "ok" : "not run";
    return [`  ↳ ${label}: ${cutLine(oneLine(account ?? response.content)) || "(no output)"}`];
  }
  const lines = sanitizeTerminalText(response.content)
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => line.length > 0);
  const label = end === "ran" ? "error" : "not run";
  if (lines.length <= 1) return [`  ↳ ${label}: ${lines[0] ?? "(no output)"}`];
  const shown = lines.slice(0, MAX_ERROR_LINES).map((line) => `    ${line}`);
  if (lines.length > MAX_ERROR_LINES) {
    const more = lines.length - MAX_ERROR_LINES;
    shown.push(`    … ${more} more ${more === 1 ? "line" : "lines"} (the model sees them all)`);
  }
  return [`  ↳ ${label}:`, ...shown];
}

function oneLine(text: string): string {
  return sanitizeTerminalText(text).replace(/\s+/g, " ").trim();
}

function cutLine(text: string): string {
  return text.length > MAX_TOOL_LINE ? `${text.slice(0, MAX_TOOL_LINE - 1)}…` : text;
}
