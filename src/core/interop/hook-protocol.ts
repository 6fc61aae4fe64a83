/**
 * What an agent hands a hook command, and what the hook hands back, for `cxc hook claude-code`,
 * `cxc hook codex` (both speak Claude Code's hook protocol) and `cxc hook gemini` (Gemini CLI's,
 * the same input fields; its own events and outputs). Pure.
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
  /**
   * Gemini CLI's `BeforeModel`: the request about to go out, in its hook format (`messages`: the
   * text of each content, `{role, content}`), which the hook may hand back changed.
   */
  readonly llmRequest?: Readonly<Record<string, unknown>>;
  /**
   * cxc's opencode plugin: the context of the session's last request as opencode's provider
   * reported it (input, cache and output tokens), and its model (`provider/model`).
   */
  readonly contextTokens?: number;
  readonly model?: string;
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
  const model = field("model");
  const contextTokens =
    typeof record.context_tokens === "number" &&
    Number.isFinite(record.context_tokens) &&
    record.context_tokens >= 0
      ? record.context_tokens
      : undefined;
  const llmRequest =
    typeof record.llm_request === "object" &&
    record.llm_request !== null &&
    !Array.isArray(record.llm_request)
      ? (record.llm_request as Record<string, unknown>)
      : undefined;
  return {
    ok: true,
    input: {
      event,
      sessionId,
      transcriptPath,
      ...(cwd === undefined ? {} : { cwd }),
      ...(source === undefined ? {} : { source }),
      ...(compactSummary === undefined ? {} : { compactSummary }),
      ...(llmRequest === undefined ? {} : { llmRequest }),
      ...(contextTokens === undefined ? {} : { contextTokens }),
      ...(model === undefined ? {} : { model }),
    },
  };
}

/** A session id as a file name: its letters, digits, `-` and `_`, nothing else. */
export function sessionFileName(sessionId: string): string {
  const safe = sessionId.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 120);
  return safe === "" ? "session" : safe;
}

/** The JSON object records of a transcript's tail, last first, each with its trimmed line. */
function* recordsFromEnd(tail: string): Generator<{ line: string; record: Record<string, unknown> }> {
  const lines = tail.split("\n");
  for (let index = lines.length - 1; index >= 0; index--) {
    const line = lines[index]!.trim();
    if (line === "") continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof record === "object" && record !== null)
      yield { line, record: record as Record<string, unknown> };
  }
}

/** The sum of the positive finite numbers under `keys` (anything else counts 0). */
function sumCounts(counts: Readonly<Record<string, unknown>>, keys: readonly string[]): number {
  let sum = 0;
  for (const key of keys) {
    const value = counts[key];
    if (typeof value === "number" && Number.isFinite(value) && value > 0) sum += value;
  }
  return sum;
}

/** The context the last request filled, as the provider reported it, the model and its window. */
export interface ReportedUsage {
  readonly tokens: number;
  readonly model?: string;
  /** The model's window as the agent records it (Codex's `model_context_window`). */
  readonly window?: number;
}

/**
 * The last reported usage in the tail of a Codex rollout (its `token_usage_record`, or the
 * `last_token_usage` of a `token_count` event in older rollouts: input, cached input included,
 * plus output), or undefined (none in the tail, or a compaction after it). The model is the last
 * `turn_context`'s, the window its `token_count`'s.
 */
export function lastCodexUsage(tail: string): ReportedUsage | undefined {
  let tokens: number | undefined;
  let window: number | undefined;
  for (const { record } of recordsFromEnd(tail)) {
    const payload = (record.payload ?? {}) as Record<string, unknown>;
    if (record.type === "compacted" && tokens === undefined) return undefined;
    if (tokens === undefined && record.type === "token_usage_record") tokens = codexTokens(payload.usage);
    if (record.type === "event_msg" && payload.type === "token_count") {
      const info = (payload.info ?? {}) as Record<string, unknown>;
      if (window === undefined && typeof info.model_context_window === "number")
        window = info.model_context_window;
      tokens ??= codexTokens(info.last_token_usage);
    }
    if (tokens !== undefined && record.type === "turn_context") {
      const model = typeof payload.model === "string" ? payload.model : undefined;
      return {
        tokens,
        ...(model === undefined ? {} : { model }),
        ...(window === undefined ? {} : { window }),
      };
    }
  }
  return tokens === undefined ? undefined : { tokens, ...(window === undefined ? {} : { window }) };
}

/** Input (cached input included, as Codex counts it) plus output; undefined for none. */
function codexTokens(usage: unknown): number | undefined {
  if (typeof usage !== "object" || usage === null) return undefined;
  const tokens = sumCounts(usage as Record<string, unknown>, ["input_tokens", "output_tokens"]);
  return tokens > 0 ? tokens : undefined;
}

/**
 * The last reported usage in the tail of a Claude Code transcript, or undefined (none in the
 * tail, or a compaction after it); see the module comment.
 */
export function lastReportedUsage(tail: string): ReportedUsage | undefined {
  for (const { record } of recordsFromEnd(tail)) {
    if (record.type === "system" && record.subtype === "compact_boundary") return undefined;
    if (record.type !== "assistant" || record.isSidechain === true || record.isApiErrorMessage === true)
      continue;
    const message = record.message as Record<string, unknown> | undefined;
    const usage = message?.usage as Record<string, unknown> | undefined;
    if (usage === undefined || message?.model === "<synthetic>") continue;
    const tokens = sumCounts(usage, [
      "input_tokens",
      "cache_creation_input_tokens",
      "cache_read_input_tokens",
      "output_tokens",
    ]);
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
  return contextOutput("SessionStart", context);
}

/** The same output for another event (cxc's opencode plugin reads it), sanitized alike. */
export function contextOutput(event: string, context: string): string {
  return stringifyJson({
    hookSpecificOutput: { hookEventName: event, additionalContext: sanitizeTerminalText(context) },
  });
}

/**
 * The last reported usage in the tail of a Gemini CLI session file: the last `gemini` message
 * carrying `tokens` (its `input` counts the cached tokens; the context is `input` plus `output`
 * and `thoughts`), and its model. A compression after it (Gemini's summary acknowledged in a
 * `$set.messages`) makes it stale: undefined then.
 */
export function lastGeminiUsage(tail: string): ReportedUsage | undefined {
  for (const { line, record } of recordsFromEnd(tail)) {
    if (isGeminiCompression(line)) return undefined;
    if (record.type !== "gemini") continue;
    const tokens = record.tokens as Record<string, unknown> | undefined;
    if (typeof tokens !== "object" || tokens === null) continue;
    const total = sumCounts(tokens, ["input", "output", "thoughts"]);
    if (total === 0) continue;
    return { tokens: total, ...(typeof record.model === "string" ? { model: record.model } : {}) };
  }
  return undefined;
}

/** Gemini CLI's acknowledgement after its compression summary (see interop/gemini.ts). */
const GEMINI_ACK = "Got it. Thanks for the additional context!";

/** Whether a session line is a `$set.messages` holding Gemini's compression (its acknowledgement). */
export function isGeminiCompression(line: string): boolean {
  return line.startsWith('{"$set":{') && line.includes('"messages"') && line.includes(GEMINI_ACK);
}

type HookMessage = { readonly role: unknown; readonly content: unknown };

/** The messages of a `BeforeModel` request (`llm_request.messages`), the objects only. */
function requestMessages(request: Readonly<Record<string, unknown>>): HookMessage[] {
  return Array.isArray(request.messages)
    ? request.messages.filter(
        (message): message is HookMessage => typeof message === "object" && message !== null,
      )
    : [];
}

/**
 * Gemini CLI's compression at the head of a `BeforeModel` request: the summary (the user message
 * before Gemini's acknowledgement; its `<state_snapshot>`, or cxc's framed summary in a session
 * cxc exported) and its position. Undefined for a request whose history was not compressed.
 */
export function geminiRequestSummary(
  request: Readonly<Record<string, unknown>>,
): { readonly index: number; readonly text: string } | undefined {
  const messages = requestMessages(request);
  const ack = messages.findIndex(
    (message, index) =>
      index > 0 &&
      message.role === "model" &&
      typeof message.content === "string" &&
      message.content.trim() === GEMINI_ACK &&
      messages[index - 1]!.role === "user",
  );
  if (ack < 0) return undefined;
  const summary = messages[ack - 1]!.content;
  return typeof summary === "string" ? { index: ack - 1, text: summary } : undefined;
}

/**
 * The summaries of the compressions Gemini CLI recorded in a session file (each a `$set.messages`
 * rewrite holding its acknowledgement): the text of the user message before it, its parts joined
 * as Gemini hands them to hooks. A summary a resumed export opens with is not among them.
 */
export function geminiCompressionSummaries(text: string): Set<string> {
  const summaries = new Set<string>();
  for (const line of text.split("\n")) {
    if (!isGeminiCompression(line)) continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      continue;
    }
    const messages = (record as { $set?: { messages?: unknown } }).$set?.messages;
    if (!Array.isArray(messages)) continue;
    messages.forEach((message: unknown, index) => {
      if (
        index === 0 ||
        !isMessageOf(message, "gemini") ||
        contentText(message.content).trim() !== GEMINI_ACK
      )
        return;
      const before: unknown = messages[index - 1];
      if (isMessageOf(before, "user")) summaries.add(contentText(before.content));
    });
  }
  return summaries;
}

function isMessageOf(value: unknown, type: string): value is { type: string; content?: unknown } {
  return typeof value === "object" && value !== null && (value as { type?: unknown }).type === type;
}

/** A recorded message's text: a string, or its parts' texts (not thoughts) joined. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: unknown) =>
      typeof part === "object" &&
      part !== null &&
      typeof (part as { text?: unknown }).text === "string" &&
      (part as { thought?: unknown }).thought !== true
        ? (part as { text: string }).text
        : "",
    )
    .join("");
}

/**
 * Gemini CLI's `BeforeModel` output that adds `context` after the summary at `index` (see
 * `geminiRequestSummary`), for this request only. Only the messages up to the summary are handed
 * back: Gemini replaces the text of as many contents as messages come back, in order, and keeps
 * every content after them as it was, so the conversation after the summary goes out untouched.
 */
export function beforeModelContextOutput(
  request: Readonly<Record<string, unknown>>,
  index: number,
  context: string,
): string {
  const messages = requestMessages(request).slice(0, index + 1);
  const edited = messages.map((message, position) =>
    position === index
      ? { ...message, content: `${String(message.content)}\n\n${sanitizeTerminalText(context)}` }
      : message,
  );
  return stringifyJson({
    hookSpecificOutput: { hookEventName: "BeforeModel", llm_request: { messages: edited } },
  });
}
