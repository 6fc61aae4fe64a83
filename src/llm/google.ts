/**
 * The Google adapter (streaming), on the official @google/genai SDK: Gemini models (`google/*`)
 * through the Gemini API's `streamGenerateContent` (server-sent events).
 *
 * `toGeminiRequest` is pure (google-request.ts); this module does the HTTP and maps the stream.
 * Each chunk is a whole `GenerateContentResponse`: its first candidate's parts are text, thoughts
 * (`thought: true`, reasoning) and function calls (each complete; parallel calls are parts of one
 * reply), and a thought signature on a part stays with what it came on. Usage is reported on
 * chunks as it grows; the chunk with a `finishReason` ends the message (the stream may still send
 * a last usage report after it). A stream that ends without a finish reason was cut.
 *
 * The SDK is built with the key and base URL cxc resolved (never from its own reading of the
 * environment), Gemini's backend (not Vertex, whatever `GOOGLE_GENAI_USE_VERTEXAI` says), and no
 * retries of its own (cxc retries, retry.ts). Its errors carry the HTTP status and the body as
 * JSON text; `googleErrorFields` turns them into the fields the classifier reads.
 */
import type { GenerateContentResponse, GoogleGenAI } from "@google/genai";
import { sanitizeLine } from "../core/present/sanitize.js";
import { abortedError, classifyLlmError, incompleteStreamError, streamEnd } from "./errors.js";
import { type GeminiRequestBody, mapGeminiFinishReason, toGeminiRequest } from "./google-request.js";
import { withSdkConsole } from "./sdk-options.js";
import {
  EMPTY_USAGE,
  type LlmClient,
  type LlmError,
  type LlmStreamEvent,
  type LlmUsage,
  type StreamOptions,
  type LlmClientSettings,
} from "./types.js";

export {
  GEMINI_PLACEHOLDER_SIGNATURE,
  type GeminiRequestBody,
  type GeminiRequestOptions,
  mapGeminiFinishReason,
  toGeminiRequest,
} from "./google-request.js";

/** Settings of a Google client. The key is passed in, never read from the environment here. */
export interface GoogleClientSettings extends LlmClientSettings {
  readonly apiKey: string;
  readonly maxOutputTokens?: number;
  /** A thinking model: its thoughts are asked for and streamed as reasoning. */
  readonly reasoning?: boolean;
}

/** Creates an `LlmClient` talking to the Gemini API. The SDK's own retries are off. */
export function createGoogleClient(settings: GoogleClientSettings): LlmClient {
  // The SDK is imported on the first request (see createAnthropicClient).
  let client: Promise<GoogleGenAI> | undefined;
  const sdk = (): Promise<GoogleGenAI> =>
    (client ??= import("@google/genai").then(({ GoogleGenAI: Sdk }) =>
      // The constructor reads the environment for keys it is not given and warns when both of
      // Google's variables are set; cxc gives the key, so that warning would be wrong.
      withSdkConsole(
        () =>
          new Sdk({
            apiKey: settings.apiKey,
            vertexai: false,
            httpOptions: {
              ...(settings.baseURL === undefined ? {} : { baseUrl: settings.baseURL }),
              ...(settings.timeoutMs === undefined ? {} : { timeout: settings.timeoutMs }),
            },
          }),
        { drop: /GOOGLE_API_KEY and GEMINI_API_KEY/ },
      ),
    ));
  return {
    modelId: settings.modelId,
    stream: (request, options) =>
      streamGoogle(
        sdk,
        settings.model,
        toGeminiRequest(request, {
          reasoning: settings.reasoning ?? false,
          ...(settings.maxOutputTokens === undefined ? {} : { maxOutputTokens: settings.maxOutputTokens }),
        }),
        options,
      ),
  };
}

interface StreamState {
  usage: LlmUsage;
  finishReason: string | undefined;
  sawToolCall: boolean;
  /**
   * Gemini sends calls without ids: each gets `<name>_<response id>_<n>`, unique in the
   * conversation (a random tag stands in for a response without an id).
   */
  calls: number;
  tag: string | undefined;
}

async function* streamGoogle(
  sdk: () => Promise<GoogleGenAI>,
  model: string,
  body: GeminiRequestBody,
  options: StreamOptions = {},
): AsyncGenerator<LlmStreamEvent> {
  const state: StreamState = {
    usage: EMPTY_USAGE,
    finishReason: undefined,
    sawToolCall: false,
    calls: 0,
    tag: undefined,
  };
  try {
    const client = await sdk();
    const { generationConfig, ...rest } = body;
    const stream = await client.models.generateContentStream({
      model,
      contents: rest.contents,
      config: {
        ...(rest.systemInstruction === undefined ? {} : { systemInstruction: rest.systemInstruction }),
        ...(rest.tools === undefined ? {} : { tools: rest.tools }),
        ...(rest.toolConfig === undefined ? {} : { toolConfig: rest.toolConfig }),
        ...generationConfig,
        ...(options.signal ? { abortSignal: options.signal } : {}),
      },
    });
    for await (const chunk of stream) yield* mapChunk(chunk, state);
    yield streamEnd(options.signal, state.finishReason, (reason) => ({
      type: "message-end",
      finishReason: mapGeminiFinishReason(reason, state.sawToolCall),
      providerReason: reason,
      usage: state.usage,
    }));
  } catch (thrown) {
    yield { type: "error", error: classifyGoogleError(thrown, options.signal) };
  }
}

/** The events of one chunk: its first candidate's parts, then its usage. */
function mapChunk(chunk: GenerateContentResponse, state: StreamState): LlmStreamEvent[] {
  const events: LlmStreamEvent[] = [];
  const candidate = chunk.candidates?.[0];
  for (const part of candidate?.content?.parts ?? []) {
    const signature = part.thoughtSignature === undefined ? {} : { thoughtSignature: part.thoughtSignature };
    if (part.functionCall !== undefined) {
      const call = part.functionCall;
      const name = call.name ?? "";
      state.sawToolCall = true;
      state.calls += 1;
      // The global Web Crypto, reached only here: node:crypto is not loaded with every provider.
      state.tag ??= chunk.responseId ?? globalThis.crypto.randomUUID().slice(0, 8);
      const args = call.args;
      const valid = typeof args === "object" && args !== null && !Array.isArray(args);
      events.push({
        type: "tool-call",
        id: call.id ?? `${name}_${state.tag}_${state.calls}`,
        name,
        arguments: valid ? { ...args } : {},
        ...(valid || args === undefined ? {} : { invalidArguments: JSON.stringify(args) }),
        ...signature,
      });
    } else if (typeof part.text === "string") {
      if (part.text.length === 0 && part.thoughtSignature === undefined) continue;
      events.push({ type: part.thought ? "reasoning-delta" : "text-delta", text: part.text, ...signature });
    }
  }
  if (chunk.usageMetadata !== undefined) {
    state.usage = mapGeminiUsage(chunk.usageMetadata);
    events.push({ type: "usage", usage: state.usage });
  }
  const blocked = chunk.promptFeedback?.blockReason;
  if (candidate?.finishReason !== undefined) state.finishReason = candidate.finishReason;
  else if (blocked !== undefined && candidate === undefined) state.finishReason = "PROHIBITED_CONTENT";
  return events;
}

interface GeminiUsageFields {
  readonly promptTokenCount?: number;
  readonly cachedContentTokenCount?: number;
  readonly candidatesTokenCount?: number;
  readonly thoughtsTokenCount?: number;
  readonly toolUsePromptTokenCount?: number;
}

/**
 * Gemini counts cached tokens inside `promptTokenCount` and thoughts apart from
 * `candidatesTokenCount`; ours keeps the cache apart and counts thoughts as output (they are
 * billed as output), with `reasoningTokens` saying how many.
 */
export function mapGeminiUsage(usage: GeminiUsageFields): LlmUsage {
  const cached = usage.cachedContentTokenCount ?? 0;
  const prompt = (usage.promptTokenCount ?? 0) + (usage.toolUsePromptTokenCount ?? 0);
  const thoughts = usage.thoughtsTokenCount ?? 0;
  return {
    inputTokens: Math.max(0, prompt - cached),
    outputTokens: (usage.candidatesTokenCount ?? 0) + thoughts,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
    ...(usage.thoughtsTokenCount === undefined ? {} : { reasoningTokens: thoughts }),
  };
}

/** Google's RPC status names, as the classifier's provider types. */
const STATUS_TYPES: Readonly<Record<string, string>> = {
  RESOURCE_EXHAUSTED: "rate_limit_error",
  UNAVAILABLE: "overloaded_error",
  UNAUTHENTICATED: "authentication_error",
  PERMISSION_DENIED: "permission_error",
  INVALID_ARGUMENT: "invalid_request_error",
  FAILED_PRECONDITION: "invalid_request_error",
  NOT_FOUND: "invalid_request_error",
  DEADLINE_EXCEEDED: "timeout_error",
  INTERNAL: "api_error",
};

/**
 * Classifies what the SDK threw. Its `ApiError` carries the status and, as its message, the error
 * body as JSON (after `got status: …. ` for an error sent inside the stream); the provider's own
 * sentence, status name and `RetryInfo` delay are read from that. A key Google refuses comes as
 * 400 `API_KEY_INVALID`: an auth error. A stream whose last event was cut short is a cut stream.
 */
export function classifyGoogleError(thrown: unknown, signal?: AbortSignal): LlmError {
  if (signal?.aborted) return abortedError();
  if (!(thrown instanceof Error)) return classifyLlmError(thrown, signal);
  if (thrown.message === "Incomplete JSON segment at the end") return incompleteStreamError();
  const status = (thrown as { status?: unknown }).status;
  if (thrown.name !== "ApiError" || typeof status !== "number") return classifyLlmError(thrown, signal);
  const body = parseErrorBody(thrown.message);
  const error = body?.error;
  const message = typeof error?.message === "string" ? error.message : "no details";
  const statusName = typeof error?.status === "string" ? error.status : undefined;
  const details = Array.isArray(error?.details) ? (error.details as unknown[]) : [];
  const keyRefused = details.some((detail) => JSON.stringify(detail).includes("API_KEY_INVALID"));
  if (keyRefused) {
    return {
      kind: "auth",
      retryable: false,
      status,
      message: `The provider rejected the API key: ${status} ${sanitizeLine(message)}`,
    };
  }
  const retryDelay = readRetryDelay(details);
  return classifyLlmError({
    status,
    error: { message, ...(statusName && STATUS_TYPES[statusName] ? { type: STATUS_TYPES[statusName] } : {}) },
    ...(retryDelay === undefined ? {} : { headers: { "retry-after-ms": String(retryDelay) } }),
  });
}

function parseErrorBody(message: string): { error?: Record<string, unknown> } | undefined {
  const start = message.indexOf("{");
  if (start === -1) return undefined;
  try {
    const parsed: unknown = JSON.parse(message.slice(start));
    return typeof parsed === "object" && parsed !== null
      ? (parsed as { error?: Record<string, unknown> })
      : undefined;
  } catch {
    return undefined;
  }
}

/** `RetryInfo.retryDelay` (`"37s"`, `"1.5s"`) in milliseconds. */
function readRetryDelay(details: readonly unknown[]): number | undefined {
  for (const detail of details) {
    const delay = (detail as { retryDelay?: unknown } | null)?.retryDelay;
    if (typeof delay !== "string") continue;
    const match = /^(\d+(?:\.\d+)?)s$/.exec(delay);
    if (match) return Math.round(Number(match[1]) * 1000);
  }
  return undefined;
}
