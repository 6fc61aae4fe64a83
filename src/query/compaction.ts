/**
 * Compaction in `cxc q`, the turn's adapter to the compaction slice (src/compaction/):
 *
 * - `q -k[=SPEC]` compacts before the turn, so the new turn is never in range: the `-k` flags are
 *   read like every surface's (`ruleFlags`), a bare `-k` stands for the configured rules, and the
 *   one compaction step appends under the turn's lock (the caller holds it from before this until
 *   the turn ends);
 * - what compactions would do to the context of the next request (compaction/core/advisor/next-request.ts),
 *   measured with the system prompt and tools `cxc q` sends, and what they cost with the prompt
 *   cache (compaction/core/advisor/cache-cost.ts): the dry run, the review's confirmation and the
 *   `compact` tool's approval.
 */
import type { ContextWindow } from "../compaction/core/advisor/context-gauge.js";
import {
  type CompactionCost,
  compactionCost,
  describeCompactionCost,
} from "../compaction/core/advisor/cache-cost.js";
import { describeContextChange } from "../compaction/core/advisor/context-gauge.js";
import {
  contextOfNextRequest,
  type NextRequestContext,
  unchangedPrefix,
} from "../compaction/core/advisor/next-request.js";
import { prepare } from "../compaction/core/prepare.js";
import type { ExplicitRules } from "../compaction/core/request.js";
import { compact } from "../compaction/compact.js";
import {
  nextTurnModel,
  overheadCounter,
  type RequestOverhead,
  resolveNextRequestModel,
} from "../compaction/context-window.js";
import { type CompactionEnvironment, ruleFlags } from "../compaction/environment.js";
import type { ConfigTable } from "../core/config.js";
import type { Compaction, ConversationEvent } from "../core/conversation/events.js";
import type { TokenCounter } from "../core/conversation/tokens.js";
import type { LockedConversation } from "../store/index.js";
import { conversationOverhead } from "./request-overhead.js";

/** One `-k` occurrence: `true` for a bare `-k`, else its SPEC text. */
export type CompactFlag = true | string;

/** The `-k` flags as rules; a bad SPEC is a usage error (worded as every surface words it). */
export function readCompactFlags(flags: readonly CompactFlag[]): ExplicitRules {
  return ruleFlags({ compact: flags.map((flag) => (flag === true ? "" : flag)) });
}

/** Compacts the conversation of the turn with the `-k` rules; returns the line to show. */
export async function compactBeforeTurn(
  conversation: LockedConversation,
  rules: ExplicitRules,
  environment: CompactionEnvironment,
  signal?: AbortSignal,
  native = false,
): Promise<string> {
  const loaded = conversation.load();
  const request = environment.rules(rules, native ? { native: true } : {});
  const preparation = prepare(loaded.events, request, environment.settings(loaded.meta));
  const report = await compact(preparation, environment, {
    into: conversation,
    ...(signal ? { signal } : {}),
  });
  return report.kind === "nothing" ? report.message : `Compacted ${report.ranges} before this turn.`;
}

type Env = Readonly<Record<string, string | undefined>>;

/** The context of the next request before and after compactions. */
export interface CompactionEffect {
  readonly before: NextRequestContext;
  readonly after: NextRequestContext;
  /** With the prompt cache: saved a request, rewritten once, the payback (cache-cost.ts). */
  readonly cost: CompactionCost;
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
): Promise<{
  measure: NextRequestMeasure;
  effect: CompactionEffectMeasure;
  window: ContextWindow;
  modelId: string | undefined;
}> {
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
  const effect: CompactionEffectMeasure = (list, compactions) => {
    const changed = [...list, ...compactions];
    const before = measure(list);
    const after = measure(changed);
    const prefix = unchangedPrefix(list, changed, before, {
      countTokens: options.countTokens,
      dropsEarlierReasoning: model.dropsEarlierReasoning,
    });
    return { before, after, cost: compactionCost(before, after, prefix, model.prices) };
  };
  return { measure, effect, window: model.window, modelId };
}

/** The context of the next request before and after compactions, and what they cost with the cache. */
export type CompactionEffectMeasure = (
  events: readonly ConversationEvent[],
  compactions: readonly Compaction[],
) => Pick<CompactionEffect, "before" | "after" | "cost">;

/** The lines a user decides by: the context of the next request before and after, and the cost. */
export function describeCompactionEffect(
  effect: Pick<CompactionEffect, "before" | "after" | "cost">,
): string {
  return `${describeContextChange(effect.before, effect.after)}\n${describeCompactionCost(effect.cost)}`;
}
