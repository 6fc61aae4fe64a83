/**
 * `cxc conversation compact --interactive`: starts a compaction review (docs/review.md, "Starting a review").
 *
 * Under the source's lock (so a concurrent start or compaction cannot slip in): refuse when a
 * review of the source is open; plan the opening range (the range flags, else the first configured
 * rule with a `summary`, else the built-in default range); run the summarizer once (the
 * compaction pipeline's summary step, src/query/apply-compaction.ts); fork the
 * source into the review — `[turn N]` markers, the source's compactions dropped when the raw events
 * fit the review model's window and kept otherwise, a `config_delta` turning every inherited tool
 * off and `propose_compaction` on with the review instructions and the review model — and write
 * the draft as the opening `propose_compaction` call with its result. Then make the review active.
 */
import type { ConfigTable } from "../../core/config.js";
import { isConfigTable, lookupConfig } from "../../core/config.js";
import type { ConversationEvent } from "../../core/conversation/events.js";
import type { CompactionOverrides, CompactionSegment } from "../../core/compaction/plan.js";
import { projectConversation } from "../../core/conversation/projection.js";
import {
  buildOpeningProposal,
  buildReviewHistory,
  PROPOSE_COMPACTION_TOOL_NAME,
  type ProposalValidation,
  REVIEW_CONFIG_METADATA_KEY,
  validateProposal,
} from "../../core/compaction/review.js";
import { type CompactionRule, DEFAULT_KEEP, overrideSummaryModel } from "../../core/compaction/rules.js";
import { summarizeTokens } from "../../core/conversation/tokens.js";
import { countTurns, groupTurns, type Turn } from "../../core/conversation/turns.js";
import { CxcError } from "../../errors.js";
import { stickyModel } from "../../query/settings.js";
import {
  assertNoOpenReview,
  newEventId,
  type Store,
  type StoreReader,
  timestampNow,
} from "../../store/index.js";
import { copyEventsForFork } from "../../core/conversation/fork.js";
import { readConfiguredRules } from "./config-rules.js";
import { buildReviewInstructions } from "./review-instructions.js";
import { planRun } from "./run.js";
import { chooseSummarizer, configuredAssistantModel } from "../../core/summary/summarizer.js";
import { makeSummary, type PipelineReport } from "../../query/apply-compaction.js";

/** The digest recipe cannot hold a discussion, so `-m builtin/digest` only picks the summarizer. */
const DIGEST_MODEL = "builtin/digest";

/** The share of a model's window the copied history may use; the rest is room for the discussion. */
const HISTORY_SHARE_OF_WINDOW = 0.8;

/** What starting a review needs. */
export interface StartReviewOptions {
  readonly store: Store;
  readonly sourceId: string;
  readonly config: ConfigTable;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly overrides: CompactionOverrides;
  /** `-m`: the review model, and the summarizer of the draft. */
  readonly model?: string;
  /** `-s CONTEXT`: what the draft summary should focus on. */
  readonly summaryContext?: string;
  /** Notices, fallbacks and progress of the draft's summary (stderr). */
  readonly report: PipelineReport;
  /** Aborted by Ctrl-C: the draft stops and no review is created. */
  readonly signal?: AbortSignal;
}

/** A started review. */
export interface StartedReview {
  readonly reviewId: string;
  readonly sourceId: string;
  readonly validation: Extract<ProposalValidation, { ok: true }>;
  /** False when the source's compactions were kept because the raw events did not fit. */
  readonly rawEvents: boolean;
  /** The review model written into the review's configuration, when one was chosen. */
  readonly reviewModel?: string;
}

/** The rule of the opening proposal: always a summary (see the module comment). */
export function chooseOpeningRule(config: ConfigTable, model?: string, context?: string): CompactionRule {
  const configured = readConfiguredRules(config).find((rule) => rule.summary !== undefined);
  const summary = configured?.summary ?? {};
  const rule: CompactionRule = {
    keep_first: configured?.keep_first ?? DEFAULT_KEEP,
    keep_last: configured?.keep_last ?? DEFAULT_KEEP,
    summary: context === undefined ? summary : { ...summary, context },
  };
  return model === undefined ? rule : overrideSummaryModel([rule], model)[0]!;
}

/** `conversation.compaction.review.model` (a table like `assistant.model`), with `-m` on top. */
export function chooseReviewModel(
  config: ConfigTable,
  flagModel: string | undefined,
): { id?: string; parameters?: ConfigTable } {
  const configured = lookupConfig(config, "conversation.compaction.review.model");
  if (configured !== undefined && !isConfigTable(configured)) {
    throw new CxcError(
      "invalid-config",
      "conversation.compaction.review.model must be a table with an `id`",
      {
        hint: 'e.g. -c conversation.compaction.review.model.id="anthropic/claude-sonnet-4-6"',
      },
    );
  }
  const id = flagModel !== undefined && flagModel !== DIGEST_MODEL ? flagModel : configured?.id;
  const parameters = configured?.parameters;
  return {
    ...(typeof id === "string" && id !== "" ? { id } : {}),
    ...(isConfigTable(parameters) ? { parameters } : {}),
  };
}

/** The fork-time configuration entry of a review. */
export function buildReviewConfigDelta(options: {
  readonly inheritedTools: readonly string[];
  readonly instructions: string;
  readonly model: { id?: string; parameters?: ConfigTable };
}): Record<string, unknown> {
  const tools: Record<string, unknown> = {};
  for (const name of options.inheritedTools) tools[name] = { enable: false };
  tools[PROPOSE_COMPACTION_TOOL_NAME] = { enable: true, run: "unattended" };
  const assistant: Record<string, unknown> = { instructions: options.instructions };
  if (options.model.id !== undefined) assistant.model = { ...options.model };
  return { assistant, conversation: { tools } };
}

/**
 * `*` (every tool without an entry of its own, built-ins included) and each tool configured with an
 * entry of its own, which `*` would not override. Tools named only in the source's history or its
 * recorded deltas get no entry: `*` covers them, and an entry without a `command` for a tool that is
 * not configured would be a configuration error.
 */
function inheritedToolNames(config: ConfigTable): string[] {
  const names = new Set<string>(["*"]);
  const configured = lookupConfig(config, "conversation.tools");
  if (isConfigTable(configured)) for (const name of Object.keys(configured)) names.add(name);
  names.delete(PROPOSE_COMPACTION_TOOL_NAME);
  return [...names].sort();
}

/** The context window of a model, when cxc knows it (undefined: assume the history fits). */
async function contextWindowOf(
  modelId: string | undefined,
  options: Pick<StartReviewOptions, "config" | "env">,
): Promise<number | undefined> {
  if (modelId === undefined || modelId === DIGEST_MODEL) return undefined;
  const { readLlmConfig, resolveModel } = await import("../../llm/registry.js");
  try {
    return resolveModel(modelId, readLlmConfig(options.config), options.env).contextWindow;
  } catch {
    return undefined;
  }
}

async function fitsWindow(
  turns: readonly Turn[],
  window: number | undefined,
  store: Pick<StoreReader, "tokenCounter">,
): Promise<boolean> {
  if (window === undefined) return true;
  const tokens = summarizeTokens(turns, await store.tokenCounter()).total;
  return tokens <= window * HISTORY_SHARE_OF_WINDOW;
}

/** Raw events without overlays: what the model would see if nothing were compacted. */
function rawTurnsOf(events: readonly ConversationEvent[]): Turn[] {
  return groupTurns(events);
}

/** The projected view as turns numbered by the raw turn they stand for (a summary: its first). */
function projectedTurnsOf(events: readonly ConversationEvent[]): Turn[] {
  return projectConversation(events).turns.map((turn) => ({
    index: turn.origin.kind === "kept" ? turn.origin.turn : turn.origin.from,
    events: turn.events,
  }));
}

async function generateDraft(
  events: readonly ConversationEvent[],
  segment: CompactionSegment,
  options: StartReviewOptions,
): Promise<string> {
  const summary = segment.summary ?? {};
  const choice = chooseSummarizer(summary, configuredAssistantModel(options.config));
  const rangeTurns = rawTurnsOf(events).filter(
    (turn) => turn.index >= segment.from && turn.index <= segment.to,
  );
  const window = await contextWindowOf(choice.kind === "model" ? choice.id : undefined, options);
  // The documented exception to the raw-stream rule: what cannot be loaded is read as its summary.
  const turns = (await fitsWindow(rangeTurns, window, options.store))
    ? rawTurnsOf(events)
    : projectedTurnsOf(events);
  const made = await makeSummary(
    turns,
    {
      from: segment.from,
      to: segment.to,
      ...(segment.fromCycle === undefined ? {} : { fromCycle: segment.fromCycle }),
      ...(segment.toCycle === undefined ? {} : { toCycle: segment.toCycle }),
      summary,
    },
    {
      config: options.config,
      env: options.env,
      report: options.report,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    },
  );
  if (options.signal?.aborted) throw new CxcError("interrupted", "interrupted; no review was started");
  return made.policy.summary;
}

/** Plans the opening range and writes the draft; throws when there is nothing to review. */
async function draftOpeningProposal(
  events: readonly ConversationEvent[],
  options: StartReviewOptions,
): Promise<Extract<ProposalValidation, { ok: true }>> {
  const rule = chooseOpeningRule(options.config, options.model, options.summaryContext);
  const plan = planRun(events, { rules: [rule], overrides: options.overrides, now: timestampNow() });
  const segment = plan.kind === "planned" ? plan.segments[0] : undefined;
  if (segment === undefined) {
    throw new CxcError("nothing-to-compact", "Nothing to review: the range selects no turns.", {
      hint: "choose a range with --from/--to, --keep-first/--keep-last, --first/--last or --turn",
    });
  }
  const draft = await generateDraft(events, segment, options);
  const validation = validateProposal(
    {
      from_turn: segment.from + 1,
      to_turn: segment.to + 1,
      ...(segment.fromCycle === undefined ? {} : { from_cycle: segment.fromCycle + 1 }),
      ...(segment.toCycle === undefined ? {} : { to_cycle: segment.toCycle + 1 }),
      summary: draft,
    },
    { kind: "found", id: options.sourceId, events },
  );
  if (!validation.ok) {
    throw new CxcError(
      "summary-failed",
      `the summarizer's draft cannot open a review: ${validation.message}`,
    );
  }
  return validation;
}

/** Starts a review of `options.sourceId`; see the module comment. */
export async function startReview(options: StartReviewOptions): Promise<StartedReview> {
  const { store, sourceId } = options;
  return store.locked(sourceId, "compact --interactive", async () => {
    assertNoOpenReview(store, sourceId, "start");
    const source = store.load(sourceId);
    if (countTurns(source.events) === 0) {
      throw new CxcError("nothing-to-compact", "Nothing to review: the conversation has no turns.");
    }
    const validation = await draftOpeningProposal(source.events, options);
    const reviewModel = chooseReviewModel(options.config, options.model);
    const windowModel =
      reviewModel.id ??
      stickyModel(source.events) ??
      (lookupConfig(options.config, "assistant.model.id") as string | undefined);
    const window = await contextWindowOf(windowModel, options);
    const rawEvents = await fitsWindow(rawTurnsOf(source.events), window, store);
    const turnCount = countTurns(source.events);
    const history = buildReviewHistory(source.events, { keepCompactions: !rawEvents });
    const copied = copyEventsForFork(history, { start: 0, end: turnCount }, () => newEventId()).events;
    const stamp = () => ({ id: newEventId(), ts: timestampNow() });
    const delta = buildReviewConfigDelta({
      inheritedTools: inheritedToolNames(options.config),
      instructions: buildReviewInstructions({ sourceId, turnCount, rawEvents }),
      model: reviewModel,
    });
    const events: ConversationEvent[] = [
      ...copied,
      { type: "config_delta", ...stamp(), delta, metadata: { [REVIEW_CONFIG_METADATA_KEY]: true } },
      ...buildOpeningProposal(validation, { callId: `propose-${newEventId()}`, stamp }),
    ];
    const meta = store.create({
      title: `Compaction review of ${source.meta.title ?? sourceId}`,
      events,
      reviewOf: sourceId,
    });
    store.setActive(meta.id);
    return {
      reviewId: meta.id,
      sourceId,
      validation,
      rawEvents,
      ...(reviewModel.id === undefined ? {} : { reviewModel: reviewModel.id }),
    };
  });
}
