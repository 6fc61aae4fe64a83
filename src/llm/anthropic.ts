/**
 * The Anthropic Messages API adapter (streaming), on @anthropic-ai/sdk.
 *
 * `toAnthropicRequest` and `mapAnthropicStopReason` are pure and exported for the wire snapshot
 * tests; `createAnthropicClient` does the HTTP. Signed thinking is replayed as native `thinking`
 * blocks (Anthropic requires them back unchanged in a tool-using turn). Prompt caching puts
 * breakpoints on the stable prefix: the system prompt, the tool list and the last message before
 * the newest one, so the next request reads everything up to there from the cache.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type {
  MessageCreateParamsStreaming,
  RawMessageStreamEvent,
} from "@anthropic-ai/sdk/resources/messages/messages";
import { classifyLlmError, cutShortError } from "./errors.js";
import { parseToolArguments } from "./tool-arguments.js";
import { lazyAnthropicClient, withSdkConsole } from "./sdk-options.js";
import {
  EMPTY_USAGE,
  type LlmClient,
  type LlmStreamEvent,
  type LlmUsage,
  type StreamOptions,
  type LlmClientSettings,
} from "./types.js";

import {
  type AnthropicRequestOptions,
  mapAnthropicStopReason,
  requestBetas,
  toAnthropicRequest,
} from "./anthropic-request.js";
import { COMPACTION_BETA } from "./anthropic-compaction.js";

export {
  type AnthropicRequestOptions,
  DEFAULT_ANTHROPIC_MAX_TOKENS,
  mapAnthropicStopReason,
  toAnthropicRequest,
} from "./anthropic-request.js";

/** Settings of an Anthropic client. The key is passed in, never read from the environment here. */
export interface AnthropicClientSettings extends LlmClientSettings, Omit<AnthropicRequestOptions, "modelId"> {
  readonly apiKey: string;
}

/** Creates an `LlmClient` talking to the Messages API. The SDK's own retries are off. */
export function createAnthropicClient(settings: AnthropicClientSettings): LlmClient {
  const sdk = lazyAnthropicClient(settings);
  return {
    modelId: settings.modelId,
    stream: (request, options) =>
      streamAnthropic(sdk, toAnthropicRequest(request, settings.model, settings), options),
  };
}

async function* streamAnthropic(
  sdk: () => Promise<Anthropic>,
  body: MessageCreateParamsStreaming,
  options: StreamOptions = {},
): AsyncGenerator<LlmStreamEvent> {
  const state = createStreamState();
  try {
    const client = await sdk();
    // A compaction block replayed first needs its beta on every later request; context editing its own.
    const betas = requestBetas(body, COMPACTION_BETA);
    const headers = betas === undefined ? {} : { headers: { "anthropic-beta": betas } };
    const stream = await withSdkConsole(() =>
      client.messages.create(body, { ...headers, ...(options.signal ? { signal: options.signal } : {}) }),
    );
    for await (const event of stream) {
      yield* mapAnthropicEvent(event, state);
      if (state.finished) return;
    }
    // The SDK ends the iteration quietly when the signal aborts it.
    yield { type: "error", error: cutShortError(options.signal) };
  } catch (thrown) {
    yield { type: "error", error: classifyLlmError(thrown, options.signal) };
  }
}

interface ToolUseBuffer {
  readonly id: string;
  readonly name: string;
  json: string;
}

interface StreamState {
  usage: LlmUsage;
  stopReason: string | undefined;
  finished: boolean;
  readonly signatures: Map<number, string>;
  readonly toolUses: Map<number, ToolUseBuffer>;
}

function createStreamState(): StreamState {
  return {
    usage: EMPTY_USAGE,
    stopReason: undefined,
    finished: false,
    signatures: new Map(),
    toolUses: new Map(),
  };
}

/** Maps one SDK stream event to ours; each event type has its own small mapping. */
function mapAnthropicEvent(event: RawMessageStreamEvent, state: StreamState): LlmStreamEvent[] {
  switch (event.type) {
    case "message_start":
      state.usage = mergeUsage(state.usage, event.message.usage);
      return [{ type: "usage", usage: state.usage }];
    case "content_block_start":
      return mapBlockStart(event.index, event.content_block, state);
    case "content_block_delta":
      return mapBlockDelta(event.index, event.delta, state);
    case "content_block_stop":
      return mapBlockStop(event.index, state);
    case "message_delta":
      state.stopReason = event.delta.stop_reason ?? state.stopReason;
      state.usage = mergeUsage(state.usage, event.usage);
      return [{ type: "usage", usage: state.usage }];
    case "message_stop":
      state.finished = true;
      return [messageEnd(state)];
    default:
      return [];
  }
}

function mapBlockStart(
  index: number,
  block: Extract<RawMessageStreamEvent, { type: "content_block_start" }>["content_block"],
  state: StreamState,
): LlmStreamEvent[] {
  switch (block.type) {
    case "text":
      return block.text.length > 0 ? [{ type: "text-delta", text: block.text }] : [];
    case "thinking":
      if (block.signature.length > 0) state.signatures.set(index, block.signature);
      return block.thinking.length > 0 ? [{ type: "reasoning-delta", text: block.thinking }] : [];
    case "redacted_thinking":
      return [{ type: "redacted-reasoning", data: block.data }];
    case "tool_use":
      state.toolUses.set(index, { id: block.id, name: block.name, json: "" });
      return [];
    default:
      return [];
  }
}

function mapBlockDelta(
  index: number,
  delta: Extract<RawMessageStreamEvent, { type: "content_block_delta" }>["delta"],
  state: StreamState,
): LlmStreamEvent[] {
  switch (delta.type) {
    case "text_delta":
      return [{ type: "text-delta", text: delta.text }];
    case "thinking_delta":
      return [{ type: "reasoning-delta", text: delta.thinking }];
    case "signature_delta":
      state.signatures.set(index, (state.signatures.get(index) ?? "") + delta.signature);
      return [];
    case "input_json_delta": {
      const toolUse = state.toolUses.get(index);
      if (toolUse) toolUse.json += delta.partial_json;
      return [];
    }
    default:
      return [];
  }
}

function mapBlockStop(index: number, state: StreamState): LlmStreamEvent[] {
  const signature = state.signatures.get(index);
  if (signature !== undefined) {
    state.signatures.delete(index);
    return [{ type: "reasoning-delta", text: "", signature }];
  }
  const toolUse = state.toolUses.get(index);
  if (toolUse === undefined) return [];
  state.toolUses.delete(index);
  return [{ type: "tool-call", id: toolUse.id, name: toolUse.name, ...parseToolArguments(toolUse.json) }];
}

function messageEnd(state: StreamState): LlmStreamEvent {
  const event = {
    type: "message-end" as const,
    finishReason: mapAnthropicStopReason(state.stopReason),
    usage: state.usage,
  };
  return state.stopReason === undefined ? event : { ...event, providerReason: state.stopReason };
}

interface AnthropicUsageFields {
  readonly input_tokens?: number | null;
  readonly output_tokens?: number | null;
  readonly cache_read_input_tokens?: number | null;
  readonly cache_creation_input_tokens?: number | null;
}

/** Anthropic reports cumulative counts; a field missing from a later report keeps its value. */
function mergeUsage(previous: LlmUsage, usage: AnthropicUsageFields): LlmUsage {
  return {
    inputTokens: usage.input_tokens ?? previous.inputTokens,
    outputTokens: usage.output_tokens ?? previous.outputTokens,
    cacheReadTokens: usage.cache_read_input_tokens ?? previous.cacheReadTokens,
    cacheWriteTokens: usage.cache_creation_input_tokens ?? previous.cacheWriteTokens,
  };
}
