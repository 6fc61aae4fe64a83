/**
 * What compactions would do to the context of the next request (compaction/core/advisor/next-request.ts),
 * where a person decides whether to compact: the dry run, the review's confirmation and the
 * `compact` tool's approval. One measure of the next request (its model, window, reasoning rule,
 * system prompt and tools) applied to the conversation as it is and with the compactions added.
 */
import type { ContextWindow } from "../compaction/core/advisor/context-gauge.js";
import { contextOfNextRequest, type NextRequestContext } from "../compaction/core/advisor/next-request.js";
import type { ConfigTable } from "../core/config.js";
import type { Compaction, ConversationEvent } from "../core/conversation/events.js";
import type { TokenCounter } from "../core/conversation/tokens.js";
import {
  nextTurnModel,
  overheadCounter,
  type RequestOverhead,
  resolveNextRequestModel,
} from "../compaction/context-window.js";
import { conversationOverhead } from "./request-overhead.js";

type Env = Readonly<Record<string, string | undefined>>;

/** The context of the next request before and after compactions. */
export interface CompactionEffect {
  readonly before: NextRequestContext;
  readonly after: NextRequestContext;
  readonly window: ContextWindow;
  readonly modelId: string | undefined;
}

/** Measures the next request of a conversation the same way each time (see `measureNextRequest`). */
export type NextRequestMeasure = (events: readonly ConversationEvent[]) => NextRequestContext;

/**
 * The one measure of the next request of a conversation: its model (`modelId`, else the one the
 * next turn would use), and the system prompt and tools `cxc q` sends (`overhead`, else the
 * conversation's).
 */
export async function measureNextRequest(
  events: readonly ConversationEvent[],
  options: {
    readonly config: ConfigTable;
    readonly env: Env;
    readonly countTokens: TokenCounter;
    readonly modelId?: string;
    readonly overhead?: RequestOverhead;
  },
): Promise<{ measure: NextRequestMeasure; window: ContextWindow; modelId: string | undefined }> {
  const modelId = options.modelId ?? (await nextTurnModel(events, options.config, options.env));
  const model = await resolveNextRequestModel(modelId, options.config, options.env);
  const overhead = options.overhead ?? (await conversationOverhead(events, options.config, options.env));
  const counted = overheadCounter(overhead, options.countTokens);
  const measure: NextRequestMeasure = (list) =>
    contextOfNextRequest(list, {
      countTokens: options.countTokens,
      overhead: counted,
      dropsEarlierReasoning: model.dropsEarlierReasoning,
    });
  return { measure, window: model.window, modelId };
}

/** The effect of appending `compactions` (in force or deferred to the next turn) to `events`. */
export function compactionEffect(
  measure: NextRequestMeasure,
  events: readonly ConversationEvent[],
  compactions: readonly Compaction[],
): Pick<CompactionEffect, "before" | "after"> {
  return { before: measure(events), after: measure([...events, ...compactions]) };
}
