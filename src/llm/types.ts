/**
 * The provider-neutral streaming interface every adapter implements.
 *
 * Contract of `LlmClient.stream()`: once called, it never throws and never rejects. Every failure
 * (bad key, rate limit, a connection cut mid-stream, an abort) is encoded as an `error` event, and
 * every stream ends with exactly one terminal event: `message-end` or `error`. Nothing follows it.
 * Callers can therefore switch on `error.kind` instead of wrapping iteration in try/catch.
 *
 * SDK types never appear here; adapters translate them at the edge.
 */
import type { StreamEvent } from "../core/conversation/fold-stream.js";
import type { LlmRequest } from "../core/conversation/request.js";

export type {
  LlmMessage,
  LlmPart,
  LlmRequest,
  ToolChoice,
  ToolDefinition,
} from "../core/conversation/request.js";

/**
 * Token counts of one response. `inputTokens` counts input that was neither read from nor written
 * to the prompt cache, so the whole prompt is `inputTokens + cacheReadTokens + cacheWriteTokens`.
 */
export interface LlmUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Input tokens served from the prompt cache. */
  readonly cacheReadTokens: number;
  /** Input tokens written to the prompt cache by this request. */
  readonly cacheWriteTokens: number;
  /** Output tokens spent on reasoning, where the provider reports them. */
  readonly reasoningTokens?: number;
}

/** Why a message ended, mapped from each provider's own stop reasons. */
export type FinishReason = "stop" | "length" | "tool-calls" | "refusal" | "other";

/** How a request failed. Retry and compaction-on-overflow logic switch on this, never on text. */
export type LlmErrorKind =
  | "auth"
  | "rate-limit"
  | "overloaded"
  | "context-overflow"
  | "tools-unsupported"
  | "network"
  | "aborted"
  | "timeout"
  | "invalid-request"
  | "other";

/** A classified provider failure (see `src/llm/errors.ts`). */
export interface LlmError {
  readonly kind: LlmErrorKind;
  /** True when sending the same request again may succeed. */
  readonly retryable: boolean;
  /** HTTP status, when the failure came with one. */
  readonly status?: number;
  /** How long the provider asked us to wait before retrying (from `retry-after` headers). */
  readonly retryAfterMs?: number;
  /** One line for the user; never contains the API key. */
  readonly message: string;
  /**
   * The server could not be reached at all: the connection was refused, the host name does not
   * resolve, there is no route to it, or fetch refuses its port (one browsers block). Never retried: no retry fixes a wrong URL or a server
   * that is not running (registry.ts names the URL and where it came from).
   */
  readonly unreachable?: "refused" | "unresolvable" | "no-route" | "blocked-port";
  /** What to do about it, when the message alone does not say (the shell's hint). */
  readonly hint?: string;
}

/**
 * One event of a response stream.
 *
 * - `text-delta` / `reasoning-delta`: the next piece of assistant text or reasoning. Consecutive
 *   deltas of one kind belong to one block. A reasoning block's `signature` arrives on its last
 *   delta (possibly with empty text); it must be stored with the reasoning to replay it.
 * - `redacted-reasoning`: an opaque reasoning block to store and replay verbatim.
 * - `reasoning-item`: an OpenAI Responses reasoning item ended: its id and encrypted content, and
 *   the model id that wrote it (it closes the block its summary deltas opened). Stored so the
 *   next request gives the same model its reasoning back.
 * - `tool-call`: a complete tool call, its arguments parsed. `invalidArguments` holds the raw text
 *   when the model sent arguments that are not a JSON object (`arguments` is then `{}`).
 * - `thoughtSignature` (on text, reasoning and tool calls): Gemini's opaque signature of the part
 *   it came with, stored with it and given back to Gemini in the next request.
 * - `usage`: a cumulative snapshot of token counts; a later one supersedes an earlier one.
 * - `message-end`: the response finished. `providerReason` is the provider's own stop reason.
 * - `error`: the response failed (see the module contract).
 */
export type LlmStreamEvent = StreamEvent<LlmUsage, FinishReason, LlmError>;

/** Per-call options of `LlmClient.stream`. */
export interface StreamOptions {
  /** Aborting ends the stream with an `error` event of kind `aborted`. */
  readonly signal?: AbortSignal;
}

/** A model bound to a provider endpoint. */
export interface LlmClient {
  /** The full model id, `provider/model`. */
  readonly modelId: string;
  /** Streams one response. Never throws; see the module contract. */
  stream(request: LlmRequest, options?: StreamOptions): AsyncIterable<LlmStreamEvent>;
}

/** What every adapter's client is made with: the model, and the endpoint that serves it. */
export interface LlmClientSettings {
  /** Full model id, `<provider>/<model>` (or an alias's target). */
  readonly modelId: string;
  /** The provider's name for the model, e.g. `claude-sonnet-4-6`. */
  readonly model: string;
  /** Local servers need none; where the SDK still wants a value, a placeholder is sent. */
  readonly apiKey?: string;
  readonly baseURL?: string;
  /** Per-request timeout in milliseconds. */
  readonly timeoutMs?: number;
}

/** Usage with every count at zero, for streams that ended before the provider reported any. */
export const EMPTY_USAGE: LlmUsage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
};

/** True for the events that carry response content (what the retry wrapper must not repeat). */
export function isContentEvent(event: LlmStreamEvent): boolean {
  return (
    event.type === "text-delta" ||
    event.type === "reasoning-delta" ||
    event.type === "redacted-reasoning" ||
    event.type === "reasoning-item" ||
    event.type === "tool-call"
  );
}
