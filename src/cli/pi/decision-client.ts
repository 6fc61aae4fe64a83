/**
 * The advisor's decision model inside pi: an `LlmClient` (src/llm/types.ts) that calls a pi model
 * through pi's own model API (`complete` of pi-ai) with the key and headers pi resolves for it, so
 * the advisor needs no key of its own. The advisor's decision requests are one user message and
 * one tool it must call; the tool choice is forced where pi's provider takes one.
 */
import type { LlmRequest } from "../../core/conversation/request.js";
import type { LlmClient, LlmStreamEvent, LlmUsage, StreamOptions } from "../../llm/types.js";
import type { PiAssistantMessage, PiComplete, PiModel } from "./pi-api.js";

/** The provider option that forces calling `name`, by pi's API kind; none where pi takes none. */
export function forcedToolChoice(api: string, name: string): unknown {
  if (api === "anthropic-messages" || api === "bedrock-converse-stream") return { type: "tool", name };
  if (api === "openai-completions") return { type: "function", function: { name } };
  if (api.startsWith("google") || api === "mistral-conversations") return "any";
  return undefined;
}

function usageOf(message: PiAssistantMessage): LlmUsage {
  const usage = message.usage ?? {};
  return {
    inputTokens: usage.input ?? 0,
    outputTokens: usage.output ?? 0,
    cacheReadTokens: usage.cacheRead ?? 0,
    cacheWriteTokens: usage.cacheWrite ?? 0,
  };
}

/** The events of one answer, in the order `LlmClient.stream` promises them. */
export function eventsOfAnswer(message: PiAssistantMessage): LlmStreamEvent[] {
  if (message.stopReason === "error" || message.stopReason === "aborted") {
    return [
      {
        type: "error",
        error: {
          kind: message.stopReason === "aborted" ? "aborted" : "other",
          retryable: false,
          message: message.errorMessage ?? `the model's answer ended with ${message.stopReason}`,
        },
      },
    ];
  }
  const events: LlmStreamEvent[] = [];
  for (const block of message.content) {
    if (block.type === "text" && block.text !== "") events.push({ type: "text-delta", text: block.text });
    else if (block.type === "toolCall")
      events.push({ type: "tool-call", id: block.id, name: block.name, arguments: block.arguments ?? {} });
  }
  const finishReason =
    message.stopReason === "toolUse" ? "tool-calls" : message.stopReason === "length" ? "length" : "stop";
  events.push({ type: "message-end", finishReason, usage: usageOf(message) });
  return events;
}

/** A decision client over `model`, called with pi's `complete` and pi's auth for it. */
export function createPiDecisionClient(
  complete: PiComplete,
  model: PiModel,
  auth: { readonly apiKey?: string; readonly headers?: Record<string, string> },
): LlmClient {
  return {
    modelId: `${model.provider}/${model.id}`,
    async *stream(request: LlmRequest, options: StreamOptions = {}): AsyncIterable<LlmStreamEvent> {
      const text = request.messages
        .flatMap((message) => message.parts)
        .map((part) => (part.type === "text" ? part.text : ""))
        .join("\n");
      const forced = request.toolChoice?.type === "tool" ? request.toolChoice.name : undefined;
      const toolChoice = forced === undefined ? undefined : forcedToolChoice(model.api, forced);
      let message: PiAssistantMessage;
      try {
        message = await complete(
          model,
          {
            ...(request.system === undefined ? {} : { systemPrompt: request.system }),
            messages: [{ role: "user", content: [{ type: "text", text }], timestamp: Date.now() }],
            tools: request.tools.map((tool) => ({
              name: tool.name,
              description: tool.description ?? "",
              parameters: tool.parameters,
            })),
          },
          {
            ...(auth.apiKey === undefined ? {} : { apiKey: auth.apiKey }),
            ...(auth.headers === undefined ? {} : { headers: auth.headers }),
            ...(options.signal === undefined ? {} : { signal: options.signal }),
            ...(request.maxOutputTokens === undefined ? {} : { maxTokens: request.maxOutputTokens }),
            ...(toolChoice === undefined ? {} : { toolChoice }),
          },
        );
      } catch (error) {
        yield {
          type: "error",
          error: { kind: "other", retryable: false, message: (error as Error).message },
        };
        return;
      }
      yield* eventsOfAnswer(message);
    },
  };
}
