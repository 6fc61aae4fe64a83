/**
 * The OpenAI Chat Completions adapter (streaming), on the openai SDK. Ollama and any other
 * OpenAI-compatible endpoint go through it with their own base URL.
 *
 * `toOpenAIRequest` and `mapOpenAIFinishReason` are pure and exported for the wire snapshot tests;
 * `createOpenAIClient` does the HTTP. Chat Completions cannot replay signed reasoning, so all
 * reasoning goes back as `<think>` text. Tool results become `tool` role messages placed before
 * the user's text, and streamed tool-call argument fragments are assembled per call index.
 */
import type OpenAI from "openai";
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
} from "openai/resources/chat/completions";
import { classifyLlmError, streamEnd } from "./errors.js";
import { parseToolArguments } from "./tool-arguments.js";
import { sdkClientOptions } from "./sdk-options.js";
import {
  EMPTY_USAGE,
  type LlmClient,
  type LlmStreamEvent,
  type LlmUsage,
  type StreamOptions,
  type LlmClientSettings,
} from "./types.js";

import { mapOpenAIFinishReason, type OpenAIRequestOptions, toOpenAIRequest } from "./openai-request.js";

export { mapOpenAIFinishReason, type OpenAIRequestOptions, toOpenAIRequest } from "./openai-request.js";

/** Settings of a Chat Completions client. The key is passed in, never read from the environment here. */
export type OpenAIClientSettings = LlmClientSettings & OpenAIRequestOptions;

/**
 * The openai SDK client for an endpoint, made on the first call: the SDK is imported only when a
 * request is sent (see createAnthropicClient). Servers without keys get a placeholder key. Both
 * OpenAI adapters (Chat Completions here, the Responses API in responses.ts) use it.
 */
export function lazyOpenAISdk(settings: {
  readonly apiKey?: string;
  readonly baseURL?: string;
  readonly timeoutMs?: number;
}): () => Promise<OpenAI> {
  let client: Promise<OpenAI> | undefined;
  return () =>
    (client ??= Promise.all([import("openai"), sdkClientOptions(settings)]).then(
      ([{ default: OpenAISdk }, options]) =>
        new OpenAISdk({ ...options, apiKey: settings.apiKey ?? "not-needed" }),
    ));
}

/** Creates an `LlmClient` talking to a Chat Completions endpoint. The SDK's own retries are off. */
export function createOpenAIClient(settings: OpenAIClientSettings): LlmClient {
  const sdk = lazyOpenAISdk(settings);
  return {
    modelId: settings.modelId,
    stream: (request, options) =>
      streamOpenAI(sdk, toOpenAIRequest(request, settings.model, settings), options),
  };
}

interface ToolCallBuffer {
  id: string;
  name: string;
  json: string;
}

interface StreamState {
  usage: LlmUsage;
  finishReason: string | undefined;
  readonly toolCalls: Map<number, ToolCallBuffer>;
}

async function* streamOpenAI(
  sdk: () => Promise<OpenAI>,
  body: ChatCompletionCreateParamsStreaming,
  options: StreamOptions = {},
): AsyncGenerator<LlmStreamEvent> {
  const state: StreamState = { usage: EMPTY_USAGE, finishReason: undefined, toolCalls: new Map() };
  try {
    const client = await sdk();
    const stream = await client.chat.completions.create(
      body,
      options.signal ? { signal: options.signal } : {},
    );
    for await (const chunk of stream) yield* mapOpenAIChunk(chunk, state);
    yield streamEnd(options.signal, state.finishReason, (reason) => ({
      type: "message-end",
      finishReason: mapOpenAIFinishReason(reason),
      providerReason: reason,
      usage: state.usage,
    }));
  } catch (thrown) {
    yield { type: "error", error: classifyLlmError(thrown, options.signal) };
  }
}

/** Reasoning text as compatible servers send it (`reasoning_content`, or Ollama's `reasoning`). */
interface ReasoningDelta {
  readonly reasoning_content?: string | null;
  readonly reasoning?: string | null;
}

function mapOpenAIChunk(chunk: ChatCompletionChunk, state: StreamState): LlmStreamEvent[] {
  const events: LlmStreamEvent[] = [];
  const choice = chunk.choices[0];
  if (choice !== undefined) {
    const delta = choice.delta as ChatCompletionChunk.Choice.Delta & ReasoningDelta;
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === "string" && reasoning.length > 0)
      events.push({ type: "reasoning-delta", text: reasoning });
    if (typeof delta.content === "string" && delta.content.length > 0) {
      events.push({ type: "text-delta", text: delta.content });
    }
    for (const call of delta.tool_calls ?? []) collectToolCall(call, state);
    if (choice.finish_reason) {
      state.finishReason = choice.finish_reason;
      events.push(...flushToolCalls(state));
    }
  }
  if (chunk.usage) {
    state.usage = mapOpenAIUsage(chunk.usage);
    events.push({ type: "usage", usage: state.usage });
  }
  return events;
}

function collectToolCall(call: ChatCompletionChunk.Choice.Delta.ToolCall, state: StreamState): void {
  const buffer = state.toolCalls.get(call.index) ?? { id: "", name: "", json: "" };
  if (call.id) buffer.id = call.id;
  if (call.function?.name) buffer.name += call.function.name;
  if (call.function?.arguments) buffer.json += call.function.arguments;
  state.toolCalls.set(call.index, buffer);
}

function flushToolCalls(state: StreamState): LlmStreamEvent[] {
  const indices = [...state.toolCalls.keys()].sort((left, right) => left - right);
  const events = indices.map((index): LlmStreamEvent => {
    const buffer = state.toolCalls.get(index)!;
    return { type: "tool-call", id: buffer.id, name: buffer.name, ...parseToolArguments(buffer.json) };
  });
  state.toolCalls.clear();
  return events;
}

/** OpenAI counts cached tokens inside `prompt_tokens`; ours keeps them apart (see `LlmUsage`). */
function mapOpenAIUsage(usage: NonNullable<ChatCompletionChunk["usage"]>): LlmUsage {
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  return {
    inputTokens: Math.max(0, usage.prompt_tokens - cached),
    outputTokens: usage.completion_tokens,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
    ...(reasoning === undefined || reasoning === null ? {} : { reasoningTokens: reasoning }),
  };
}
