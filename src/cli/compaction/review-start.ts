/**
 * `cxc conversation compact --interactive`: starts a compaction review (docs/review.md, "Starting a review").
 *
 * Under the source's lock (so a concurrent start or compaction cannot slip in): refuse when a
 * review of the source is open; plan the opening range (the range flags, else the first configured
 * rule with a `summary`, else the built-in default range); run the summarizer once (the
 * one compaction step, src/compaction/compact.ts, into events never stored); fork the
 * source into the review — `[turn N]` markers, the source's compactions dropped when the raw events
 * fit the review model's window and kept otherwise, a `config_delta` turning every inherited tool
 * off and `propose_compaction` on with the review instructions and the review model — and write
 * the draft as the opening `propose_compaction` call with its result. Then make the review active.
 */
import type { ConfigTable } from "../../core/config.js";
import { isConfigTable, lookupConfig } from "../../core/config.js";
import type { ConversationEvent } from "../../core/conversation/events.js";
import type { BoundRange } from "../../core/position/bound.js";
import {
  buildOpeningProposal,
  buildReviewHistory,
  PROPOSE_COMPACTION_TOOL_NAME,
  type ProposalValidation,
  REVIEW_CONFIG_METADATA_KEY,
  validateProposal,
} from "../../compaction/core/review/review.js";
import type { CompactionRule } from "../../compaction/core/rules.js";
import { compact, runnable } from "../../compaction/compact.js";
import { prepare } from "../../compaction/core/prepare.js";
import { openingRule } from "../../compaction/core/request.js";
import { type CompactionEnvironment, configuredRulesOf } from "../../compaction/environment.js";
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
import { buildReviewInstructions } from "./review-instructions.js";
import { knownContextWindow } from "../../compaction/context-window.js";
import { compactionPolicies } from "../../core/conversation/cycles.js";

/** The digest recipe cannot hold a discussion, so `-m builtin/digest` only picks the summarizer. */
const DIGEST_MODEL = "builtin/digest";

/** The share of a model's window the copied history may use; the rest is room for the discussion. */
const HISTORY_SHARE_OF_WINDOW = 0.8;

/** What starting a review needs. */
export interface StartReviewOptions {
  readonly store: Store;
  readonly sourceId: string;
  /** The command's compaction environment: configuration, the draft's summary, copies, progress. */
  readonly compaction: CompactionEnvironment;
  /** The range the range flags give the opening proposal. */
  readonly range: BoundRange;
  /** `-m`: the review model, and the summarizer of the draft. */
  readonly model?: string;
  /** `-s CONTEXT`: what the draft summary should focus on. */
  readonly summaryContext?: string;
  /** `--native`: the draft is the provider's own summary where it can stand. */
  readonly native?: boolean;
  /** Aborted by Ctrl-C: the draft stops and no review is created. */
  readonly signal?: AbortSignal;
}

/** A started review. */
export interface StartedReview {
  readonly reviewId: string;
  readonly sourceId: string;
  readonly validation: Extract<ProposalValidation, { ok: true }>;
  /** The summarizer that wrote the draft: a model id or `builtin/digest`. */
  readonly draftedBy: string;
  /** The draft's private copy (store/scratch.ts), when it could be written. */
  readonly draftPath?: string;
  /** False when the source's compactions were kept because the raw events did not fit. */
  readonly rawEvents: boolean;
  /** The review model written into the review's configuration, when one was chosen. */
  readonly reviewModel?: string;
}

/** The rule of the opening proposal: always a summary (see the module comment). */
export function chooseOpeningRule(config: ConfigTable, model?: string, context?: string): CompactionRule {
  return openingRule(configuredRulesOf(config), model, context);
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

async function fitsWindow(
  turns: readonly Turn[],
  window: number | undefined,
  store: StoreReader,
): Promise<boolean> {
  if (window === undefined) return true;
  const tokens = summarizeTokens(turns, await store.tokenCounter()).total;
  return tokens <= window * HISTORY_SHARE_OF_WINDOW;
}

/**
 * Plans the opening range and writes the draft: the first piece of the range, summarized by the
 * one compaction step into events that are never stored (its summary rule, its context-window rule
 * and its fallback setting, as for every other summary); throws when there is nothing to review.
 */
async function draftOpeningProposal(
  events: readonly ConversationEvent[],
  options: StartReviewOptions,
): Promise<{
  validation: Extract<ProposalValidation, { ok: true }>;
  draftedBy: string;
  draftPath?: string;
}> {
  const environment = options.compaction;
  // The model the review talks to writes the draft when one is configured; `-m` names both.
  const draftModel = options.model ?? chooseReviewModel(environment.config, undefined).id;
  const opening = openingRule(environment.configuredRules(), draftModel, options.summaryContext);
  const rule =
    options.native === true && opening.summary !== undefined
      ? { ...opening, summary: { ...opening.summary, native: true } }
      : opening;
  const preparation = runnable(
    prepare(events, { kind: "draft", rule, range: options.range }, { now: environment.clock.now() }),
  );
  if (preparation.kind !== "planned") {
    throw new CxcError("nothing-to-compact", "Nothing to review: the range selects no turns.", {
      hint: "choose a range with --from/--to, --keep-first/--keep-last, --first/--last or --turn",
    });
  }
  const segment = preparation.plan.segments[0]!;
  const report = await compact(preparation, environment, {
    // A private copy of the draft, so the whole of it is one file away.
    conversationId: options.sourceId,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  if (options.signal?.aborted) throw new CxcError("interrupted", "interrupted; no review was started");
  const drafted = report.kind === "compacted" ? report.segments[0] : undefined;
  const summary = drafted === undefined ? undefined : compactionPolicies(drafted.compaction).summary;
  const path = drafted?.summary?.path;
  const validation = validateProposal(
    {
      from_turn: segment.from + 1,
      to_turn: segment.to + 1,
      ...(segment.fromCycle === undefined ? {} : { from_cycle: segment.fromCycle + 1 }),
      ...(segment.toCycle === undefined ? {} : { to_cycle: segment.toCycle + 1 }),
      summary: summary?.summary ?? "",
    },
    { kind: "found", id: options.sourceId, events },
  );
  if (!validation.ok) {
    throw new CxcError(
      "summary-failed",
      `the summarizer's draft cannot open a review: ${validation.message}`,
    );
  }
  return {
    // The provider's own draft rides with the opening proposal (its text, range and signature).
    validation: summary?.native === undefined ? validation : { ...validation, native: summary.native },
    draftedBy: summary?.recipe ?? DIGEST_MODEL,
    ...(path === undefined ? {} : { draftPath: path }),
  };
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
    const { validation, draftedBy, draftPath } = await draftOpeningProposal(source.events, options);
    const { config, env } = options.compaction;
    const reviewModel = chooseReviewModel(config, options.model);
    const windowModel =
      reviewModel.id ??
      stickyModel(source.events) ??
      (lookupConfig(config, "assistant.model.id") as string | undefined);
    const window =
      windowModel === DIGEST_MODEL ? undefined : await knownContextWindow(windowModel, config, env);
    const rawEvents = await fitsWindow(groupTurns(source.events), window, store);
    const turnCount = countTurns(source.events);
    const history = buildReviewHistory(source.events, { keepCompactions: !rawEvents });
    const copied = copyEventsForFork(history, { start: 0, end: turnCount }, () => newEventId()).events;
    const stamp = () => ({ id: newEventId(), ts: timestampNow() });
    const delta = buildReviewConfigDelta({
      inheritedTools: inheritedToolNames(config),
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
      draftedBy,
      ...(draftPath === undefined ? {} : { draftPath }),
      rawEvents,
      ...(reviewModel.id === undefined ? {} : { reviewModel: reviewModel.id }),
    };
  });
}
