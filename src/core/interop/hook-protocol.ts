/**
 * What an agent hands a hook command, and what the hook hands back, for `cxc hook claude-code`
 * and `cxc hook codex` (both agents speak the same hook protocol). Pure.
 *
 * - The input is one JSON object on stdin: `hook_event_name`, `session_id`, `transcript_path`,
 *   `cwd`, and per event `source` (`SessionStart`: `startup`, `resume`, `clear`, `compact`),
 *   `trigger` and `compact_summary` (`PostCompact`), …; `parseHookInput` checks the fields cxc
 *   reads and keeps the rest.
 * - The transcript's last reported usage (`lastReportedUsage`) is read from its tail: the last
 *   assistant record of the main chain that carries `message.usage`, prompt plus answer. A
 *   compaction after it makes it stale: then the size is unknown, which the hook takes as below
 *   every line. Lines that are not whole JSON (the agent may be writing the last one) are skipped.
 * - The output: `{"systemMessage": …}` shows a line to the user; `{"hookSpecificOutput":
 *   {"hookEventName": "SessionStart", "additionalContext": …}}` adds context the model reads. Both
 *   are sanitized (no escape sequence, control or bidirectional override from a quoted prompt)
 *   and written without raw C1 bytes (`stringifyJson`).
 */
import { sanitizeTerminalText, stringifyJson } from "../present/sanitize.js";

/** The fields of a hook's input that cxc reads. */
export interface HookInput {
  readonly event: string;
  readonly sessionId: string;
  readonly transcriptPath: string;
  readonly cwd?: string;
  /** `SessionStart`: why the session (re)started. */
  readonly source?: string;
  /** `PostCompact`: the summary the agent wrote. */
  readonly compactSummary?: string;
}

/** Reads a hook's stdin, or says what is wrong with it. */
export function parseHookInput(text: string): { ok: true; input: HookInput } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: `the hook's input is not JSON (${text.length} characters)` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, error: "the hook's input is not a JSON object" };
  }
  const record = value as Record<string, unknown>;
  const field = (key: string): string | undefined =>
    typeof record[key] === "string" && record[key] !== "" ? (record[key] as string) : undefined;
  const event = field("hook_event_name");
  const sessionId = field("session_id");
  const transcriptPath = field("transcript_path");
  if (event === undefined) return { ok: false, error: "the hook's input has no hook_event_name" };
  if (sessionId === undefined) return { ok: false, error: `the ${event} input has no session_id` };
  if (transcriptPath === undefined) return { ok: false, error: `the ${event} input has no transcript_path` };
  const cwd = field("cwd");
  const source = field("source");
  const compactSummary = field("compact_summary");
  return {
    ok: true,
    input: {
      event,
      sessionId,
      transcriptPath,
      ...(cwd === undefined ? {} : { cwd }),
      ...(source === undefined ? {} : { source }),
      ...(compactSummary === undefined ? {} : { compactSummary }),
    },
  };
}

/** A session id as a file name: its letters, digits, `-` and `_`, nothing else. */
export function sessionFileName(sessionId: string): string {
  const safe = sessionId.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 120);
  return safe === "" ? "session" : safe;
}

/** The context the last request filled, as the provider reported it, and the model. */
export interface ReportedUsage {
  readonly tokens: number;
  readonly model?: string;
}

/**
 * The last reported usage in the tail of a Claude Code transcript, or undefined (none in the
 * tail, or a compaction after it); see the module comment.
 */
export function lastReportedUsage(tail: string): ReportedUsage | undefined {
  const lines = tail.split("\n");
  for (let index = lines.length - 1; index >= 0; index--) {
    const line = lines[index]!.trim();
    if (line === "") continue;
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (typeof record !== "object" || record === null) continue;
    if (record.type === "system" && record.subtype === "compact_boundary") return undefined;
    if (record.type !== "assistant" || record.isSidechain === true || record.isApiErrorMessage === true)
      continue;
    const message = record.message as Record<string, unknown> | undefined;
    const usage = message?.usage as Record<string, unknown> | undefined;
    if (usage === undefined || message?.model === "<synthetic>") continue;
    const count = (key: string): number => {
      const value = usage[key];
      return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
    };
    const tokens =
      count("input_tokens") +
      count("cache_creation_input_tokens") +
      count("cache_read_input_tokens") +
      count("output_tokens");
    if (tokens === 0) continue;
    return { tokens, ...(typeof message?.model === "string" ? { model: message.model } : {}) };
  }
  return undefined;
}

/**
 * The hook's output that shows `message` to the user: sanitized like every text from outside
 * (it quotes the user's own prompts), as JSON without a raw control byte.
 */
export function systemMessageOutput(message: string): string {
  return stringifyJson({ systemMessage: sanitizeTerminalText(message) });
}

/**
 * The hook's output that adds `context` for the model after a `SessionStart`: sanitized too (the
 * agent may show it), as JSON without a raw control byte.
 */
export function sessionContextOutput(context: string): string {
  return stringifyJson({
    hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: sanitizeTerminalText(context) },
  });
}
