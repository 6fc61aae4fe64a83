/**
 * The OpenAI Responses API adapter (streaming), on the openai SDK's `responses` API: OpenAI's own
 * models (`openai/*`, the Codex-class ones only speak it) and any server configured with
 * `api = "responses"`.
 *
 * `toResponsesRequest` is pure (responses-request.ts); this module does the HTTP and maps the
 * stream: output text and refusal deltas are text, reasoning summary (and raw reasoning text)
 * deltas are reasoning, a finished reasoning item hands over its id and encrypted content
 * (`reasoning-item`), a finished function call is a `tool-call` (parallel calls are items of their
 * own), and `response.completed` / `response.incomplete` end the message with the usage.
 * `response.failed` and `error` events end it with a classified error.
 */
import type OpenAI from "openai";
import type {
  ResponseCreateParamsStreaming,
  ResponseStreamEvent,
  Response as ResponsesResponse,
} from "openai/resources/responses/responses";
import { classifyLlmError, cutShortError } from "./errors.js";
import { type ResponsesRequestOptions, toResponsesRequest } from "./responses-request.js";
import { lazyOpenAISdk } from "./openai.js";
import { parseToolArguments } from "./tool-arguments.js";
import {
  EMPTY_USAGE,
  type FinishReason,
  type LlmClient,
  type LlmError,
  type LlmStreamEvent,
  type LlmUsage,
  type StreamOptions,
  type LlmClientSettings,
} from "./types.js";

export { type ResponsesRequestOptions, toResponsesRequest } from "./responses-request.js";

/** Settings of a Responses client. The key is passed in, never read from the environment here. */
export type ResponsesClientSettings = LlmClientSettings & Omit<ResponsesRequestOptions, "modelId">;

/** Creates an `LlmClient` talking to a Responses endpoint. The SDK's own retries are off. */
export function createResponsesClient(settings: ResponsesClientSettings): LlmClient {
  const sdk = lazyOpenAISdk(settings);
  return {
    modelId: settings.modelId,
    stream: (request, options) =>
      streamResponses(sdk, toResponsesRequest(request, settings.model, settings), settings.modelId, options),
  };
}

interface StreamState {
  readonly modelId: string;
  usage: LlmUsage;
  /** The terminal event, once the response finished or failed. */
  end: LlmStreamEvent | undefined;
  refused: boolean;
  sawToolCall: boolean;
  /** Argument text streamed so far, by item id (the item's `done` event carries it whole too). */
  readonly arguments: Map<string, string>;
}

async function* streamResponses(
  sdk: () => Promise<OpenAI>,
  body: ResponseCreateParamsStreaming,
  modelId: string,
  options: StreamOptions = {},
): AsyncGenerator<LlmStreamEvent> {
  const state: StreamState = {
    modelId,
    usage: EMPTY_USAGE,
    end: undefined,
    refused: false,
    sawToolCall: false,
    arguments: new Map(),
  };
  try {
    const client = await sdk();
    const stream = await client.responses.create(body, options.signal ? { signal: options.signal } : {});
    for await (const event of stream) {
      yield* mapResponsesEvent(event, state);
      if (state.end !== undefined) {
        yield state.end;
        return;
      }
    }
    // The SDK ends the iteration quietly when the signal aborts it.
    yield { type: "error", error: cutShortError(options.signal) };
  } catch (thrown) {
    yield { type: "error", error: classifyLlmError(thrown, options.signal) };
  }
}

/** Maps one SDK stream event to ours; events that carry nothing of ours map to none. */
function mapResponsesEvent(event: ResponseStreamEvent, state: StreamState): LlmStreamEvent[] {
  switch (event.type) {
    case "response.output_text.delta":
      return event.delta.length > 0 ? [{ type: "text-delta", text: event.delta }] : [];
    case "response.refusal.delta":
      state.refused = true;
      return event.delta.length > 0 ? [{ type: "text-delta", text: event.delta }] : [];
    case "response.reasoning_summary_text.delta":
    case "response.reasoning_text.delta":
      return event.delta.length > 0 ? [{ type: "reasoning-delta", text: event.delta }] : [];
    case "response.reasoning_summary_part.added":
      // Summary parts of one item are one reasoning block, a blank line apart.
      return event.summary_index > 0 ? [{ type: "reasoning-delta", text: "\n\n" }] : [];
    case "response.function_call_arguments.delta":
      state.arguments.set(event.item_id, (state.arguments.get(event.item_id) ?? "") + event.delta);
      return [];
    case "response.output_item.done":
      return itemDone(event.item, state);
    case "response.completed":
    case "response.incomplete":
      return finish(event.response, state);
    case "response.failed":
      state.end = { type: "error", error: failure(event.response.error) };
      return [];
    case "error":
      state.end = { type: "error", error: failure({ code: event.code, message: event.message }) };
      return [];
    default:
      return [];
  }
}

function itemDone(
  item: Extract<ResponseStreamEvent, { type: "response.output_item.done" }>["item"],
  state: StreamState,
): LlmStreamEvent[] {
  if (item.type === "reasoning") {
    const data = item.encrypted_content;
    if (typeof data !== "string" || data.length === 0) return [];
    return [{ type: "reasoning-item", id: item.id, data, model: state.modelId }];
  }
  if (item.type === "function_call") {
    state.sawToolCall = true;
    const streamed = item.id === undefined ? undefined : state.arguments.get(item.id);
    const json = item.arguments.length > 0 ? item.arguments : (streamed ?? "");
    return [{ type: "tool-call", id: item.call_id, name: item.name, ...parseToolArguments(json) }];
  }
  return [];
}

function finish(response: ResponsesResponse, state: StreamState): LlmStreamEvent[] {
  if (response.usage) state.usage = mapResponsesUsage(response.usage);
  const reason = response.incomplete_details?.reason ?? response.status ?? undefined;
  const finishReason: FinishReason =
    response.status === "incomplete"
      ? reason === "max_output_tokens"
        ? "length"
        : reason === "content_filter"
          ? "refusal"
          : "other"
      : state.refused
        ? "refusal"
        : state.sawToolCall
          ? "tool-calls"
          : "stop";
  state.end = {
    type: "message-end",
    finishReason,
    ...(reason === undefined ? {} : { providerReason: reason }),
    usage: state.usage,
  };
  return [{ type: "usage", usage: state.usage }];
}

/** Error codes of a failed response, as the classifier's provider types. */
const FAILURE_TYPES: Readonly<Record<string, string>> = {
  rate_limit_exceeded: "rate_limit_error",
  server_error: "api_error",
  server_is_overloaded: "overloaded_error",
  invalid_prompt: "invalid_request_error",
};

/** A failed response's error (`response.failed`, an `error` event) as an `LlmError`. */
function failure(error: { readonly code?: string | null; readonly message?: string } | null): LlmError {
  const code = error?.code ?? undefined;
  const type = code === undefined ? "api_error" : (FAILURE_TYPES[code] ?? code);
  return classifyLlmError({ error: { type, code, message: error?.message ?? "the response failed" } });
}

/**
 * Responses counts cached (and cache-written) tokens inside `input_tokens`; ours keeps them apart
 * (see `LlmUsage`).
 */
function mapResponsesUsage(usage: NonNullable<ResponsesResponse["usage"]>): LlmUsage {
  const details = usage.input_tokens_details as
    | { readonly cached_tokens?: number | null; readonly cache_write_tokens?: number | null }
    | undefined;
  const cached = details?.cached_tokens ?? 0;
  const written = details?.cache_write_tokens ?? 0;
  const reasoning = usage.output_tokens_details?.reasoning_tokens;
  return {
    inputTokens: Math.max(0, usage.input_tokens - cached - written),
    outputTokens: usage.output_tokens,
    cacheReadTokens: cached,
    cacheWriteTokens: written,
    ...(reasoning === undefined || reasoning === null ? {} : { reasoningTokens: reasoning }),
  };
}
