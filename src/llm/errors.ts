/**
 * Classifies whatever an SDK or the network throws into an `LlmError`, once, at the edge.
 *
 * Both SDKs throw errors with the same shape (`status`, `headers`, a parsed `error` body), so
 * classification reads those fields instead of depending on either SDK's classes. Anthropic can
 * also fail mid-stream with an SSE `error` event, which the SDK throws without a status; its
 * `error.type` (`overloaded_error`, `rate_limit_error`, …) decides then.
 */
import { sanitizeLine } from "../core/present/sanitize.js";
import type { LlmError, LlmErrorKind, LlmStreamEvent } from "./types.js";

/** Phrases providers use when the prompt does not fit the model's context window. */
const CONTEXT_OVERFLOW_PATTERN =
  /prompt is too long|context[ _-]?length|context window|maximum context|too many tokens|context_length_exceeded|exceeds? the (?:model's )?(?:maximum )?context|input length and `?max_tokens`? exceed|input token count \(\d+\) exceeds the maximum number of tokens/i;

/** Phrases servers use when the model cannot take tools (Ollama, OpenAI-compatible servers). */
const TOOLS_UNSUPPORTED_PATTERN =
  /does not support tools|tools? (?:are|is) not supported|does not support (?:function|tool) calling|(?:function|tool) calling is not (?:enabled|supported)|tool use is not supported/i;

/** Messages of low-level failures that mean the connection broke, not that the request was bad. */
const NETWORK_PATTERN =
  /terminated|socket|ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|EAI_AGAIN|ENOTFOUND|network|fetch failed|premature close|other side closed/i;

const PROVIDER_ERROR_TYPES: Record<string, LlmErrorKind> = {
  overloaded_error: "overloaded",
  rate_limit_error: "rate-limit",
  authentication_error: "auth",
  permission_error: "auth",
  invalid_request_error: "invalid-request",
  request_too_large: "context-overflow",
  timeout_error: "timeout",
  api_error: "other",
};

const RETRYABLE_KINDS: ReadonlySet<LlmErrorKind> = new Set([
  "rate-limit",
  "overloaded",
  "network",
  "timeout",
]);

/** The error codes of a server that cannot be reached at all, by what they mean. */
const UNREACHABLE_CODES: Readonly<Record<string, NonNullable<LlmError["unreachable"]>>> = {
  ECONNREFUSED: "refused",
  ENOTFOUND: "unresolvable",
  EAI_AGAIN: "unresolvable",
  EAI_NONAME: "unresolvable",
  EHOSTUNREACH: "no-route",
  ENETUNREACH: "no-route",
};

const UNREACHABLE_WORDS: Readonly<Record<NonNullable<LlmError["unreachable"]>, string>> = {
  refused: "the connection was refused",
  unresolvable: "the host name does not resolve",
  "no-route": "there is no route to the host",
  "blocked-port": "fetch never connects to this port (one of the ports browsers block, such as 6000)",
};

interface ErrorFields {
  readonly name: string;
  readonly message: string;
  readonly status: number | undefined;
  readonly headers: unknown;
  readonly providerType: string | undefined;
  readonly providerCode: string | undefined;
}

/**
 * Classifies a thrown value. `signal` tells an abort we asked for from a broken connection;
 * `nowMs` resolves HTTP-date `retry-after` values.
 */
export function classifyLlmError(
  thrown: unknown,
  signal?: AbortSignal,
  nowMs: number = Date.now(),
): LlmError {
  const fields = readErrorFields(thrown);
  if (signal?.aborted || fields.name === "APIUserAbortError" || fields.name === "AbortError") {
    return abortedError();
  }
  // An SSE event whose data is not JSON: the SDK rethrows JSON.parse's error, whose message
  // quotes what the server sent. Say what happened instead, quoting nothing.
  if (fields.name === "SyntaxError" && fields.status === undefined) return malformedStreamError();
  const unreachable = fields.status === undefined ? unreachableCause(thrown) : undefined;
  if (unreachable !== undefined) {
    return {
      kind: "network",
      retryable: false,
      unreachable,
      message: `The connection to the provider failed: ${UNREACHABLE_WORDS[unreachable]}`,
    };
  }
  const kind = classifyKind(fields);
  const retryAfterMs = readRetryAfterMs(fields.headers, nowMs);
  const error: { -readonly [K in keyof LlmError]: LlmError[K] } = {
    kind,
    retryable: RETRYABLE_KINDS.has(kind) || (kind === "other" && isServerStatus(fields)),
    message: describe(kind, fields),
  };
  if (fields.status !== undefined) error.status = fields.status;
  if (retryAfterMs !== undefined) error.retryAfterMs = retryAfterMs;
  return error;
}

/**
 * Why the server could not be reached at all, from the error codes in the thrown value's causes
 * (fetch wraps the socket's error, `AggregateError` holds one per address tried), or undefined.
 * fetch refuses the ports browsers block before it connects: its cause then says `bad port`.
 */
function unreachableCause(thrown: unknown): LlmError["unreachable"] {
  const seen = new Set<unknown>();
  const queue: unknown[] = [thrown];
  while (queue.length > 0) {
    const value = queue.shift();
    if (typeof value !== "object" || value === null || seen.has(value)) continue;
    seen.add(value);
    const record = value as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
    if (typeof record.code === "string" && UNREACHABLE_CODES[record.code] !== undefined)
      return UNREACHABLE_CODES[record.code];
    if (record.message === "bad port") return "blocked-port";
    queue.push(record.cause);
    if (Array.isArray(record.errors)) queue.push(...record.errors);
  }
  return undefined;
}

/** Why a server could not be reached, in words: `the connection was refused`. */
export function describeUnreachable(unreachable: NonNullable<LlmError["unreachable"]>): string {
  return UNREACHABLE_WORDS[unreachable];
}

/** The `LlmError` of a request the caller aborted. */
export function abortedError(): LlmError {
  return { kind: "aborted", retryable: false, message: "The request was aborted." };
}

/** The error of a stream cut short: the caller aborted it, or it ended before the message finished. */
export function cutShortError(signal: AbortSignal | undefined): LlmError {
  return signal?.aborted ? abortedError() : incompleteStreamError();
}

/**
 * The terminal event of a stream whose chunks are all read: what `finished` makes of the reason
 * the provider gave for stopping, or the error of a stream cut short (the SDK ends the iteration
 * quietly when the signal aborts it).
 */
export function streamEnd(
  signal: AbortSignal | undefined,
  reason: string | undefined,
  finished: (reason: string) => LlmStreamEvent,
): LlmStreamEvent {
  if (signal?.aborted || reason === undefined) return { type: "error", error: cutShortError(signal) };
  return finished(reason);
}

/** An `LlmError` for a stream that ended without the provider saying it finished. */
export function incompleteStreamError(): LlmError {
  return {
    kind: "network",
    retryable: true,
    message: "The response stream ended before the message finished.",
  };
}

/** An `LlmError` for a stream event that is not valid JSON (not retried: the server is broken). */
export function malformedStreamError(): LlmError {
  return {
    kind: "other",
    retryable: false,
    message: "The provider sent a malformed event stream (an event whose data is not JSON).",
  };
}

function classifyKind(fields: ErrorFields): LlmErrorKind {
  if (fields.name === "APIConnectionTimeoutError") return "timeout";
  if (fields.name === "APIConnectionError") return "network";
  const status = fields.status;
  if (status === 401 || status === 403) return "auth";
  if (status === 429) return "rate-limit";
  if (status === 529 || status === 503) return "overloaded";
  if (status === 408 || status === 504) return "timeout";
  // Anthropic answers a request beyond its size limit with 413 `request_too_large`: the
  // conversation is too big to send, which compaction fixes like any other overflow.
  if (status === 413 || fields.providerType === "request_too_large") return "context-overflow";
  if (isContextOverflow(fields)) return "context-overflow";
  if (status !== undefined && status >= 400 && status < 500 && TOOLS_UNSUPPORTED_PATTERN.test(fields.message))
    return "tools-unsupported";
  if (status !== undefined && status >= 400 && status < 500) return "invalid-request";
  const byType = fields.providerType === undefined ? undefined : PROVIDER_ERROR_TYPES[fields.providerType];
  if (byType !== undefined) return byType;
  if (status === undefined && NETWORK_PATTERN.test(`${fields.name} ${fields.message}`)) return "network";
  return "other";
}

function isContextOverflow(fields: ErrorFields): boolean {
  if (fields.providerCode === "context_length_exceeded") return true;
  if (fields.status !== undefined && fields.status !== 400) return false;
  return CONTEXT_OVERFLOW_PATTERN.test(fields.message);
}

function isServerStatus(fields: ErrorFields): boolean {
  return fields.status !== undefined ? fields.status >= 500 : fields.providerType === "api_error";
}

/** The message: a fixed prefix and the provider's own words, made one terminal-safe line. */
function describe(kind: LlmErrorKind, fields: ErrorFields): string {
  // The detail is the provider's error body: text from outside, printed by every error path.
  const detail = fields.message.length > 0 ? sanitizeLine(fields.message) : "no details";
  const prefix: Record<LlmErrorKind, string> = {
    auth: "The provider rejected the API key",
    "rate-limit": "The provider is rate limiting requests",
    overloaded: "The provider is overloaded",
    "context-overflow": "The conversation does not fit the model's context window",
    "tools-unsupported": "The model does not take tools",
    network: "The connection to the provider failed",
    aborted: "The request was aborted",
    timeout: "The provider did not answer in time",
    "invalid-request": "The provider rejected the request",
    other: "The provider returned an error",
  };
  const tooLarge = fields.status === 413 || fields.providerType === "request_too_large";
  if (kind === "context-overflow" && tooLarge) return `The conversation is too large to send: ${detail}`;
  return `${prefix[kind]}: ${detail}`;
}

function readErrorFields(thrown: unknown): ErrorFields {
  const record = (typeof thrown === "object" && thrown !== null ? thrown : {}) as Record<string, unknown>;
  const body = asRecord(record.error);
  const inner = asRecord(body?.error) ?? body;
  const status = typeof record.status === "number" ? record.status : undefined;
  const causeMessage =
    thrown instanceof Error && thrown.cause instanceof Error ? ` (${thrown.cause.message})` : "";
  // The Anthropic SDK's message for an HTTP error is the whole body as JSON; the provider's own
  // sentence is clearer (and what the OpenAI SDK uses).
  const providerMessage = stringField(inner?.message);
  const message =
    providerMessage !== undefined
      ? `${status === undefined ? "" : `${status} `}${providerMessage}`
      : (thrown instanceof Error ? thrown.message : String(thrown)) + causeMessage;
  return {
    name: errorName(thrown),
    message,
    status,
    headers: record.headers,
    providerType: stringField(record.type) ?? stringField(inner?.type),
    providerCode: stringField(record.code) ?? stringField(inner?.code),
  };
}

/** Reads `retry-after-ms` (OpenAI) or `retry-after` (seconds or an HTTP date). */
function readRetryAfterMs(headers: unknown, nowMs: number): number | undefined {
  const milliseconds = Number.parseFloat(readHeader(headers, "retry-after-ms") ?? "");
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = readHeader(headers, "retry-after");
  if (value === undefined) return undefined;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

function readHeader(headers: unknown, name: string): string | undefined {
  if (headers === null || typeof headers !== "object") return undefined;
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Record<string, unknown>)[name];
  return typeof value === "string" ? value : undefined;
}

/**
 * The name of the SDK error class that carries no status, found by walking the prototype chain
 * (both SDKs use the same class names). No SDK is imported here, so classifying an error never
 * loads one; the SDKs stay unbundled, so their class names survive.
 */
const STATUSLESS_CLASSES = ["APIUserAbortError", "APIConnectionTimeoutError", "APIConnectionError"];

function errorName(thrown: unknown): string {
  const names = new Set<string>();
  let prototype = typeof thrown === "object" && thrown !== null ? Object.getPrototypeOf(thrown) : null;
  while (prototype !== null && prototype !== Object.prototype) {
    const name = (prototype as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof name === "string") names.add(name);
    prototype = Object.getPrototypeOf(prototype);
  }
  const found = STATUSLESS_CLASSES.find((name) => names.has(name));
  if (found !== undefined) return found;
  return thrown instanceof Error ? thrown.name : "";
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
}

function stringField(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}
