/**
 * The Anthropic Messages API adapter (streaming), on @anthropic-ai/sdk.
 *
 * `toAnthropicRequest` and `mapAnthropicStopReason` are pure and exported for the wire snapshot
 * tests; `createAnthropicClient` does the HTTP. Signed thinking is replayed as native `thinking`
 * blocks (Anthropic requires them back unchanged in a tool-using turn). Prompt caching puts
 * breakpoints on the stable prefix: the system prompt, the tool list and the last message before
 * the newest one, so the next request reads everything up to there from the cache.
 */
import Anthropic from "@anthropic-ai/sdk";
import type {
  ContentBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  RawMessageStreamEvent,
  StopReason,
  TextBlockParam,
  Tool,
  ToolChoice as AnthropicToolChoice,
} from "@anthropic-ai/sdk/resources/messages/messages";
import { type LlmMessage, type LlmPart, renderReasoningAsText } from "../core/request.js";
import { abortedError, classifyLlmError, incompleteStreamError } from "./errors.js";
import { parseToolArguments } from "./tool-arguments.js";
import {
  EMPTY_USAGE,
  type FinishReason,
  type LlmClient,
  type LlmRequest,
  type LlmStreamEvent,
  type LlmUsage,
  type StreamOptions,
  type ToolChoice,
} from "./types.js";

/** Output limit used when neither the request nor the client names one. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 8192;

/** Wire-shaping options of an Anthropic request that do not come from the conversation. */
export interface AnthropicRequestOptions {
  /** Output limit when the request has none. */
  readonly maxOutputTokens?: number;
  /** Prompt-cache breakpoints on the stable prefix (default true). */
  readonly cache?: boolean;
  /** Turns on extended thinking with this token budget. */
  readonly thinkingBudgetTokens?: number;
}

const CACHE_CONTROL = { type: "ephemeral" } as const;

/** Builds the Messages API body for a neutral request. Pure. */
export function toAnthropicRequest(
  request: LlmRequest,
  model: string,
  options: AnthropicRequestOptions = {},
): MessageCreateParamsStreaming {
  const cache = options.cache ?? true;
  const messages = request.messages.map((message, position) =>
    toAnthropicMessage(message, position === request.messages.length - 1),
  );
  if (cache) markCacheBreakpoint(messages);
  const body: MessageCreateParamsStreaming = {
    model,
    max_tokens: request.maxOutputTokens ?? options.maxOutputTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
    messages,
    stream: true,
  };
  if (request.system !== undefined) {
    const block: TextBlockParam = { type: "text", text: request.system };
    body.system = [cache ? { ...block, cache_control: CACHE_CONTROL } : block];
  }
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool, position): Tool => {
      const definition: Tool = {
        name: tool.name,
        input_schema: { type: "object", ...tool.parameters } as Tool["input_schema"],
      };
      if (tool.description !== undefined) definition.description = tool.description;
      if (cache && position === request.tools.length - 1) definition.cache_control = CACHE_CONTROL;
      return definition;
    });
    if (request.toolChoice !== undefined) body.tool_choice = toAnthropicToolChoice(request.toolChoice);
  }
  if (options.thinkingBudgetTokens !== undefined) {
    body.thinking = { type: "enabled", budget_tokens: options.thinkingBudgetTokens };
  }
  return body;
}

/** Maps Anthropic's stop reason to ours. */
export function mapAnthropicStopReason(reason: StopReason | string | null | undefined): FinishReason {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "tool_use":
      return "tool-calls";
    case "refusal":
      return "refusal";
    default:
      return "other";
  }
}

function toAnthropicToolChoice(choice: ToolChoice): AnthropicToolChoice {
  switch (choice.type) {
    case "auto":
      return { type: "auto" };
    case "none":
      return { type: "none" };
    case "required":
      return { type: "any" };
    case "tool":
      return { type: "tool", name: choice.name };
  }
}

/**
 * One message. A final assistant message is being continued: Anthropic rejects thinking blocks
 * there, so its reasoning goes back as `<think>` text and redacted reasoning is dropped.
 */
function toAnthropicMessage(message: LlmMessage, isLast: boolean): MessageParam {
  const continuing = isLast && message.role === "assistant";
  const content = message.parts.flatMap((part) => toContentBlocks(part, continuing));
  return { role: message.role, content };
}

function toContentBlocks(part: LlmPart, continuing: boolean): ContentBlockParam[] {
  switch (part.type) {
    case "text":
      return [{ type: "text", text: part.text }];
    case "reasoning":
      return continuing
        ? [{ type: "text", text: renderReasoningAsText(part.text) }]
        : [{ type: "thinking", thinking: part.text, signature: part.signature }];
    case "redacted-reasoning":
      return continuing ? [] : [{ type: "redacted_thinking", data: part.data }];
    case "tool-call":
      return [{ type: "tool_use", id: part.id, name: part.name, input: part.arguments }];
    case "tool-result":
      return [
        { type: "tool_result", tool_use_id: part.callId, content: part.content, is_error: part.isError },
      ];
  }
}

/**
 * Marks the last cacheable block of the message before the newest one, so the next request of
 * this conversation reads the whole earlier history from the cache. Thinking blocks cannot carry
 * a breakpoint, so the last other block is used.
 */
function markCacheBreakpoint(messages: MessageParam[]): void {
  const target = messages[messages.length - 2];
  if (target === undefined || typeof target.content === "string") return;
  for (let position = target.content.length - 1; position >= 0; position--) {
    const block = target.content[position]!;
    if (block.type === "thinking" || block.type === "redacted_thinking") continue;
    target.content[position] = { ...block, cache_control: CACHE_CONTROL } as ContentBlockParam;
    return;
  }
}

/** Settings of an Anthropic client. The key is passed in, never read from the environment here. */
export interface AnthropicClientSettings extends AnthropicRequestOptions {
  /** Full model id, `anthropic/<model>` (or an alias's target). */
  readonly modelId: string;
  /** The provider's model name, e.g. `claude-sonnet-4-6`. */
  readonly model: string;
  readonly apiKey: string;
  readonly baseURL?: string;
  /** Per-request timeout in milliseconds. */
  readonly timeoutMs?: number;
}

/** Creates an `LlmClient` talking to the Messages API. The SDK's own retries are off. */
export function createAnthropicClient(settings: AnthropicClientSettings): LlmClient {
  const sdk = new Anthropic({
    apiKey: settings.apiKey,
    baseURL: settings.baseURL ?? null,
    maxRetries: 0,
    ...(settings.timeoutMs === undefined ? {} : { timeout: settings.timeoutMs }),
  });
  return {
    modelId: settings.modelId,
    stream: (request, options) =>
      streamAnthropic(sdk, toAnthropicRequest(request, settings.model, settings), options),
  };
}

async function* streamAnthropic(
  sdk: Anthropic,
  body: MessageCreateParamsStreaming,
  options: StreamOptions = {},
): AsyncGenerator<LlmStreamEvent> {
  const state = createStreamState();
  try {
    const stream = await sdk.messages.create(body, options.signal ? { signal: options.signal } : {});
    for await (const event of stream) {
      yield* mapAnthropicEvent(event, state);
      if (state.finished) return;
    }
    // The SDK ends the iteration quietly when the signal aborts it.
    yield { type: "error", error: options.signal?.aborted ? abortedError() : incompleteStreamError() };
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
