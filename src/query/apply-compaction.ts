/**
 * The compaction pipeline: the one place a compaction plan (core/compaction/plan.ts) becomes
 * stored `compaction` events, for every caller — `compact`, `fork -k`, `q -k`, automatic
 * compaction and `compact --continue` (an agreed review); the draft of `compact --interactive`
 * uses its summary step. (The assistant's `compact` tool plans supplied summaries in core and
 * returns the events, built by the same core constructor, as effects that the turn loop stores.)
 *
 * 1. Summaries: each segment with a summary rule is summarized from the RAW turns of the snapshot
 *    by the summarizer `chooseSummarizer` picks (core/summary/summarizer.ts): the rule's model, else the
 *    assistant model the user chose, else `builtin/digest`. A model that fails follows
 *    `conversation.compaction.summary.fallback`: `digest` (the default) summarizes with the
 *    digest instead and says so on stderr, and the event records `recipe = builtin/digest`;
 *    `abort` throws `summary-failed` and nothing is applied.
 * 2. Events: `buildCompactionEvent`, the one constructor, for every segment.
 * 3. Storage: `applyCompaction` takes the conversation's lock, loads the snapshot, plans, runs 1
 *    and 2, and appends every event in one append, so a failure leaves the log as it was;
 *    `applyCompactionLocked` does the same for a caller that already holds the lock (`q`, a review);
 *    `executePlan` returns the events for callers that store them their own way (a new fork, the
 *    turn loop's hooks).
 *
 * See docs/compaction.md ("Summaries") and docs/decisions/005-one-compaction-pipeline.md.
 */
import type { ConfigTable } from "../core/config.js";
import { DIGEST_RECIPE } from "../core/summary/digest.js";
import type { Compaction, ConversationEvent, SummaryPolicy } from "../core/conversation/events.js";
import {
  buildCompactionEvent,
  type CompactionSegment,
  type PlannedCompaction,
} from "../core/compaction/plan.js";
import { checkSummary, type SummaryLosses } from "../core/summary/check.js";
import type { CycleRange } from "../core/conversation/cycles.js";
import { describeRange, rangeSlug } from "../core/present/labels.js";
import {
  chooseSummarizer,
  configuredAssistantModel,
  digestSummarizer,
  readSummaryFallback,
  SUMMARY_FALLBACK_KEY,
  type Summarizer,
  type SummaryFallback,
  type SummaryOutcome,
} from "../core/summary/summarizer.js";
import type { SummaryRule } from "../core/compaction/rules.js";
import { groupTurns, type Turn } from "../core/conversation/turns.js";
import { CxcError, errorMessage } from "../errors.js";
import { writeScratchFile } from "../store/index.js";

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
}

const NO_MODEL_NOTICE =
  `No summary model is configured (summary.model.id, assistant.model.id or -m); ` +
  `summarizing with ${DIGEST_RECIPE} (offline, deterministic).`;

function fallbackOf(config: ConfigTable): SummaryFallback {
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
  // Loaded on demand: the provider SDKs are slow to import and a digest run needs none.
  const { createLlmClient } = await import("../llm/registry.js");
  const { modelSummarizer } = await import("../llm/summarize.js");
  const { describeRetry } = await import("../llm/retry.js");
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
  | { readonly kind: "written"; readonly text: string; readonly summarizer: string }
  | { readonly kind: "failed"; readonly model: string; readonly reason: string };

/** Asks model `modelId` for the summary; a failure is an outcome, an interrupt throws. */
async function summarizeByModel(
  modelId: string,
  input: { readonly turns: readonly Turn[]; readonly range: CycleRange; readonly rule: SummaryRule },
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
  if (outcome.ok) return { kind: "written", text: outcome.text, summarizer: model.id };
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
  environment: SummaryEnvironment,
): void {
  const reason = failed.reason.replace(/\.$/, "");
  if (fallbackOf(environment.config) === "abort") {
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

/**
 * Summarizes turns `segment.from..to` of `turns` (only its cycles `fromCycle..toCycle` for a
 * summary standing inside a turn) (raw, see the module comment) for a summary rule:
 * the one summarizer rule, the fallback setting when the model fails, then the summary check and
 * the private copy when asked for. Throws `summary-failed` (fallback `abort`), `interrupted` (the
 * signal was aborted while a model wrote) or `invalid-config`.
 */
export async function makeSummary(
  turns: readonly Turn[],
  segment: CycleRange & { readonly summary: SummaryRule },
  environment: SummaryEnvironment,
): Promise<MadeSummary> {
  fallbackOf(environment.config); // a bad setting is an error before any model is asked
  const range = rangeOf(segment);
  const rule = segment.summary;
  const choice = chooseSummarizer(
    rule,
    environment.assistantModel ?? configuredAssistantModel(environment.config),
  );
  if (choice.kind === "digest" && choice.why === "no-model") environment.report.info(NO_MODEL_NOTICE);
  const byModel =
    choice.kind === "model"
      ? await summarizeByModel(choice.id, { turns, range, rule }, environment)
      : undefined;
  if (byModel?.kind === "failed") fallBack(byModel, range, environment);
  const written =
    byModel?.kind === "written"
      ? byModel
      : { text: await digestText(turns, range, rule), summarizer: DIGEST_RECIPE };
  const losses = environment.checkLosses ? checkSummary(turns, range, written.text) : undefined;
  const path = environment.copies === undefined ? undefined : writeCopy(environment, range, written.text);
  return {
    policy: { summary: written.text, source: "derived", recipe: written.summarizer },
    summarizer: written.summarizer,
    ...(byModel?.kind === "failed" ? { failed: { model: byModel.model, reason: byModel.reason } } : {}),
    ...(losses === undefined ? {} : { losses }),
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

/** Options of `executePlan`: summaries, ids, and whether the events wait for the next turn. */
export interface ExecuteOptions {
  /** How summaries are made; required when the plan has a summary to generate. */
  readonly summaries?: SummaryEnvironment;
  readonly newEventId: () => string;
  /** RFC 3339 time of each event. */
  readonly now: () => string;
  /** The turn the compactions activate at (`deferred_until_turn`); absent: in force at once. */
  readonly deferredUntilTurn?: number;
}

function summariesOf(options: ExecuteOptions): SummaryEnvironment {
  if (options.summaries === undefined)
    throw new Error("a plan with a summary to generate needs a summary environment");
  return options.summaries;
}

/** The environment with each notice said once per plan (a summary split at turns is several). */
function noticesOnce(environment: SummaryEnvironment): SummaryEnvironment {
  const said = new Set<string>();
  const info = (text: string): void => {
    if (said.has(text)) return;
    said.add(text);
    environment.report.info(text);
  };
  return { ...environment, report: { ...environment.report, info } };
}

/** One applied segment: the event and, for a generated summary, how it was made. */
export interface ExecutedSegment {
  readonly segment: CompactionSegment;
  readonly compaction: Compaction;
  readonly summary?: MadeSummary;
}

/** Fills the plan's summaries and builds its events; nothing is stored. Throws before returning anything. */
export async function executePlan(
  events: readonly ConversationEvent[],
  plan: PlannedCompaction,
  options: ExecuteOptions,
): Promise<ExecutedSegment[]> {
  const turns = groupTurns(events);
  const executed: ExecutedSegment[] = [];
  const toSummarize = (segment: CompactionSegment) =>
    segment.supplied === undefined ? segment.summary : undefined;
  const environment = plan.segments.some(toSummarize) ? noticesOnce(summariesOf(options)) : undefined;
  for (const segment of plan.segments) {
    const rule = toSummarize(segment);
    const made =
      rule === undefined || environment === undefined
        ? undefined
        : await makeSummary(turns, { ...rangeOf(segment), summary: rule }, environment);
    const compaction = buildCompactionEvent(segment, {
      id: options.newEventId(),
      ts: options.now(),
      source: plan.source,
      ...(plan.note === undefined ? {} : { note: plan.note }),
      ...(made === undefined ? {} : { summary: made.policy }),
      ...(options.deferredUntilTurn === undefined ? {} : { deferredUntilTurn: options.deferredUntilTurn }),
    });
    executed.push({ segment, compaction, ...(made === undefined ? {} : { summary: made }) });
  }
  return executed;
}

/** The store operations the pipeline uses (the file store and any test store have them). */
export interface CompactionStore {
  load(id: string): { readonly events: readonly ConversationEvent[]; readonly warnings?: readonly string[] };
  append(id: string, events: readonly ConversationEvent[]): unknown;
  locked<T>(id: string, command: string, action: () => T | Promise<T>): Promise<T>;
}

/** A plan, or the reason there is nothing to do. */
export type PlanOutcome =
  | PlannedCompaction
  | { readonly kind: "nothing-to-compact"; readonly message: string };

/** Options of `applyCompaction`. */
export interface ApplyOptions extends ExecuteOptions {
  /** Plans against the snapshot read under the lock; throws for plans that are errors. */
  readonly plan: (events: readonly ConversationEvent[]) => PlanOutcome;
  /** Runs first under the lock, e.g. refusing while a review of the conversation is open. */
  readonly check?: () => void;
}

/** What `applyCompaction` did, with the snapshot it planned against (for timelines). */
export type ApplyOutcome =
  | {
      readonly kind: "nothing";
      readonly message: string;
      readonly events: readonly ConversationEvent[];
      readonly warnings: readonly string[];
    }
  | {
      readonly kind: "applied";
      readonly events: readonly ConversationEvent[];
      readonly warnings: readonly string[];
      readonly plan: PlannedCompaction;
      readonly segments: readonly ExecutedSegment[];
    };

/** Applies a compaction to conversation `id` while the caller holds its lock; see the module comment. */
export async function applyCompactionLocked(
  store: Pick<CompactionStore, "load" | "append">,
  id: string,
  options: Omit<ApplyOptions, "check">,
): Promise<ApplyOutcome> {
  const loaded = store.load(id);
  const warnings = loaded.warnings ?? [];
  const plan = options.plan(loaded.events);
  if (plan.kind !== "planned")
    return { kind: "nothing", message: plan.message, events: loaded.events, warnings };
  const segments = await executePlan(loaded.events, plan, options);
  // Ctrl-C after the summaries were written (or while the offline digest ran): still nothing lands.
  if (options.summaries?.signal?.aborted)
    throw new CxcError("interrupted", "interrupted; nothing was applied");
  store.append(
    id,
    segments.map((segment) => segment.compaction),
  );
  return { kind: "applied", events: loaded.events, warnings, plan, segments };
}

/** Takes the lock of conversation `id` and applies a compaction under it; see the module comment. */
export async function applyCompaction(
  store: CompactionStore,
  id: string,
  command: string,
  options: ApplyOptions,
): Promise<ApplyOutcome> {
  return store.locked(id, command, () => {
    options.check?.();
    return applyCompactionLocked(store, id, options);
  });
}
