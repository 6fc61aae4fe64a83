/**
 * The summarizer port, the one rule that picks a summarizer, and the fallback setting. Pure.
 *
 * A summarizer turns the RAW turns of a range into a summary text: a model (src/compaction/model-summarizer.ts
 * implements the port over a provider client) or `builtin/digest` (digest.ts, offline and
 * deterministic). Every caller that makes a summary (`compact`, `fork -k`, `q -k`, automatic
 * compaction, the draft of a review) picks it with `chooseSummarizer` and, when a model fails,
 * follows the one `conversation.compaction.summary.fallback` setting. See docs/compaction.md and
 * docs/decisions/005-one-compaction-pipeline.md.
 */
import { readModelId } from "../../../core/interop/jp-config.js";
import type { ProviderUsage } from "../../../core/conversation/tokens.js";
import { type ConfigTable, lookupConfig } from "../../../core/config.js";
import { type CycleRange, HEAD, selectRange } from "../../../core/conversation/cycles.js";
import { DIGEST_RECIPE, digestTurns } from "./digest.js";
import type { SummaryRule } from "../rules.js";
import type { Turn } from "../../../core/conversation/turns.js";

/** What a summarizer is asked to summarize. */
export interface SummaryInput {
  /** The turns of the conversation, raw (turn indices as stored); the range selects from them. */
  readonly turns: readonly Turn[];
  /**
   * 0-based, inclusive raw turn indices, and for a summary standing inside a turn its first and
   * last cycle (docs/decisions/006-tool-cycle-bounds.md).
   */
  readonly range: CycleRange;
  /** The rule's summary settings (instructions, context, model parameters). */
  readonly rule: SummaryRule;
  /**
   * The facts block cxc will put after the summary, exactly (compaction/core/keeping.ts): a model
   * is shown it, so it spends its words on what the block cannot hold.
   */
  readonly facts?: string;
  readonly signal?: AbortSignal;
  /** Told the output tokens received so far, for progress (models only). */
  readonly onTokens?: (tokens: number) => void;
}

/** A summary text, or why there is none (the reason names no model: the caller does). */
export type SummaryOutcome =
  | {
      readonly ok: true;
      readonly text: string;
      /** What the summary's request reported (a model's; the digest costs nothing). */
      readonly usage?: ProviderUsage;
    }
  | { readonly ok: false; readonly reason: string; readonly aborted?: boolean };

/** The port: a model or the digest. */
export interface Summarizer {
  /** The recipe recorded on the summary: a model id, or `builtin/digest`. */
  readonly id: string;
  summarize(input: SummaryInput): Promise<SummaryOutcome>;
}

/** `builtin/digest` as a summarizer. */
export const digestSummarizer: Summarizer = {
  id: DIGEST_RECIPE,
  summarize: (input) =>
    Promise.resolve({
      ok: true,
      text: digestTurns(input.turns, input.range),
    }),
};

/** What a model summarizer reads for a range (see `summaryTurns`). */
export interface SummaryTurns {
  /** Raw turns, only the events the model is shown. */
  readonly turns: readonly Turn[];
  /**
   * True when the range starts inside a turn: the turn's user message is shown first for context
   * and stays in the conversation, so the summary must cover only the steps after it.
   */
  readonly inTurn: boolean;
}

/**
 * The raw events a model summarizes: the turns of the range, only the covered cycles of a turn
 * the range starts or ends inside. A range that starts inside a turn leaves the turn's head (its
 * user message) in the conversation, so the head is shown before the cycles: the model learns what
 * the steps were for, and the request starts with the user as every provider requires.
 */
export function summaryTurns(turns: readonly Turn[], range: CycleRange): SummaryTurns {
  const selected = selectRange(turns, range);
  if (range.fromCycle === undefined) return { turns: selected, inTurn: false };
  const head = selectRange(turns, { from: range.from, to: range.from, toCycle: HEAD });
  const first = selected[0];
  const headEvents = head[0]?.events ?? [];
  if (first === undefined || first.index !== range.from) {
    return { turns: [...head, ...selected], inTurn: true };
  }
  return {
    turns: [{ index: first.index, events: [...headEvents, ...first.events] }, ...selected.slice(1)],
    inTurn: true,
  };
}

/** Which summarizer a rule uses, and why. */
export type SummarizerChoice =
  | { readonly kind: "digest"; readonly why: "named" | "no-model" }
  | { readonly kind: "model"; readonly id: string; readonly why: "rule" | "assistant" };

/**
 * The one rule: the rule's `summary.model.id` (which `compact -m` rewrites); else the assistant
 * model the user chose (`assistantModel`: configured as `assistant.model.id`, or named with `-m`);
 * else `builtin/digest`. An API key in the environment is never a choice of summary model.
 */
export function chooseSummarizer(rule: SummaryRule, assistantModel: string | undefined): SummarizerChoice {
  const named = rule.model?.id?.trim();
  if (named !== undefined && named !== "") {
    return named === DIGEST_RECIPE
      ? { kind: "digest", why: "named" }
      : { kind: "model", id: named, why: "rule" };
  }
  const assistant = assistantModel?.trim();
  if (assistant === undefined || assistant === "") return { kind: "digest", why: "no-model" };
  return assistant === DIGEST_RECIPE
    ? { kind: "digest", why: "named" }
    : { kind: "model", id: assistant, why: "assistant" };
}

/** `assistant.model.id` when it is configured (any layer: files, `CXC_ASSISTANT__MODEL__ID`, `-c`). */
export function configuredAssistantModel(config: ConfigTable): string | undefined {
  // `provider/name`, an alias, or jp's `{ provider, name }` table.
  return readModelId(lookupConfig(config, "assistant.model.id"));
}

/** What happens when a summary model fails: summarize with the digest instead, or apply nothing. */
export type SummaryFallback = "digest" | "abort";

/** The configuration key of the fallback setting. */
export const SUMMARY_FALLBACK_KEY = "conversation.compaction.summary.fallback";

/**
 * Reads the fallback setting; a value other than `digest` or `abort` is a message, and no value is
 * `undefined`, for `fallbackFor` to decide.
 */
export function readSummaryFallback(
  config: ConfigTable,
):
  | { readonly ok: true; readonly value: SummaryFallback | undefined }
  | { readonly ok: false; readonly message: string } {
  const value = lookupConfig(config, SUMMARY_FALLBACK_KEY);
  if (value === undefined) return { ok: true, value: undefined };
  if (value === "digest" || value === "abort") return { ok: true, value };
  return {
    ok: false,
    message: `${SUMMARY_FALLBACK_KEY} must be "digest" or "abort", not ${JSON.stringify(value)}`,
  };
}

/**
 * What a failed model leads to when the setting says nothing. A summary the user asked a model for
 * (`compact -m`, a rule's `summary.model`) applies nothing rather than quietly becoming a digest,
 * as jp fails; an unattended compaction (automatic, inside `q`, where nobody is there to decide)
 * and a summary by the assistant model fall back to the digest, and say so. The setting, when set,
 * decides for all of them.
 */
export function fallbackFor(
  setting: SummaryFallback | undefined,
  choice: SummarizerChoice,
  unattended: boolean,
): SummaryFallback {
  if (setting !== undefined) return setting;
  if (unattended) return "digest";
  return choice.kind === "model" && choice.why === "rule" ? "abort" : "digest";
}
