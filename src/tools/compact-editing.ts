/**
 * The compact tool's arguments as TOML for `e` at the approval prompt: one `[[rules]]` table per
 * rule, and the summary as a multi-line literal string, so the user edits the text as text
 * (JSON would show it on one line with `\n` escapes).
 */
import { parse } from "smol-toml";
import type { ArgumentsEditing } from "./tool.js";

/**
 * What the file says before the rules: what happens on save (the plan is shown again and asked
 * about; an empty file changes nothing) and every field, as the tool's schema has it.
 */
const HEADER = [
  "# The assistant's proposed compaction, as TOML. Change it, save and close: cxc shows the",
  "# plan again and asks before anything is recorded. Saving an empty file keeps the proposal.",
  "# One [[rules]] table per rule, applied in order:",
  "#   keep_first = N, keep_last = N   turns left untouched at the start and the end",
  "#   after_quote, before_quote       verbatim text of a turn: the range starts after it / ends before it",
  '#   reasoning = "strip"             drop the reasoning in the range',
  '#   tool_calls = "strip" | "strip-requests" | "strip-responses" | "omit"',
  "#   summary                         replace the range with this text",
  "#   note                            why, in one sentence (required, at most 200 characters)",
  "",
].join("\n");

export const compactArgumentsEditing: ArgumentsEditing = {
  fileName: "compact-rules.toml",
  render(argumentsObject) {
    const rules = Array.isArray(argumentsObject.rules) ? argumentsObject.rules : [];
    const tables = rules.map((rule) => renderTable(rule));
    const rest = Object.entries(argumentsObject).filter(([key]) => key !== "rules");
    const top = rest.map(([key, value]) => `${key} = ${renderValue(value)}`);
    return `${HEADER}${[...top, ...tables].join("\n\n")}\n`;
  },
  parse(text) {
    try {
      return { ok: true, value: parse(text) as Record<string, unknown> };
    } catch (error) {
      return { ok: false, error: `not valid TOML: ${(error as Error).message.split("\n")[0]}` };
    }
  },
};

function renderTable(rule: unknown): string {
  const lines = ["[[rules]]"];
  if (typeof rule === "object" && rule !== null) {
    for (const [key, value] of Object.entries(rule)) {
      if (value !== undefined && value !== null) lines.push(`${key} = ${renderValue(value)}`);
    }
  }
  return lines.join("\n");
}

/**
 * A TOML value. Text with line breaks becomes a multi-line literal string (no escapes to read),
 * unless it holds `'''` or a character a literal string cannot; everything else is JSON, whose
 * strings, numbers, booleans and arrays of them TOML reads the same way.
 */
function renderValue(value: unknown): string {
  if (
    typeof value === "string" &&
    value.includes("\n") &&
    !value.includes("'''") &&
    !/[\u0000-\u0008\u000b-\u001f\u007f]/.test(value)
  ) {
    return `'''\n${value}'''`;
  }
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
    return JSON.stringify(value);
  return JSON.stringify(value);
}
