/**
 * The review modes of `cxc conversation compact` (seed D66): `--interactive` starts a review,
 * `--continue` applies its latest proposal, `--abort` ends it. `compact.ts` hands the raw flags
 * over at the top of its handler; this module checks which flags go together (every conflict is a
 * usage error, exit 2), runs the mode and prints the outcome. stdout carries the result; the next
 * steps, the confirmation text and the prompt go to stderr.
 */
import { renderProposalLine } from "../../core/review.js";
import { sanitizeTerminalText } from "../../core/sanitize.js";
import { CxcError, ExitCode, usageError } from "../../errors.js";
import type { CliContext } from "../context.js";
import { type CompactFlags, FLAG_NAMES, RANGE_FLAGS } from "./options.js";

/** The review flags of `compact`, beside the ordinary ones. */
export interface ReviewFlags extends CompactFlags {
  readonly interactive?: boolean;
  readonly continue?: boolean;
  readonly abort?: boolean;
  /** `--no-confirm` sets this to false. */
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
  if (clash !== undefined)
    throw usageError(`${flag} cannot be used with ${FLAG_NAMES[clash] ?? clash}`, hint);
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
  const { abortReview } = await import("./review-finish.js");
  const outcome = await abortReview(context.store);
  if (context.json) {
    context.outJson({ action: "abort", review_id: outcome.reviewId, source_id: outcome.sourceId ?? null });
    return;
  }
  context.out(
    outcome.sourceId === undefined
      ? `Aborted review ${outcome.reviewId} (archived); the conversation it reviewed no longer exists.`
      : `Aborted review ${outcome.reviewId} (archived); ${outcome.sourceId} is unchanged and active again.`,
  );
}

async function runInteractive(
  context: CliContext,
  idArgument: string | undefined,
  flags: ReviewFlags,
): Promise<void> {
  const { parseOverrides } = await import("./options.js");
  const { findOverrideConflict, checkKeepAgainstSelection } = await import("../../core/plan-compaction.js");
  const { timestampNow } = await import("../../store/index.js");
  const { loadConfig } = await import("../config.js");
  const { startReview } = await import("./review-start.js");
  const { startProgress } = await import("./progress.js");
  const overrides = parseOverrides(flags, timestampNow());
  const problem = findOverrideConflict(overrides) ?? checkKeepAgainstSelection(overrides);
  if (problem !== undefined) throw usageError(problem);
  const config = loadConfig({ cwd: context.cwd, env: context.env, overlays: context.options.cfg });
  for (const warning of config.warnings) context.warn(warning);
  const sourceId = context.store.resolveTarget(idArgument);
  const focus = typeof flags.summarize === "string" ? flags.summarize.trim() : "";
  const { withInterrupts } = await import("../interrupt.js");
  const started = await withInterrupts((signal) =>
    startReview({
      signal,
      store: context.store,
      sourceId,
      config: config.values,
      env: context.env,
      overrides,
      ...(flags.model === undefined ? {} : { model: flags.model.trim() }),
      ...(focus === "" ? {} : { summaryContext: focus }),
      report: {
        info: (text) => context.info(text),
        warn: (text) => context.warn(text),
        progress: (label) => startProgress(process.stderr, label),
      },
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
      proposal: { from_turn: proposal.fromTurn, to_turn: proposal.toTurn, summary: proposal.summary ?? null },
    });
  } else {
    context.out(
      `Started compaction review ${started.reviewId} of ${sourceId}; it is now the active conversation.`,
    );
    context.out(renderProposalLine(proposal, turnCount));
    context.outUntrusted(`\n${proposal.summary ?? ""}`);
  }
  if (!started.rawEvents) {
    context.info(
      "The conversation is too large for the review model's window: earlier turns appear as their summaries.",
    );
  }
  context.info(
    [
      "Next:",
      '  cxc q "…"                             discuss; the model records each agreed revision',
      "  cxc conversation print                read the review (copied turns are marked [turn N])",
      `  cxc conversation compact --continue   apply the latest proposal to ${sourceId}`,
      `  cxc conversation compact --abort      stop without changing ${sourceId}`,
    ].join("\n"),
  );
}

async function runContinue(context: CliContext, flags: ReviewFlags): Promise<void> {
  const { continueReview } = await import("./review-finish.js");
  const { openPromptTerminal } = await import("../terminal/tty.js");
  const terminal = flags.yes === true || flags.confirm === false ? undefined : openPromptTerminal();
  let outcome: Awaited<ReturnType<typeof continueReview>>;
  try {
    outcome = await continueReview(context.store, {
      yes: flags.yes === true || flags.confirm === false,
      // The summary is model output: sanitized before it reaches the terminal.
      showPrompt: (text) => context.info(sanitizeTerminalText(text)),
      confirm:
        terminal === undefined
          ? undefined
          : async (message) => {
              const { confirmKey } = await import("../terminal/confirm.js");
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
      compaction_id: outcome.compactionId ?? null,
      from_turn: proposal.fromTurn,
      to_turn: proposal.toTurn,
    });
    return;
  }
  const what = renderProposalLine(proposal).replace(/^Proposed: compact /, "");
  context.out(
    outcome.kind === "applied"
      ? `Applied to ${outcome.sourceId}: compacted ${what}. Archived review ${outcome.reviewId}; ${outcome.sourceId} is active again.`
      : `The proposal was already applied to ${outcome.sourceId}; archived review ${outcome.reviewId} and switched back.`,
  );
}
