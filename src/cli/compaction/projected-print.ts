/**
 * The projected views of `cxc conversation print`: `--compacted` (what the model sees, with headers
 * in raw turn numbers: `turn 7`, `turns 2..5 (summary)`) and `--format anthropic|openai|responses|gemini` (the same
 * view as a ready request body: system, messages, tools), so other programs can use cxc as a
 * compaction filter.
 *
 * Turn selection (`--first/--last/--turn`) resolves against RAW turn numbers before projection;
 * a projected turn is shown when the raw turns it stands for overlap the selection (docs/compaction.md, "Other commands").
 */
import { type ConfigTable, lookupConfig } from "../../core/config.js";
import type { RecordedSettings } from "../../core/conversation/settings.js";
import { configuredAssistantModel } from "../../compaction/core/summary/summarizer.js";
import type { ConversationEvent, NativeSummary } from "../../core/conversation/events.js";
import { NATIVE_SUMMARY_KEY } from "../../core/provider-keys.js";
import { describeSpan, describeTurnRange } from "../../core/present/labels.js";
import {
  type CycleSummaryOrigin,
  originOverlaps,
  type ProjectedTurn,
  projectConversation,
} from "../../core/conversation/projection.js";
import {
  analyzeRecall,
  placeRecallIndex,
  type RecallIndexPlacement,
} from "../../core/conversation/recall.js";
import { buildLlmRequest, type ToolDefinition } from "../../core/conversation/request.js";
import { isReviewConversation, modelsWithoutTools, querySettingsOfRecall } from "../../query/recall.js";
import { RECALL_ARGUMENTS, RECALL_DESCRIPTION, RECALL_TOOL_NAME, recallOptions } from "../../tools/recall.js";
import type { TranscriptTurn } from "../render/transcript.js";
import type { ResolvedTurns } from "../render/turn-selection.js";
import { toAnthropicRequest } from "../../llm/anthropic-request.js";
import { toGeminiRequest } from "../../llm/google-request.js";
import { isReasoningModel } from "../../llm/models.js";
import { toResponsesRequest } from "../../llm/responses-request.js";
import { toOpenAIRequest } from "../../llm/openai-request.js";

/** The projected turns whose raw origin overlaps the selection (`end` exclusive, 0-based). */
export function selectProjectedTurns(
  events: readonly ConversationEvent[],
  selection: ResolvedTurns,
): ProjectedTurn[] {
  if (selection.end <= selection.start) return [];
  return projectConversation(events).turns.filter((turn) =>
    originOverlaps(turn.origin, selection.start, selection.end - 1),
  );
}

/** `cycles 1..6` (1-based) of a summary standing inside a turn; `cycle 3` for one. */
function describeCycles(summary: CycleSummaryOrigin): string {
  if (summary.from.turn !== summary.to.turn) return describeSpan(summary);
  const first = Math.max(summary.from.cycle, 0) + 1;
  const last = summary.to.cycle + 1;
  return first === last ? `cycle ${first}` : `cycles ${first}..${last}`;
}

/**
 * Transcript blocks of projected turns, headed by the raw turn numbers they stand for; a turn with
 * summaries inside it says which cycles they replaced (`turn 4 (cycles 1..37 summarized)`). The
 * `pinned` messages kept in place are marked.
 */
export function buildProjectedTranscript(
  turns: readonly ProjectedTurn[],
  pinned: ReadonlySet<string> = new Set(),
): TranscriptTurn[] {
  const marks = pinned.size === 0 ? {} : { pinned };
  return turns.map((turn) => {
    if (turn.origin.kind === "kept") {
      const summaries = turn.cycleSummaries ?? [];
      const cycles = summaries.map((summary) => describeCycles(summary));
      return {
        header: `turn ${turn.origin.turn + 1}${cycles.length === 0 ? "" : ` (${cycles.join(", ")} summarized)`}`,
        turnNumbers: [turn.origin.turn + 1],
        events: turn.events,
        ...marks,
        origin: {
          kind: "turn",
          summarizedCycles: summaries.map((summary) => ({
            fromTurn: summary.from.turn + 1,
            fromCycle: Math.max(summary.from.cycle, 0) + 1,
            toTurn: summary.to.turn + 1,
            toCycle: summary.to.cycle + 1,
            compactionId: summary.compactionId,
          })),
        },
        ...(summaries.length === 0
          ? {}
          : {
              summaryTags: new Map(
                summaries.map((summary, index) => [summary.eventId, `summary of ${cycles[index]}`]),
              ),
            }),
      };
    }
    const numbers: number[] = [];
    for (let raw = turn.origin.from; raw <= turn.origin.to; raw++) numbers.push(raw + 1);
    const header = `${describeTurnRange(turn.origin.from + 1, turn.origin.to + 1)} (${describeSummaryKind(turn)})`;
    return {
      header,
      turnNumbers: numbers,
      events: turn.events,
      origin: { kind: "summary", compactionId: turn.origin.compactionId },
    };
  });
}

/**
 * What a summary turn's header calls it: `summary`, or a provider's own summary standing for its
 * range, with what writing it cost (`native summary by anthropic/claude-opus-4-6, 1200 input and
 * 300 output tokens`; Codex's `encrypted compaction by <model>`).
 */
function describeSummaryKind(turn: ProjectedTurn): string {
  const response = turn.events.find((event) => event.type === "chat_response");
  const native = response?.metadata?.[NATIVE_SUMMARY_KEY] as NativeSummary | undefined;
  if (native === undefined) return "summary";
  if (native.format === "openai-compaction") return `encrypted compaction by ${native.model}`;
  const usage = native.usage;
  const cost =
    usage === undefined ? "" : `, ${usage.input_tokens} input and ${usage.output_tokens} output tokens`;
  return `native summary by ${native.model}${cost}`;
}

/** Recall as `cxc q` sends it: the `recall` tool, and the index where it stands (none when nothing is hidden). */
export interface PrintedRecall {
  readonly tool: ToolDefinition;
  readonly placement?: RecallIndexPlacement;
}

/**
 * Recall for a printed view of `events` as `cxc q` would send it, or undefined where `q` sends none
 * (`conversation.recall.enabled = false`, a compaction review, a model that refused tools).
 */
export function printedRecall(
  events: readonly ConversationEvent[],
  config: ConfigTable,
): PrintedRecall | undefined {
  const settings = querySettingsOfRecall(config);
  if (!settings.enabled || isReviewConversation(events) || modelsWithoutTools(events).size > 0)
    return undefined;
  const placement = placeRecallIndex(analyzeRecall(events, recallOptions(settings)));
  const tool = {
    name: RECALL_TOOL_NAME,
    description: RECALL_DESCRIPTION,
    parameters: RECALL_ARGUMENTS.schema,
  };
  return placement === undefined ? { tool } : { tool, placement };
}

/**
 * Which wire format a request body is printed in (`responses`: OpenAI's Responses API; `gemini`:
 * Google's generateContent).
 */
export type WireFormat = "anthropic" | "openai" | "responses" | "gemini";

const DEFAULT_WIRE_MODELS: Readonly<Record<WireFormat, string>> = {
  anthropic: "claude-sonnet-4-6",
  openai: "gpt-5",
  responses: "gpt-5",
  gemini: "gemini-2.5-pro",
};

const WIRE_PROVIDERS: Readonly<Record<WireFormat, string>> = {
  anthropic: "anthropic",
  openai: "openai",
  responses: "openai",
  gemini: "google",
};

/**
 * The model named in the body: the conversation's own model (the one it last ran on, or the one
 * jp recorded for it), else the configured assistant model, when it belongs to that wire API's
 * provider; else the provider's default. The body is meant to be edited or forwarded, so the
 * model is a convenience, never a check.
 */
function wireModel(config: ConfigTable, format: WireFormat, recorded: RecordedSettings): string {
  const provider = WIRE_PROVIDERS[format];
  for (const candidate of [recorded.model, configuredAssistantModel(config)]) {
    if (candidate?.startsWith(`${provider}/`)) return candidate.slice(provider.length + 1);
  }
  return DEFAULT_WIRE_MODELS[format];
}

/**
 * The projected turns as a Messages, Chat Completions, Responses or generateContent request body,
 * ready for JSON.stringify. Gemini's body names no model (the model is in the URL).
 * The system prompt is the conversation's own (an imported jp conversation's), else
 * `assistant.instructions`.
 */
export async function buildRequestBody(
  turns: readonly ProjectedTurn[],
  format: WireFormat,
  config: ConfigTable,
  recorded: RecordedSettings = { jpTools: [] },
  recall?: PrintedRecall,
): Promise<Record<string, unknown>> {
  const instructions = lookupConfig(config, "assistant.instructions");
  const system = recorded.system ?? (typeof instructions === "string" ? instructions : undefined);
  const request = buildLlmRequest(turns, {
    ...(system === undefined ? {} : { system }),
    ...(recall === undefined ? {} : { tools: [recall.tool] }),
    ...(recall?.placement === undefined ? {} : { recallIndex: recall.placement }),
  });
  const model = wireModel(config, format, recorded);
  if (format === "anthropic") {
    return toAnthropicRequest(request, model) as unknown as Record<string, unknown>;
  }
  if (format === "gemini") {
    const reasoning = isReasoningModel({ provider: "google", model });
    return toGeminiRequest(request, { reasoning }) as unknown as Record<string, unknown>;
  }
  if (format === "responses") {
    const reasoning = isReasoningModel({ provider: "openai", model });
    const body = toResponsesRequest(request, model, { modelId: `openai/${model}`, reasoning });
    return body as unknown as Record<string, unknown>;
  }
  return toOpenAIRequest(request, model) as unknown as Record<string, unknown>;
}
