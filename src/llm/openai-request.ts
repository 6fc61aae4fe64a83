/**
 * Pure pieces of the Chat Completions adapter: the request body for a neutral request and the
 * finish-reason mapping. Imports only SDK *types*, so `print --format openai` builds a body without
 * loading the SDK.
 */
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionToolChoiceOption,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import { type LlmMessage, type LlmPart, renderReasoningAsText } from "../core/conversation/request.js";
import type { FinishReason, LlmRequest, ToolChoice } from "./types.js";

/** Wire-shaping options of a Chat Completions request that do not come from the conversation. */
export interface OpenAIRequestOptions {
  /**
   * Field carrying the output limit: OpenAI's current models want `max_completion_tokens`;
   * many compatible servers only know the older `max_tokens`.
   */
  readonly maxTokensField?: "max_completion_tokens" | "max_tokens";
}

/** Builds the Chat Completions body for a neutral request. Pure. */
export function toOpenAIRequest(
  request: LlmRequest,
  model: string,
  options: OpenAIRequestOptions = {},
): ChatCompletionCreateParamsStreaming {
  const messages: ChatCompletionMessageParam[] = [];
  if (request.system !== undefined) messages.push({ role: "system", content: request.system });
  for (const message of request.messages) messages.push(...toOpenAIMessages(message));
  const body: ChatCompletionCreateParamsStreaming = {
    model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools.length > 0) {
    body.tools = request.tools.map(
      (tool): ChatCompletionTool => ({
        type: "function",
        function: {
          name: tool.name,
          ...(tool.description === undefined ? {} : { description: tool.description }),
          parameters: { ...tool.parameters },
        },
      }),
    );
    if (request.toolChoice !== undefined) body.tool_choice = toOpenAIToolChoice(request.toolChoice);
  }
  if (request.maxOutputTokens !== undefined) {
    body[options.maxTokensField ?? "max_completion_tokens"] = request.maxOutputTokens;
  }
  return body;
}

/** Maps a Chat Completions finish reason to ours. */
export function mapOpenAIFinishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case "stop":
      return "stop";
    case "length":
      return "length";
    case "tool_calls":
    case "function_call":
      return "tool-calls";
    case "content_filter":
      return "refusal";
    default:
      return "other";
  }
}

function toOpenAIToolChoice(choice: ToolChoice): ChatCompletionToolChoiceOption {
  if (choice.type === "tool") return { type: "function", function: { name: choice.name } };
  return choice.type;
}

function toOpenAIMessages(message: LlmMessage): ChatCompletionMessageParam[] {
  if (message.role === "user") {
    const output: ChatCompletionMessageParam[] = [];
    for (const part of message.parts) {
      if (part.type === "tool-result") {
        output.push({ role: "tool", tool_call_id: part.callId, content: part.content });
      }
    }
    const text = joinText(message.parts);
    if (text.length > 0) output.push({ role: "user", content: text });
    return output;
  }
  const assistant: ChatCompletionAssistantMessageParam = { role: "assistant", content: null };
  const text = joinText(message.parts);
  if (text.length > 0) assistant.content = text;
  const toolCalls = message.parts.flatMap((part) =>
    part.type === "tool-call"
      ? [
          {
            id: part.id,
            type: "function" as const,
            function: { name: part.name, arguments: JSON.stringify(part.arguments) },
          },
        ]
      : [],
  );
  if (toolCalls.length > 0) assistant.tool_calls = toolCalls;
  // An assistant message left with neither text nor calls (only redacted reasoning) is rejected.
  return text.length === 0 && toolCalls.length === 0 ? [] : [assistant];
}

/** The text of a message's parts, reasoning rendered as `<think>` text, blocks a blank line apart. */
function joinText(parts: readonly LlmPart[]): string {
  let text = "";
  for (const part of parts) {
    const piece =
      part.type === "text"
        ? part.text
        : part.type === "reasoning" || (part.type === "encrypted-reasoning" && part.text.length > 0)
          ? renderReasoningAsText(part.text)
          : "";
    if (piece.length === 0) continue;
    text += text.length === 0 || text.endsWith("\n\n") ? piece : `\n\n${piece}`;
  }
  return text;
}
