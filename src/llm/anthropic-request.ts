/**
 * Pure pieces of the Anthropic adapter: the Messages API request body for a neutral request and
 * the stop-reason mapping. Imports only SDK *types*, so `print --format anthropic` builds a body
 * without loading the SDK.
 */
import type {
  ContentBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  StopReason,
  TextBlockParam,
  Tool,
  ToolChoice as AnthropicToolChoice,
} from "@anthropic-ai/sdk/resources/messages/messages";
import { type LlmMessage, type LlmPart, renderReasoningAsText } from "../core/conversation/request.js";
import { modelFamily } from "./models.js";
import type { FinishReason, LlmRequest, ToolChoice } from "./types.js";

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
  /**
   * The cxc model id the request goes to: a compaction block written by the same provider and
   * model family is replayed as the block (docs/native-compaction.md).
   */
  readonly modelId?: string;
  /**
   * Anthropic's context editing (`context_management`), sent as the user configured it; the
   * request then needs the `context-management-2025-06-27` beta (`requestBetas`).
   */
  readonly contextManagement?: Readonly<Record<string, unknown>>;
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
  replayCompactionBlock(request, messages, options.modelId);
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
  if (options.contextManagement !== undefined) {
    (body as unknown as Record<string, unknown>).context_management = options.contextManagement;
  }
  return body;
}

/** The beta of context editing (`context_management`). */
export const CONTEXT_MANAGEMENT_BETA = "context-management-2025-06-27";

/**
 * The betas a body needs, as one `anthropic-beta` value, or undefined: on-demand compaction's when
 * it carries a compaction block, context editing's when it carries `context_management`.
 */
export function requestBetas(
  body: { readonly messages: readonly MessageParam[] },
  compactionBeta: string,
): string | undefined {
  const betas = [
    ...(carriesCompactionBlock(body) ? [compactionBeta] : []),
    ...((body as Record<string, unknown>).context_management === undefined ? [] : [CONTEXT_MANAGEMENT_BETA]),
  ];
  return betas.length === 0 ? undefined : betas.join(",");
}

/** True when a body carries a compaction block (it then needs the `compact-2026-09-04` beta). */
export function carriesCompactionBlock(body: { readonly messages: readonly MessageParam[] }): boolean {
  const first = body.messages[0];
  return (
    first !== undefined &&
    typeof first.content !== "string" &&
    (first.content[0] as { type?: string } | undefined)?.type === "compaction"
  );
}

/**
 * A compaction block of this provider and model family opening the request goes back as itself:
 * the `[Summary of previous conversation]` request is left out, the block is the first block of
 * the first message (the API wants it there), and what cxc adds after a summary (its facts block,
 * pinned messages) opens the next user message, never inside the signed block. Anywhere else, or
 * to another model, the summary stays the readable text it already is.
 */
function replayCompactionBlock(
  request: LlmRequest,
  messages: MessageParam[],
  modelId: string | undefined,
): void {
  if (modelId === undefined || messages.length < 2) return;
  const [opener, summary] = request.messages;
  const part = summary?.parts[0];
  if (
    opener?.role !== "user" ||
    !opener.parts.every((candidate) => candidate.type === "text" && candidate.nativeOpener === true) ||
    summary?.role !== "assistant" ||
    part?.type !== "text" ||
    part.native?.format !== "anthropic-compaction" ||
    part.native.content === undefined ||
    part.native.signature === undefined ||
    !sameFamily(part.native.model, modelId)
  ) {
    return;
  }
  const block = { type: "compaction", content: part.native.content, signature: part.native.signature };
  const rest = (messages[1]!.content as ContentBlockParam[]).slice(1);
  messages.splice(0, 2, { role: "assistant", content: [block as unknown as ContentBlockParam, ...rest] });
  const addition = part.nativeAddition ?? "";
  if (addition === "") return;
  const next = messages[1];
  if (next?.role === "user" && typeof next.content !== "string") {
    // Tool results must lead a user message; none can follow a summary turn, which has no calls.
    next.content = [{ type: "text", text: addition }, ...next.content];
  } else {
    messages.splice(1, 0, { role: "user", content: [{ type: "text", text: addition }] });
  }
}

/** Same provider and model family (`anthropic/claude-opus-4-6` and its dated snapshots). */
function sameFamily(writer: string, modelId: string): boolean {
  const split = (id: string) => [id.slice(0, id.indexOf("/")), modelFamily(id.slice(id.indexOf("/") + 1))];
  const [writerProvider, writerFamily] = split(writer);
  const [provider, family] = split(modelId);
  return writerProvider === provider && writerFamily === family;
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
      // Only signed reasoning goes back as thinking (and not in a message being continued).
      return continuing || part.signature === undefined
        ? [{ type: "text", text: renderReasoningAsText(part.text) }]
        : [{ type: "thinking", thinking: part.text, signature: part.signature }];
    case "redacted-reasoning":
      return continuing ? [] : [{ type: "redacted_thinking", data: part.data }];
    case "encrypted-reasoning":
      // Only OpenAI can read the item; its summary goes as text.
      return part.text.length === 0 ? [] : [{ type: "text", text: renderReasoningAsText(part.text) }];
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
