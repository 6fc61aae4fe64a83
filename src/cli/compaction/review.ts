/**
 * The review modes of `cxc conversation compact` (docs/review.md): `--interactive` starts a review,
 * `--continue` applies its latest proposal, `--abort` ends it. `compact.ts` hands the raw flags
 * over at the top of its handler; this module checks which flags go together (every conflict is a
 * usage error, exit 2), runs the mode and prints the outcome. stdout carries the result; the next
 * steps, the confirmation text and the prompt go to stderr.
 */
import { renderProposalLine } from "../../compaction/core/review/review.js";
import type { ConfigTable } from "../../core/config.js";
import { CxcError, ExitCode, usageError } from "../../errors.js";
import type { CliContext } from "../context.js";
import { type CompactFlags, FLAG_NAMES, RANGE_FLAGS } from "./options.js";
import { abortReview, continueReview } from "./review-finish.js";
import { parseRangeFlags } from "./options.js";
import { timestampNow } from "../../store/index.js";
import { commandCompaction } from "./environment.js";
import { startReview, chooseReviewModel } from "./review-start.js";
import { withInterrupts } from "../interrupt.js";
import { stickyModel } from "../../query/settings.js";
import { configuredAssistantModel } from "../../compaction/core/summary/summarizer.js";
import { createLlmClient, selectDefaultModel } from "../../llm/registry.js";
import { openPromptTerminal } from "../terminal/tty.js";
import { describeCompactionEffect, measureNextRequest } from "../../query/compaction.js";
import { confirmKey } from "../terminal/confirm.js";

/** The review flags of `compact`, beside the ordinary ones. */
export interface ReviewFlags extends CompactFlags {
  readonly interactive?: boolean;
  readonly continue?: boolean;
  readonly abort?: boolean;
  /** `--confirm` sets this to true, `--no-confirm` to false. */
  readonly confirm?: boolean;
}

function isGiven(flags: ReviewFlags, name: string): boolean {
  const value = (flags as Record<string, unknown>)[name];
  return value !== undefined && value !== false;
}

/** Which review mode the flags ask for, if any. */
export function reviewModeOf(flags: ReviewFlags): "interactive" | "continue" | "abort" | undefined {
  if (flags.interactive) return "interactive";
  if (flags.continue) return "continue";
  if (flags.abort) return "abort";
  return undefined;
}

/** Why a flag does not go with a review mode, in the hint of its usage error. */
function clashHint(mode: "interactive" | "continue" | "abort", clash: string, policyHint: string): string {
  const range = (RANGE_FLAGS as readonly string[]).includes(clash);
  if (mode === "abort") {
    return range
      ? "--abort takes no range: it ends the active review and changes nothing"
      : "--abort takes no compaction flags: it ends the active review and changes nothing";
  }
  if (mode === "continue" && (range || clash === "model")) {
    return "--continue applies the proposal the review recorded, with the range agreed in it; it takes no range";
  }
  if (clash === "interactive" || clash === "continue" || clash === "abort") {
    return "--interactive starts a review, --continue applies it, --abort ends it: one at a time";
  }
  return policyHint;
}

/** The usage error for the first flag that cannot go with the review mode, if any. */
export function checkReviewFlags(
  mode: "interactive" | "continue" | "abort",
  flags: ReviewFlags,
  idArgument: string | undefined,
): void {
  const flag = `--${mode}`;
  const hint = "policies are negotiated inside the review; see docs/review.md";
  const forbidden =
    mode === "interactive"
      ? ["reasoning", "tools", "compact", "note", "dryRun", "reset", "undoReset", "continue", "abort"]
      : [
          "model",
          "native",
          "reasoning",
          "tools",
          "summarize",
          "compact",
          "note",
          "dryRun",
          "reset",
          "undoReset",
          ...RANGE_FLAGS,
          "interactive",
          mode === "continue" ? "abort" : "continue",
        ];
  const clash = forbidden.find((name) => isGiven(flags, name));
  if (clash !== undefined) {
    throw usageError(
      `${flag} cannot be used with ${FLAG_NAMES[clash] ?? clash}`,
      clashHint(mode, clash, hint),
    );
  }
  if (mode !== "interactive" && idArgument !== undefined) {
    throw usageError(
      `${flag} takes no conversation id; it acts on the active review`,
      "switch to the review first with `cxc conversation use ID`",
    );
  }
}

/** Runs the review mode the flags ask for. */
export async function runReviewMode(
  context: CliContext,
  mode: "interactive" | "continue" | "abort",
  idArgument: string | undefined,
  flags: ReviewFlags,
): Promise<void> {
  checkReviewFlags(mode, flags, idArgument);
  if (mode === "interactive") return runInteractive(context, idArgument, flags);
  if (mode === "continue") return runContinue(context, flags);
  const outcome = await abortReview(context.store);
  if (context.json) {
    context.outJson({
      action: "abort",
      review_id: outcome.reviewId,
      source_id: outcome.sourceId ?? null,
      source_archived: outcome.sourceArchived,
    });
    return;
  }
  context.out(
    outcome.sourceId === undefined
      ? `Aborted review ${outcome.reviewId} (archived); the conversation it reviewed no longer exists.`
      : outcome.sourceArchived
        ? `Aborted review ${outcome.reviewId} (archived); ${outcome.sourceId} is unchanged.`
        : `Aborted review ${outcome.reviewId} (archived); ${outcome.sourceId} is unchanged and active again.`,
  );
  if (outcome.sourceId !== undefined && outcome.sourceArchived)
    archivedSourceNotice(context, outcome.sourceId);
}

/** Says that the source stayed archived and how to bring it back (no conversation is active). */
function archivedSourceNotice(context: CliContext, sourceId: string): void {
  context.info(`The source ${sourceId} is archived; cxc c use ${sourceId} brings it back.`);
}

async function runInteractive(
  context: CliContext,
  idArgument: string | undefined,
  flags: ReviewFlags,
): Promise<void> {
  const range = parseRangeFlags(flags, timestampNow());
  // The draft's private copy and its progress, as `compact`'s summaries have them.
  const compaction = commandCompaction(context, { copies: true });
  const sourceId = context.store.resolveTarget(idArgument);
  refuseReviewOfReview(context, sourceId);
  await checkReviewModel(context, compaction.config, sourceId, flags.model?.trim());
  const focus = typeof flags.summarize === "string" ? flags.summarize.trim() : "";
  const started = await withInterrupts((signal) =>
    startReview({
      signal,
      store: context.store,
      sourceId,
      compaction,
      range,
      ...(flags.model === undefined ? {} : { model: flags.model.trim() }),
      ...(focus === "" ? {} : { summaryContext: focus }),
      ...(flags.native === true ? { native: true } : {}),
    }),
  );
  const { proposal, turnCount } = started.validation;
  if (context.json) {
    context.outJson({
      action: "interactive",
      review_id: started.reviewId,
      source_id: sourceId,
      raw_events: started.rawEvents,
      review_model: started.reviewModel ?? null,
      drafted_by: started.draftedBy,
      draft_path: started.draftPath ?? null,
      proposal: {
        from_turn: proposal.fromTurn,
        to_turn: proposal.toTurn,
        from_cycle: proposal.fromCycle ?? null,
        to_cycle: proposal.toCycle ?? null,
        summary: proposal.summary ?? null,
      },
    });
  } else {
    context.out(
      `Started compaction review ${started.reviewId} of ${sourceId}; it is now the active conversation.`,
    );
    context.out(renderProposalLine(proposal, turnCount));
    context.outUntrusted(renderDraftHead(proposal.summary ?? "", started.draftedBy, started.draftPath));
  }
  if (!started.rawEvents) {
    context.info(
      "The conversation is too large for the review model's window: earlier turns appear as their summaries.",
    );
  }
  context.hint(
    [
      "next:",
      '  cxc q "…"                             discuss; the model records each agreed revision',
      "  cxc conversation print                read the review (copied turns are marked [turn N])",
      `  cxc conversation compact --continue   apply the latest proposal to ${sourceId}`,
      `  cxc conversation compact --abort      stop without changing ${sourceId}`,
    ].join("\n"),
  );
}

/** How many lines of the draft `--interactive` shows; the rest is a `print` away. */
const DRAFT_HEAD_LINES = 12;

/**
 * Who wrote the draft, and its first lines: the whole of a long draft would scroll the proposal
 * line away. The whole draft is in its private copy (`path`), and in the review.
 */
export function renderDraftHead(draft: string, draftedBy: string, path?: string): string {
  const lines = draft.split("\n");
  const head = lines.slice(0, DRAFT_HEAD_LINES);
  const rest = lines.length - head.length;
  const where = path === undefined ? "the review holds the whole draft" : `the whole draft: ${path}`;
  const more = rest > 0 ? [`… ${rest} more ${rest === 1 ? "line" : "lines"}; ${where}`] : [];
  return ["", `Draft by ${draftedBy}:`, ...head, ...more].join("\n");
}

/** A review is not reviewed: its proposal is applied with `--continue` or dropped with `--abort`. */
/**
 * `compact` in a review (an open one) would compact the discussion, not the conversation under
 * review: refused as `--interactive` is, pointing at `--continue`.
 */
export function refuseCompactionOfReview(context: CliContext, id: string): void {
  const source = context.store.reviewSource(id);
  if (source === undefined || context.store.locate(id)?.archived === true) return;
  throw usageError(
    `${id} is a compaction review (of ${source}); compacting it would compact the discussion, not ${source}`,
    "apply the agreed proposal to it with `cxc conversation compact --continue`, or end the review with `cxc conversation compact --abort`",
  );
}

function refuseReviewOfReview(context: CliContext, id: string): void {
  const source = context.store.reviewSource(id);
  if (source === undefined) return;
  throw usageError(
    `${id} is a compaction review (of ${source}); a review cannot be reviewed`,
    "apply its proposal with `cxc conversation compact --continue`, or end it with `cxc conversation compact --abort`",
  );
}

/**
 * The review is discussed with `cxc q`, so a model must be there to discuss it with before the
 * review starts: `-m`, `conversation.compaction.review.model.id`, the source's own model,
 * `assistant.model.id`, or the default a provider key or a running Ollama gives, as `q` picks it.
 */
async function checkReviewModel(
  context: CliContext,
  config: ConfigTable,
  sourceId: string,
  flagModel: string | undefined,
): Promise<void> {
  const chosen =
    chooseReviewModel(config, flagModel).id ??
    stickyModel(context.store.load(sourceId).events) ??
    configuredAssistantModel(config);
  let model = chosen;
  try {
    model ??= await selectDefaultModel({ config, env: context.env });
    createLlmClient(model, { config, env: context.env, retry: false });
  } catch (error) {
    if (!CxcError.isInstance(error)) throw error;
    // A conversation imported from another agent may name a model cxc cannot call; the
    // configured assistant model can still discuss the review, when it is named with -m.
    const configured = configuredAssistantModel(config);
    if (model !== undefined && configured !== undefined && configured !== model) {
      try {
        createLlmClient(configured, { config, env: context.env, retry: false });
        context.warn(
          `the conversation last used ${model}, which cxc cannot call (${error.message.replace(/\.$/, "")}); discuss the review with \`cxc q -m ${configured} …\``,
        );
        return;
      } catch (fallbackError) {
        if (!CxcError.isInstance(fallbackError)) throw fallbackError;
      }
    }
    const what =
      model === undefined
        ? "no model is configured to discuss it with"
        : `${error.message.replace(/\.$/, "")}`;
    throw new CxcError("no-model-configured", `cannot start a review: ${what}`, {
      hint:
        model === undefined
          ? "name the review model with -m MODEL or conversation.compaction.review.model.id (or set assistant.model.id); builtin/digest writes the draft but cannot discuss it"
          : (error.hint ?? "check the review model with -m MODEL or conversation.compaction.review.model.id"),
    });
  }
}

async function runContinue(context: CliContext, flags: ReviewFlags): Promise<void> {
  if (flags.confirm === true && flags.yes === true) {
    throw usageError(
      "--confirm cannot be used with --yes",
      "--yes applies without asking; --confirm asks first",
    );
  }
  const terminal = flags.yes === true || flags.confirm === false ? undefined : openPromptTerminal();
  let outcome: Awaited<ReturnType<typeof continueReview>>;
  try {
    const compaction = commandCompaction(context, { configWarnings: false });
    outcome = await continueReview(context.store, {
      compaction,
      describeEffect: async (events, compactions) => {
        const { effect } = await measureNextRequest(events, {
          config: compaction.config,
          env: context.env,
          countTokens: await context.store.tokenCounter(),
        });
        return describeCompactionEffect(effect(events, compactions));
      },
      yes: flags.yes === true || flags.confirm === false,
      // The summary is model output: sanitized before it reaches the terminal.
      showPrompt: (text) => context.block(text),
      confirm:
        terminal === undefined
          ? undefined
          : async (message) => {
              const answer = await confirmKey(terminal, message);
              if (answer === "interrupt") {
                throw new CxcError(
                  "interrupted",
                  "interrupted; nothing was applied and the review stays open",
                  {
                    exitCode: ExitCode.interrupted,
                  },
                );
              }
              return answer === "yes";
            },
    });
  } finally {
    terminal?.close();
  }
  if (outcome.kind === "declined") {
    context.info("Nothing applied; the review stays open.");
    // Declining is not an error, but scripts should be able to tell it from success.
    process.exitCode = 1;
    if (context.json)
      context.outJson({ action: "continue", outcome: "declined", review_id: outcome.reviewId });
    return;
  }
  const { proposal } = outcome;
  if (context.json) {
    context.outJson({
      action: "continue",
      outcome: outcome.kind,
      review_id: outcome.reviewId,
      source_id: outcome.sourceId,
      source_archived: outcome.sourceArchived,
      compaction_id: outcome.compactionId ?? null,
      from_turn: proposal.fromTurn,
      to_turn: proposal.toTurn,
      from_cycle: proposal.fromCycle ?? null,
      to_cycle: proposal.toCycle ?? null,
    });
    return;
  }
  const what = renderProposalLine(proposal).replace(/^Proposed: compact /, "");
  const back = outcome.sourceArchived ? "" : `; ${outcome.sourceId} is active again`;
  context.out(
    outcome.kind === "applied"
      ? `Applied to ${outcome.sourceId}: compacted ${what}. Archived review ${outcome.reviewId}${back}.`
      : `The proposal was already applied to ${outcome.sourceId}; archived review ${outcome.reviewId}${outcome.sourceArchived ? "" : " and switched back"}.`,
  );
  if (outcome.sourceArchived) archivedSourceNotice(context, outcome.sourceId);
}
