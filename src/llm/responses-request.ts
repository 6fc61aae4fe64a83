/**
 * Pure pieces of the OpenAI Responses adapter: the request body for a neutral request. Imports
 * only SDK *types*, so `print --format responses` builds a body without loading the SDK.
 *
 * The conversation is stateless on OpenAI's side (`store: false`): every request carries the whole
 * input, and reasoning models are asked for their encrypted reasoning
 * (`include: ["reasoning.encrypted_content"]`) so the next request can hand it back. A reasoning
 * item goes back as an item only to the model that wrote it (`modelId`); to any other model its
 * summary goes as `<think>` text, as every other adapter sends reasoning it cannot replay.
 */
import type {
  FunctionTool,
  ResponseCreateParamsStreaming,
  ResponseInputItem,
  ToolChoiceFunction,
  ToolChoiceOptions,
} from "openai/resources/responses/responses";
import { type LlmMessage, type LlmPart, renderReasoningAsText } from "../core/conversation/request.js";
import type { LlmRequest, ToolChoice } from "./types.js";

/** Wire-shaping options of a Responses request that do not come from the conversation. */
export interface ResponsesRequestOptions {
  /** The cxc model id the request goes to; reasoning items written by it are replayed as items. */
  readonly modelId?: string;
  /**
   * A reasoning model: asks for reasoning summaries and the encrypted reasoning (models without
   * reasoning refuse the `reasoning` parameter). Default true.
   */
  readonly reasoning?: boolean;
  /** Output limit when the request has none. */
  readonly maxOutputTokens?: number;
}

/** Builds the Responses body for a neutral request. Pure. */
export function toResponsesRequest(
  request: LlmRequest,
  model: string,
  options: ResponsesRequestOptions = {},
): ResponseCreateParamsStreaming {
  const input: ResponseInputItem[] = [];
  const native = replaysNative(request, options.modelId);
  // Replayed natively, what the provider's summary stands for goes no more (a call's result with it).
  const held = new Set<string>();
  if (native) {
    for (const message of request.messages)
      for (const part of message.parts)
        if (part.nativeHeld === true && part.type === "tool-call") held.add(part.id);
  }
  const sent = (part: LlmPart) =>
    !native || (part.nativeHeld !== true && !(part.type === "tool-result" && held.has(part.callId)));
  for (const message of request.messages) {
    const parts = message.parts.filter(sent);
    if (parts.length > 0) input.push(...toInputItems({ ...message, parts }, options.modelId, native));
  }
  const body: ResponseCreateParamsStreaming = { model, input, stream: true, store: false };
  if (request.system !== undefined) body.instructions = request.system;
  if (options.reasoning ?? true) {
    body.reasoning = { summary: "auto" };
    body.include = ["reasoning.encrypted_content"];
  }
  if (request.tools.length > 0) {
    body.tools = request.tools.map(
      (tool): FunctionTool => ({
        type: "function",
        name: tool.name,
        ...(tool.description === undefined ? {} : { description: tool.description }),
        parameters: { ...tool.parameters },
        strict: false,
      }),
    );
    body.parallel_tool_calls = true;
    if (request.toolChoice !== undefined) body.tool_choice = toResponsesToolChoice(request.toolChoice);
  }
  const limit = request.maxOutputTokens ?? options.maxOutputTokens;
  if (limit !== undefined) body.max_output_tokens = limit;
  return body;
}

function toResponsesToolChoice(choice: ToolChoice): ToolChoiceOptions | ToolChoiceFunction {
  return choice.type === "tool" ? { type: "function", name: choice.name } : choice.type;
}

/**
 * True when the request holds OpenAI's encrypted compaction written under the provider this
 * request goes to (`<provider>/…` of `modelId`): only that provider can read it.
 */
function replaysNative(request: LlmRequest, modelId: string | undefined): boolean {
  if (modelId === undefined) return false;
  const provider = modelId.slice(0, modelId.indexOf("/"));
  return request.messages.some((message) =>
    message.parts.some(
      (part) =>
        part.type === "text" &&
        part.native?.format === "openai-compaction" &&
        part.native.provider === provider,
    ),
  );
}

/**
 * An item of Codex's replacement history as request input: a message as its role and content, a
 * compaction item as its encrypted content; Codex's bookkeeping fields (ids, its own metadata) are
 * not sent, as Codex does not send them.
 */
function historyItem(item: Readonly<Record<string, unknown>>): ResponseInputItem {
  if (item.type === "compaction" || item.type === "compaction_summary") {
    return { type: "compaction", encrypted_content: String(item.encrypted_content) };
  }
  if (item.type === "message") {
    return { type: "message", role: item.role, content: item.content } as ResponseInputItem;
  }
  const { id: _id, internal_chat_message_metadata_passthrough: _metadata, ...rest } = item;
  return rest as unknown as ResponseInputItem;
}

function toInputItems(
  message: LlmMessage,
  modelId: string | undefined,
  native: boolean,
): ResponseInputItem[] {
  if (message.role === "user") {
    const items: ResponseInputItem[] = [];
    let text = "";
    for (const part of message.parts) {
      if (part.type === "tool-result") {
        items.push({ type: "function_call_output", call_id: part.callId, output: part.content });
      } else if (part.type === "text" && !(native && part.nativeOpener === true)) {
        text = joinBlocks(text, part.text);
      }
    }
    if (text.length > 0) items.push({ type: "message", role: "user", content: text });
    return items;
  }
  // Assistant content keeps its order: text between items becomes one message each.
  const items: ResponseInputItem[] = [];
  let text = "";
  const flush = () => {
    if (text.length > 0) items.push({ type: "message", role: "assistant", content: text });
    text = "";
  };
  for (const part of message.parts) {
    if (native && part.type === "text" && part.native?.format === "openai-compaction") {
      flush();
      items.push(...(part.native.items ?? []).map(historyItem));
      if (part.nativeAddition !== undefined && part.nativeAddition !== "") {
        items.push({ type: "message", role: "user", content: part.nativeAddition });
      }
      continue;
    }
    const item = nativeItem(part, modelId);
    if (item !== undefined) {
      flush();
      items.push(item);
    } else {
      text = joinBlocks(text, textOf(part));
    }
  }
  flush();
  return items;
}

/** The part as an item of its own (a call, a reasoning item of this model), else undefined. */
function nativeItem(part: LlmPart, modelId: string | undefined): ResponseInputItem | undefined {
  if (part.type === "tool-call") {
    return {
      type: "function_call",
      call_id: part.id,
      name: part.name,
      arguments: JSON.stringify(part.arguments),
    };
  }
  if (part.type === "encrypted-reasoning" && part.model !== undefined && part.model === modelId) {
    return {
      type: "reasoning",
      id: part.id,
      summary: part.text.length === 0 ? [] : [{ type: "summary_text", text: part.text }],
      encrypted_content: part.data,
    };
  }
  return undefined;
}

/** What a part adds to the message text; reasoning another model wrote goes as `<think>` text. */
function textOf(part: LlmPart): string {
  switch (part.type) {
    case "text":
      return part.text;
    case "reasoning":
    case "encrypted-reasoning":
      return part.text.length === 0 ? "" : renderReasoningAsText(part.text);
    default:
      return "";
  }
}

/** Text blocks a blank line apart (a `<think>` block already ends with one). */
function joinBlocks(text: string, piece: string): string {
  if (piece.length === 0) return text;
  return text.length === 0 || text.endsWith("\n\n") ? text + piece : `${text}\n\n${piece}`;
}
