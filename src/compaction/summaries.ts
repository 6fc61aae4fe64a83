/**
 * Writing the summaries a compaction plan asks for, for every caller of the compaction pipeline
 * (apply.ts): the one summarizer rule, the fallback setting, the context-window rule, the summary
 * check and the private copy. See docs/compaction.md ("Summaries") and
 * docs/decisions/005-one-compaction-pipeline.md.
 *
 * - Each summary is written from the RAW turns of the snapshot by the summarizer
 *   `chooseSummarizer` picks (compaction/core/summary/summarizer.ts): the rule's model, else the assistant
 *   model the user chose, else `builtin/digest`.
 * - The documented exception to the raw-turns rule: when the raw turns of a range do not fit the
 *   summary model's window (80 % of it, the rest is room for the answer), the model reads the range
 *   as the view shows it, earlier summaries in place of their turns.
 * - A model that fails follows `conversation.compaction.summary.fallback`: `digest` summarizes
 *   with the digest instead and says so on stderr, and the event records `recipe = builtin/digest`;
 *   `abort` throws `summary-failed` and nothing is applied. Unset, a model the user asked for
 *   (`compact -m`, a rule's model) aborts, and an unattended compaction or the assistant model
 *   falls back (`fallbackFor`).
 */
import type { SummaryRule } from "./core/rules.js";
import type { ConfigTable } from "../core/config.js";
import type { CycleRange } from "../core/conversation/cycles.js";
import type { ConversationEvent, SummaryPolicy } from "../core/conversation/events.js";
import { projectConversation } from "../core/conversation/projection.js";
import { type ProviderUsage, summarizeTokens, type TokenCounter } from "../core/conversation/tokens.js";
import { groupTurns, type Turn } from "../core/conversation/turns.js";
import { describeRange, rangeSlug } from "../core/present/labels.js";
import { checkSummary, type SummaryLosses } from "./core/summary/check.js";
import { DIGEST_RECIPE } from "./core/summary/digest.js";
import {
  chooseSummarizer,
  configuredAssistantModel,
  fallbackFor,
  type SummarizerChoice,
  digestSummarizer,
  readSummaryFallback,
  SUMMARY_FALLBACK_KEY,
  type Summarizer,
  type SummaryFallback,
  type SummaryOutcome,
} from "./core/summary/summarizer.js";
import { CxcError, errorMessage } from "../errors.js";
import { knownContextWindow } from "./context-window.js";
import { writeScratchFile } from "../store/index.js";
import { createLlmClient } from "../llm/registry.js";
import { modelSummarizer } from "./model-summarizer.js";
import { describeRetry } from "../llm/retry.js";
import { createNativeCompactor } from "../llm/registry.js";
import { MAX_COMPACTION_INSTRUCTIONS, type NativeCompactionOutcome } from "../llm/anthropic-compaction.js";
import { buildLlmRequest } from "../core/conversation/request.js";
import { nativeSummaryObstacle } from "./core/summary/native.js";
import type { RequestOverhead } from "./context-window.js";

/** A running progress indicator (the CLI's spinner). */
export interface SummaryProgress {
  setTokens(tokens: number): void;
  stop(): void;
}

/** Where the pipeline reports: stderr lines, through the caller's own prefixes. */
export interface PipelineReport {
  /** Notices: the digest used because no model is chosen. */
  info(text: string): void;
  /** Fallbacks, retries, a summary copy that could not be written. */
  warn(text: string): void;
  /** Progress while a model writes; absent: none (`q`, `fork -k`, automatic compaction). */
  progress?(label: string): SummaryProgress;
}

/** What making summaries needs. */
export interface SummaryEnvironment {
  readonly config: ConfigTable;
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * The assistant model the user chose for this run (`q -m`, the model the conversation was
   * switched to, `assistant.model.id`). Absent: `assistant.model.id` of `config`. Never a model
   * picked because an API key is set.
   */
  readonly assistantModel?: string;
  readonly signal?: AbortSignal;
  readonly report: PipelineReport;
  /** Write a private copy of each summary and name it in the result (`compact`). */
  readonly copies?: { readonly conversationId: string };
  /** List what each summary lost (`compact`). */
  readonly checkLosses?: boolean;
  /**
   * Counts tokens for the context-window rule (see the module comment); absent: a model always
   * reads the raw turns.
   */
  readonly countTokens?: TokenCounter;
  /**
   * Nobody is there to decide (automatic compaction inside `q`): a failed model falls back to the
   * digest unless the fallback setting says `abort` (compaction/core/summary/summarizer.ts, `fallbackFor`).
   */
  readonly unattended?: boolean;
  /**
   * The system prompt and tools the conversation's next turn will send: a native summary is asked
   * with them, so the kept turns' thinking stays valid and the next turn reuses the prefix.
   */
  readonly overhead?: (events: readonly ConversationEvent[]) => Promise<RequestOverhead | undefined>;
}

/** One summary made by the pipeline. */
export interface MadeSummary {
  readonly policy: SummaryPolicy;
  /** The summarizer that wrote it (the recipe): a model id or `builtin/digest`. */
  readonly summarizer: string;
  /** The model that failed, when the digest stood in for it. */
  readonly failed?: { readonly model: string; readonly reason: string };
  readonly losses?: SummaryLosses;
  /** The private copy, when asked for and written. */
  readonly path?: string;
  /** What the model's request reported (cxc's own spending; `SUMMARY_USAGE_KEY` on the event). */
  readonly usage?: ProviderUsage;
  /** A native summary's cost, from the provider's `usage.iterations`. */
  readonly nativeUsage?: { readonly inputTokens: number; readonly outputTokens: number };
}

const NO_MODEL_NOTICE =
  `No summary model is configured (summary.model.id, assistant.model.id or -m); ` +
  `summarizing with ${DIGEST_RECIPE} (offline, deterministic).`;

function fallbackSetting(config: ConfigTable): SummaryFallback | undefined {
  const read = readSummaryFallback(config);
  if (!read.ok) {
    throw new CxcError("invalid-config", read.message, {
      hint: `e.g. -c ${SUMMARY_FALLBACK_KEY}=abort (see docs/compaction.md)`,
    });
  }
  return read.value;
}

/** The client of a model as a summarizer, or why it cannot be built (a missing key). */
async function modelSummarizerFor(
  modelId: string,
  environment: SummaryEnvironment,
): Promise<Summarizer | { readonly unavailable: string }> {
  try {
    const client = createLlmClient(modelId, {
      config: environment.config,
      env: environment.env,
      // jp retries a summary's transient failures up to 3 times.
      retry: {
        maxRetries: 3,
        onRetry: (notice) => environment.report.warn(describeRetry(notice)),
      },
    });
    return modelSummarizer(client);
  } catch (error) {
    // A model that exists but cannot be reached is a failure like a provider's 401; a model id
    // that names nothing (or bad provider configuration) is the user's to fix and stays an error.
    if (CxcError.isInstance(error) && error.code === "provider-auth") return { unavailable: error.message };
    throw error;
  }
}

/** What a model did with a summary request. */
type ModelOutcome =
  | {
      readonly kind: "written";
      readonly text: string;
      readonly summarizer: string;
      readonly usage?: ProviderUsage;
    }
  | { readonly kind: "failed"; readonly model: string; readonly reason: string };

/** Asks model `modelId` for the summary; a failure is an outcome, an interrupt throws. */
async function summarizeByModel(
  modelId: string,
  input: {
    readonly turns: readonly Turn[];
    readonly range: CycleRange;
    readonly rule: SummaryRule;
    readonly facts?: string;
  },
  environment: SummaryEnvironment,
): Promise<ModelOutcome> {
  const model = await modelSummarizerFor(modelId, environment);
  if ("unavailable" in model) return { kind: "failed", model: modelId, reason: model.unavailable };
  const progress = environment.report.progress?.(
    `Generating summary of ${describeRange(input.range)} with ${model.id}`,
  );
  let outcome: SummaryOutcome;
  try {
    outcome = await model.summarize({
      ...input,
      ...(environment.signal === undefined ? {} : { signal: environment.signal }),
      ...(progress === undefined ? {} : { onTokens: (tokens: number) => progress.setTokens(tokens) }),
    });
  } finally {
    progress?.stop();
  }
  if (outcome.ok)
    return {
      kind: "written",
      text: outcome.text,
      summarizer: model.id,
      ...(outcome.usage === undefined ? {} : { usage: outcome.usage }),
    };
  if (outcome.aborted || environment.signal?.aborted) {
    throw new CxcError(
      "interrupted",
      `interrupted while summarizing ${describeRange(input.range)}; nothing was applied`,
    );
  }
  return { kind: "failed", model: model.id, reason: outcome.reason };
}

/** The fallback setting applied to a failed model: throws (`abort`) or says the digest stands in. */
function fallBack(
  failed: Extract<ModelOutcome, { kind: "failed" }>,
  range: CycleRange,
  choice: SummarizerChoice,
  environment: SummaryEnvironment,
): void {
  const reason = failed.reason.replace(/\.$/, "");
  const fallback = fallbackFor(fallbackSetting(environment.config), choice, environment.unattended === true);
  if (fallback === "abort") {
    throw new CxcError(
      "summary-failed",
      `Summarization failed for ${failed.model}: ${reason}. Nothing was compacted.`,
      {
        hint: `run again with -m ${DIGEST_RECIPE} to summarize offline, or set ${SUMMARY_FALLBACK_KEY} = "digest"`,
      },
    );
  }
  environment.report.warn(
    `summary model ${failed.model} failed (${reason}); summarized ${describeRange(range)} with ${DIGEST_RECIPE} instead`,
  );
}

/** A segment's range, its cycle bounds included. */
function rangeOf(segment: CycleRange): CycleRange {
  return {
    from: segment.from,
    to: segment.to,
    ...(segment.fromCycle === undefined ? {} : { fromCycle: segment.fromCycle }),
    ...(segment.toCycle === undefined ? {} : { toCycle: segment.toCycle }),
  };
}

/** The share of a model's window the turns it summarizes may use; the rest is room for the answer. */
const SUMMARY_SHARE_OF_WINDOW = 0.8;

/**
 * The turns a model reads for a whole-turn range: the raw turns, or, when their range does not fit
 * the model's window, the view as it is (each summary numbered by the first raw turn it stands
 * for). A range inside turns is always read raw: the view has no raw cycles to select.
 */
async function turnsForModel(
  events: readonly ConversationEvent[],
  turns: readonly Turn[],
  range: CycleRange,
  modelId: string,
  environment: SummaryEnvironment,
): Promise<readonly Turn[]> {
  if (environment.countTokens === undefined || range.fromCycle !== undefined || range.toCycle !== undefined) {
    return turns;
  }
  const window = await knownContextWindow(modelId, environment.config, environment.env);
  if (window === undefined) return turns;
  const inRange = turns.filter((turn) => turn.index >= range.from && turn.index <= range.to);
  if (summarizeTokens(inRange, environment.countTokens).total <= window * SUMMARY_SHARE_OF_WINDOW)
    return turns;
  return projectConversation(events).turns.map((turn) => ({
    index: turn.origin.kind === "kept" ? turn.origin.turn : turn.origin.from,
    events: turn.events,
  }));
}

/**
 * Writes the summary of `segment` (turns `from..to`, only its cycles `fromCycle..toCycle` for a
 * summary standing inside a turn) of `events` for a summary rule: the one summarizer rule, the
 * context-window rule, the fallback setting when the model fails, then the summary check and the
 * private copy when asked for. Throws `summary-failed` (fallback `abort`), `interrupted` (the
 * signal was aborted while a model wrote) or `invalid-config`.
 */
export async function makeSummary(
  events: readonly ConversationEvent[],
  segment: CycleRange & {
    readonly summary: SummaryRule;
    readonly facts?: string;
    /** The other summaries planned with it (a native summary must be the only one). */
    readonly alongside?: readonly CycleRange[];
  },
  environment: SummaryEnvironment,
): Promise<MadeSummary> {
  fallbackSetting(environment.config); // a bad setting is an error before any model is asked
  const turns = groupTurns(events);
  const range = rangeOf(segment);
  const rule = segment.summary;
  const choice = chooseSummarizer(
    rule,
    environment.assistantModel ?? configuredAssistantModel(environment.config),
  );
  if (rule.native === true) {
    const native = await makeNativeSummary(events, range, segment.alongside ?? [], rule, choice, environment);
    if (native !== undefined) return native;
  }
  if (choice.kind === "digest" && choice.why === "no-model") environment.report.info(NO_MODEL_NOTICE);
  const byModel =
    choice.kind === "model"
      ? await summarizeByModel(
          choice.id,
          {
            turns: await turnsForModel(events, turns, range, choice.id, environment),
            range,
            rule,
            ...(segment.facts === undefined ? {} : { facts: segment.facts }),
          },
          environment,
        )
      : undefined;
  if (byModel?.kind === "failed") fallBack(byModel, range, choice, environment);
  const written =
    byModel?.kind === "written"
      ? byModel
      : { text: await digestText(turns, range, rule), summarizer: DIGEST_RECIPE };
  const losses = environment.checkLosses ? checkSummary(turns, range, written.text) : undefined;
  const path = environment.copies === undefined ? undefined : writeCopy(environment, range, written.text);
  return {
    policy: { summary: written.text, source: "derived", recipe: written.summarizer },
    ...("usage" in written && written.usage !== undefined ? { usage: written.usage } : {}),
    summarizer: written.summarizer,
    ...(byModel?.kind === "failed" ? { failed: { model: byModel.model, reason: byModel.reason } } : {}),
    ...(losses === undefined ? {} : { losses }),
    ...(path === undefined ? {} : { path }),
  };
}

/**
 * The provider's own summary of `range` (docs/native-compaction.md), or undefined when cxc writes
 * its own: where the block cannot stand, the model has no on-demand compaction, or the provider
 * refused (after its retries for `compaction_unavailable`); each said in one line. The model is
 * asked with the turns as the view shows them (an earlier block first, so compacting again
 * replaces it, as the API does) and the next turn's system prompt and tools.
 */
async function makeNativeSummary(
  events: readonly ConversationEvent[],
  range: CycleRange,
  alongside: readonly CycleRange[],
  rule: SummaryRule,
  choice: SummarizerChoice,
  environment: SummaryEnvironment,
): Promise<MadeSummary | undefined> {
  const plain = (why: string): undefined => {
    environment.report.warn(
      `no native summary of ${describeRange(range)}: ${why}; cxc writes its own summary`,
    );
    return undefined;
  };
  if (choice.kind !== "model") return plain("no model is chosen to ask (-m anthropic/<model>)");
  const obstacle = nativeSummaryObstacle(events, range, alongside);
  if (obstacle !== undefined) return plain(obstacle);
  const compactor = createNativeCompactor(choice.id, { config: environment.config, env: environment.env });
  if (!compactor.ok) return plain(compactor.reason);
  if (!compactor.known) {
    // Neither the table nor the configuration knows: the Models API may (never waited on long).
    const supported = await compactor.compactor.supportsCompaction(
      environment.signal === undefined ? {} : { signal: environment.signal },
    );
    if (supported === false) {
      const id = compactor.compactor.modelId;
      const [provider, ...name] = id.split("/");
      return plain(
        `the Models API says ${id} has no on-demand compaction (capabilities.compaction; set providers.${provider}.models.${name.join("/")}.native_compaction = true to try it anyway)`,
      );
    }
  }
  if (rule.instructions !== undefined && rule.instructions.length > MAX_COMPACTION_INSTRUCTIONS) {
    return plain(
      `its instructions are ${rule.instructions.length} characters long, and the provider takes at most ${MAX_COMPACTION_INSTRUCTIONS}`,
    );
  }
  const view = projectConversation(events).turns.filter((turn) =>
    turn.origin.kind === "kept" ? turn.origin.turn <= range.to : turn.origin.to <= range.to,
  );
  const overhead = await environment.overhead?.(events);
  const request = buildLlmRequest(view, {
    ...(overhead?.system === undefined ? {} : { system: overhead.system }),
    tools: overhead?.tools ?? [],
  });
  const progress = environment.report.progress?.(
    `Asking ${compactor.compactor.modelId} for its own summary of ${describeRange(range)}`,
  );
  let outcome: NativeCompactionOutcome;
  try {
    outcome = await compactor.compactor.compact(request, {
      ...(rule.instructions === undefined ? {} : { instructions: rule.instructions }),
      ...(environment.signal === undefined ? {} : { signal: environment.signal }),
    });
  } finally {
    progress?.stop();
  }
  if (!outcome.ok) {
    if (outcome.aborted || environment.signal?.aborted) {
      throw new CxcError(
        "interrupted",
        `interrupted while summarizing ${describeRange(range)}; nothing was applied`,
      );
    }
    return plain(`${compactor.compactor.modelId} gave none (${outcome.reason.replace(/\.$/, "")})`);
  }
  const model = compactor.compactor.modelId;
  const usage = outcome.usage;
  environment.report.info(
    `Native summary of ${describeRange(range)} by ${model}: ${usage.inputTokens} input and ${usage.outputTokens} output tokens (usage.iterations)`,
  );
  const path = environment.copies === undefined ? undefined : writeCopy(environment, range, outcome.content);
  return {
    policy: {
      summary: outcome.content,
      source: "derived",
      recipe: model,
      native: {
        format: "anthropic-compaction",
        provider: model.slice(0, model.indexOf("/")),
        model,
        content: outcome.content,
        signature: outcome.signature,
        usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens },
      },
    },
    summarizer: model,
    nativeUsage: usage,
    usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens },
    ...(path === undefined ? {} : { path }),
  };
}

async function digestText(turns: readonly Turn[], range: CycleRange, rule: SummaryRule): Promise<string> {
  const outcome = await digestSummarizer.summarize({ turns, range, rule });
  // The digest cannot fail; an empty text would still be an honest (empty) digest.
  return outcome.ok ? outcome.text : "";
}

/**
 * The private copy of a summary (store/scratch.ts), named with 1-based turns (and cycles:
 * `…-summary-turn-4-cycles-1-37-…`); failures only warn.
 */
function writeCopy(environment: SummaryEnvironment, range: CycleRange, text: string): string | undefined {
  const stem = `${environment.copies!.conversationId}-summary-${rangeSlug(range)}`;
  try {
    return writeScratchFile(environment.env, stem, text);
  } catch (error) {
    environment.report.warn(`could not write a copy of the summary: ${errorMessage(error)}`);
    return undefined;
  }
}

/** The environment with each notice said once (a summary split at turns is several summaries). */
export function noticesOnce(environment: SummaryEnvironment): SummaryEnvironment {
  const said = new Set<string>();
  const info = (text: string): void => {
    if (said.has(text)) return;
    said.add(text);
    environment.report.info(text);
  };
  return { ...environment, report: { ...environment.report, info } };
}

/**
 * What a dry run says of the native summaries a preparation asks for (docs/native-compaction.md):
 * for each, that it is a model call and to which model, or why cxc would write its own summary.
 * No model is called.
 */
export function describeNativeSummaries(
  preparation: {
    readonly events: readonly ConversationEvent[];
    readonly plan: {
      readonly segments: readonly (CycleRange & {
        readonly summary?: SummaryRule;
        readonly supplied?: unknown;
      })[];
    };
  },
  environment: Pick<SummaryEnvironment, "config" | "env" | "assistantModel">,
): string[] {
  const segments = preparation.plan.segments;
  const summarized = segments.filter(
    (segment) => segment.summary !== undefined || segment.supplied !== undefined,
  );
  const lines: string[] = [];
  for (const segment of segments) {
    if (segment.summary?.native !== true) continue;
    const range = rangeOf(segment);
    const choice = chooseSummarizer(
      segment.summary,
      environment.assistantModel ?? configuredAssistantModel(environment.config),
    );
    const obstacle =
      choice.kind !== "model"
        ? "no model is chosen to ask (-m anthropic/<model>)"
        : (nativeSummaryObstacle(
            preparation.events,
            range,
            summarized.filter((other) => other !== segment).map(rangeOf),
          ) ?? nativeRefusal(choice.id, environment));
    lines.push(
      obstacle === undefined
        ? `native summary of ${describeRange(range)}: a model call to ${(choice as { id: string }).id} (Anthropic's on-demand compaction); what it cost is said once it is made (usage.iterations)`
        : `no native summary of ${describeRange(range)}: ${obstacle}; cxc would write its own summary`,
    );
  }
  return lines;
}

/** Why a model has no on-demand compaction cxc can call, or undefined (a missing key is not a reason here). */
function nativeRefusal(
  modelId: string,
  environment: Pick<SummaryEnvironment, "config" | "env">,
): string | undefined {
  try {
    const choice = createNativeCompactor(modelId, { config: environment.config, env: environment.env });
    return choice.ok ? undefined : choice.reason;
  } catch {
    return undefined;
  }
}
