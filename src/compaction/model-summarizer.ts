/**
 * Summarizing a range of raw turns with a model, for `summary` compactions.
 *
 * The raw turn events go through the same request builder as a normal query (native tool calls
 * and results, signed reasoning as thinking), never flattened to a transcript. The system prompt
 * is the rule's instructions or the default below; no tools are offered. A final user message asks
 * for the summary. The text is accepted only when the response finished normally and is not empty:
 * partial text from a truncated, refused or failed response is never returned.
 */
import type { ChatRequest, TurnEvent } from "../core/conversation/events.js";
import { buildLlmRequest } from "../core/conversation/request.js";
import { type Summarizer, summaryTurns } from "./core/summary/summarizer.js";
import type { LlmClient, LlmError, LlmStreamEvent, LlmUsage } from "../llm/types.js";

/** The default system prompt of the summarizer. */
export const DEFAULT_SUMMARY_INSTRUCTIONS = [
  "You are summarizing the conversation above so that it can continue without it.",
  "Your summary will replace those messages entirely: whoever reads it next will not see the originals,",
  "so it has to make sense on its own.",
  "",
  "Keep, precisely:",
  "1. every file path, and the code structures (modules, functions, types) that were discussed;",
  "2. the decisions that were made, and why they were made;",
  "3. the errors that came up, and how each was fixed (or that it is still open);",
  "4. where the work stands now, and what the next steps are;",
  "5. the constraints and requirements that were agreed on.",
  "",
  "Be brief where you can and complete where it matters: someone who never saw the original",
  "messages must be able to pick the conversation up from your summary alone.",
].join("\n");

/**
 * Added to the system prompt when cxc puts a facts block after the summary (the rule's own
 * instructions included), followed by the block itself.
 */
export const FACTS_NOTICE = [
  "cxc puts the block below after your summary, exactly as it is: the files read and modified and",
  "the user's instructions, verbatim. Do not repeat what it lists; spend your words on what it",
  "cannot hold: what was decided and why, the names in the code and the numbers that matter, the",
  "errors and their fixes, where the work stands and what comes next.",
].join("\n");

/** The system prompt: the instructions, then the facts notice and block when there is one. */
export function summarySystemPrompt(instructions: string | undefined, facts: string | undefined): string {
  const base = instructions ?? DEFAULT_SUMMARY_INSTRUCTIONS;
  return facts === undefined || facts === ""
    ? base
    : `${base}\n\n${FACTS_NOTICE}\n\n<facts>\n${facts}\n</facts>`;
}

/** The request that asks for the summary. */
export const SUMMARY_REQUEST = "Summarize the conversation above.";

/**
 * The request for a summary that stands inside a turn (docs/compaction.md, "Inside a turn"): the
 * user's message that opened the turn stays, the summary replaces only the steps after it.
 */
export const IN_TURN_SUMMARY_REQUEST =
  "Summarize the steps above that follow my first message. That message stays in the conversation " +
  "and your summary replaces only the steps after it, so do not restate it.";

/** Output guard: a summary larger than this fails (jp's `max_response_bytes` default). */
export const DEFAULT_MAX_SUMMARY_BYTES = 1_048_576;

/** Input of `summarizeWithModel`. */
export interface SummarizeOptions {
  /** The raw (unprojected) turns to summarize, in order. */
  readonly rawTurns: readonly { readonly events: readonly TurnEvent[] }[];
  /** Replaces the default system prompt. */
  readonly instructions?: string;
  /** The facts block cxc puts after the summary (`summarySystemPrompt`). */
  readonly facts?: string;
  /** Focus appended to the request as `Additional context: …` when not blank. */
  readonly context?: string;
  /** True when the summary stands inside a turn (`IN_TURN_SUMMARY_REQUEST`). */
  readonly inTurn?: boolean;
  /** The model id, for messages. */
  readonly model: string;
  readonly maxOutputTokens?: number;
  readonly maxResponseBytes?: number;
  readonly signal?: AbortSignal;
}

/** The outcome: the summary text, or why there is none. */
export type SummarizeResult =
  | { readonly ok: true; readonly text: string; readonly usage: LlmUsage }
  | {
      readonly ok: false;
      /** jp's reason text, e.g. `the model returned an empty response`. */
      readonly reason: string;
      /** `Summarization failed for <model>: <reason>`. */
      readonly message: string;
      /** Set when the provider call itself failed. */
      readonly error?: LlmError;
    };

/** The final user message, with the optional context. */
export function buildSummaryRequestText(context?: string, inTurn = false): string {
  const request = inTurn ? IN_TURN_SUMMARY_REQUEST : SUMMARY_REQUEST;
  const trimmed = context?.trim() ?? "";
  return trimmed.length === 0 ? request : `${request}\n\nAdditional context: ${trimmed}`;
}

/** Asks the client for a summary of the raw turns. Never throws for provider failures. */
export async function summarizeWithModel(
  client: LlmClient,
  options: SummarizeOptions,
): Promise<SummarizeResult> {
  const finalRequest: ChatRequest = {
    type: "chat_request",
    id: "summary-request",
    ts: "",
    content: buildSummaryRequestText(options.context, options.inTurn === true),
  };
  const request = buildLlmRequest([...options.rawTurns, { events: [finalRequest] }], {
    system: summarySystemPrompt(options.instructions, options.facts),
    ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
  });
  const fail = (reason: string, error?: LlmError): SummarizeResult => ({
    ok: false,
    reason,
    message: `Summarization failed for ${options.model}: ${reason}`,
    ...(error === undefined ? {} : { error }),
  });
  const limit = options.maxResponseBytes ?? DEFAULT_MAX_SUMMARY_BYTES;
  let text = "";
  for await (const event of client.stream(request, options.signal ? { signal: options.signal } : {})) {
    if (event.type === "text-delta") {
      text += event.text;
      if (limit > 0 && Buffer.byteLength(text, "utf8") > limit) {
        return fail(`the summary exceeded the output limit of ${limit} bytes`);
      }
    } else if (event.type === "error") {
      return fail(event.error.message, event.error);
    } else if (event.type === "message-end") {
      const reason = rejectionReason(event.finishReason, event.providerReason, text);
      return reason === undefined ? { ok: true, text, usage: event.usage } : fail(reason);
    }
  }
  return fail("the model returned an empty response");
}

function rejectionReason(
  finishReason: string,
  providerReason: string | undefined,
  text: string,
): string | undefined {
  switch (finishReason) {
    case "stop":
      return text.length === 0 ? "the model returned an empty response" : undefined;
    case "length":
      return "the model hit its max output token limit, so any summary it produced would be truncated";
    case "refusal":
      return "the model declined to summarize this conversation";
    default:
      return `the model stopped early (${providerReason ?? finishReason}), so any summary it produced is incomplete`;
  }
}

/**
 * A model as a summarizer (the port in compaction/core/summary/summarizer.ts): the rule's instructions, context and
 * `summary.model.parameters.max_tokens` go into the request; the range's raw events are selected
 * from the input's turns (`summaryTurns`: inside a turn, its user message first). Progress counts the provider's output tokens, or about four characters a
 * token until the provider reports usage.
 */
export function modelSummarizer(client: LlmClient): Summarizer {
  return {
    id: client.modelId,
    async summarize(input) {
      const shown = summaryTurns(input.turns, input.range);
      const maxTokens = input.rule.model?.parameters?.max_tokens;
      const result = await summarizeWithModel(observeTokens(client, input.onTokens), {
        rawTurns: shown.turns,
        model: client.modelId,
        ...(shown.inTurn ? { inTurn: true } : {}),
        ...(input.rule.instructions === undefined ? {} : { instructions: input.rule.instructions }),
        ...(input.rule.context === undefined ? {} : { context: input.rule.context }),
        ...(input.facts === undefined ? {} : { facts: input.facts }),
        ...(typeof maxTokens === "number" ? { maxOutputTokens: maxTokens } : {}),
        ...(input.signal === undefined ? {} : { signal: input.signal }),
      });
      if (result.ok) {
        const { usage } = result;
        return {
          ok: true,
          text: result.text,
          usage: {
            input_tokens: usage.inputTokens,
            output_tokens: usage.outputTokens,
            cache_read_input_tokens: usage.cacheReadTokens,
            cache_creation_input_tokens: usage.cacheWriteTokens,
            ...(usage.reasoningTokens === undefined ? {} : { reasoning_tokens: usage.reasoningTokens }),
          },
        };
      }
      return {
        ok: false,
        reason: result.reason,
        ...(result.error?.kind === "aborted" ? { aborted: true } : {}),
      };
    },
  };
}

function observeTokens(client: LlmClient, onTokens: ((tokens: number) => void) | undefined): LlmClient {
  if (onTokens === undefined) return client;
  let received = 0;
  return {
    modelId: client.modelId,
    stream: (request, options) =>
      observeStream(client.stream(request, options), (event) => {
        if (event.type === "usage" && event.usage.outputTokens > 0) onTokens(event.usage.outputTokens);
        else if (event.type === "text-delta") {
          received += event.text.length;
          onTokens(Math.ceil(received / 4));
        }
      }),
  };
}

async function* observeStream(
  stream: AsyncIterable<LlmStreamEvent>,
  onEvent: (event: LlmStreamEvent) => void,
): AsyncIterable<LlmStreamEvent> {
  for await (const event of stream) {
    onEvent(event);
    yield event;
  }
}
