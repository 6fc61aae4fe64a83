/**
 * `cxc conversation compact [ID]`: appends compaction overlays (nothing stored is changed), or
 * records a reset of them, or undoes the latest reset. Run order as jp's (reference §8.2): check
 * the flags, lock, snapshot, reset or plan, preview (`--dry-run`) or generate every summary, then
 * append all the new events in one append and print the timeline.
 *
 * The handler is thin: flag parsing, rules, summaries, the run and its rendering live in
 * `src/cli/compaction/`.
 */
import { type Command, Option } from "commander";
import { usageError } from "../../../errors.js";
import type { CompactFlags, CompactRequest } from "../../compaction/options.js";
import type { CompactionRunResult } from "../../compaction/run.js";
import { CliContext } from "../../context.js";

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function registerCompact(conversation: Command): void {
  conversation
    .command("compact")
    .description("compact a conversation's history without deleting anything (default: the active one)")
    .argument("[ID]", "conversation id or unique prefix (put it before -s/-t/-k, which take optional values)")
    .option(
      "--keep-first <B>",
      "leave the first turns alone: N turns, @N, -N, a duration (5h) or last-compaction",
    )
    .option("--keep-last <B>", "leave the last turns alone: N turns, @N, -N or a duration")
    .option("--from <B>", "start at turn N (1-based), -N from the end, a duration ago, or last-compaction")
    .option("--to <B>", "end at turn N (1-based), -N from the end, or a duration ago")
    .option("--first [N]", "only the first N turns (default 1)")
    .option("--last [N]", "only the last N turns (default 1)")
    .option("--turn <N|A..B>", "only turn N or turns A..B (1-based; A.. and ..B are open)")
    .option("-r, --reasoning", "ad-hoc rule: strip reasoning")
    .option(
      "-t, --tools [MODE]",
      "ad-hoc rule: tool calls strip (s), strip-requests (sreq), strip-responses (sres) or omit (o); default strip",
    )
    .option("-s, --summarize [CONTEXT]", "ad-hoc rule: replace the range with a summary; CONTEXT focuses it")
    .addOption(
      new Option(
        "-k, --compact [SPEC]",
        "rules as POLICIES[:RANGE], e.g. r+t:..-2 or s:2..10 (repeatable; bare: the configured rules)",
      )
        .preset("")
        .argParser(collect),
    )
    .option("-m, --model <ID>", "summarize with this model (builtin/digest works offline)")
    .option("--note <TEXT>", "why, in one sentence (at most 200 characters), recorded on each compaction")
    .option("--dry-run", "show what would be compacted and the tokens saved; change nothing")
    .addOption(
      new Option(
        "--reset [N]",
        "retire all compactions in force, or only the N-th as `show` numbers them (`=` required: --reset=2); a reset is recorded and can be undone with --undo-reset",
      ),
    )
    .option("--undo-reset", "undo the latest reset, bringing back what it retired")
    .option("-y, --yes", "do not ask for confirmation")
    .option("--interactive", "review the compaction with the model in a new conversation before applying it")
    .option("--continue", "apply the active review's latest proposal, then archive the review")
    .option("--abort", "end the active review without applying anything")
    .option("--no-confirm", "with --continue: apply without asking (same as --yes)")
    .action(async (idArgument: string | undefined, flags: CompactFlags, command: Command) => {
      const context = CliContext.from(command);
      const format = context.format();
      const review = await import("../../compaction/review.js");
      const reviewMode = review.reviewModeOf(flags);
      if (reviewMode !== undefined) return review.runReviewMode(context, reviewMode, idArgument, flags);
      const { assertNoOpenReview, newEventId, timestampNow } = await import("../../../store/index.js");
      const { parseCompactFlags } = await import("../../compaction/options.js");
      const target = separateResetTarget(idArgument, flags, rawArguments(command));
      const request = parseCompactFlags(target.flags, timestampNow());
      const id = context.store.resolveTarget(target.id);
      if (request.kind !== "compact") {
        const { resetCompactions, undoLatestReset } = await import("../../compaction/reset.js");
        const outcome = await context.store.locked(id, "compact --reset", () => {
          if (!request.dryRun) assertNoOpenReview(context.store, id);
          const { events, warnings } = context.store.load(id);
          for (const warning of warnings) context.warn(warning);
          const ids = { id: newEventId(), ts: timestampNow(), dryRun: request.dryRun };
          const result =
            request.kind === "reset"
              ? resetCompactions(events, {
                  ...ids,
                  ...(request.index === undefined ? {} : { index: request.index }),
                })
              : undoLatestReset(events, ids);
          if (result.event !== undefined) context.store.append(id, [result.event]);
          return result;
        });
        if (format === "json") {
          context.outJson({
            id,
            dry_run: request.dryRun,
            action: request.kind,
            message: outcome.message,
            reset_id: outcome.event?.id ?? null,
            compactions: outcome.compactionIds,
          });
        } else context.out(outcome.message);
        if (request.kind === "reset" && outcome.event !== undefined) {
          context.info(
            "The reset is recorded; `cxc conversation compact --undo-reset` brings the compactions back.",
          );
        }
        return;
      }
      await runCompact(context, id, request, format, { newEventId, timestampNow });
    });
}

/**
 * `--reset` takes its index only after `=` (jp): in `--reset recent`, `recent` is the target.
 * Commander cannot express that, so the raw arguments tell the two spellings apart.
 */
function separateResetTarget(
  idArgument: string | undefined,
  flags: CompactFlags,
  rawArgs: readonly string[],
): { id: string | undefined; flags: CompactFlags } {
  if (typeof flags.reset !== "string" || rawArgs.some((argument) => argument.startsWith("--reset="))) {
    return { id: idArgument, flags };
  }
  if (idArgument !== undefined) {
    throw usageError(`unexpected argument '${flags.reset}'`, "--reset takes its number after `=`: --reset=2");
  }
  return { id: flags.reset, flags: { ...flags, reset: true } };
}

function rawArguments(command: Command): readonly string[] {
  let root = command;
  while (root.parent) root = root.parent;
  return (root as unknown as { rawArgs?: string[] }).rawArgs ?? [];
}

async function runCompact(
  context: CliContext,
  id: string,
  request: Extract<CompactRequest, { kind: "compact" }>,
  format: "text" | "json",
  ids: { newEventId: () => string; timestampNow: () => string },
): Promise<void> {
  const { loadConfig } = await import("../../config.js");
  const { buildEffectiveRules } = await import("../../compaction/config-rules.js");
  const { appliedResult, planRun, previewPlan } = await import("../../compaction/run.js");
  const { renderRunText, runToJson } = await import("../../compaction/render.js");
  const config = loadConfig({ cwd: context.cwd, env: context.env, overlays: context.options.cfg });
  for (const warning of config.warnings) context.warn(warning);
  const rules = buildEffectiveRules(config.values, request.explicit, request.model);
  const runOptions = {
    rules,
    overrides: request.overrides,
    now: ids.timestampNow(),
    ...(request.note === undefined ? {} : { note: request.note }),
  };
  let result: CompactionRunResult;
  if (request.dryRun) {
    const conversation = context.store.load(id);
    for (const warning of conversation.warnings) context.warn(warning);
    const events = conversation.events;
    const plan = planRun(events, runOptions);
    // Token counts are cached with the conversation (in the file store, tokens.cache.json beside
    // the log, safe to delete), so a repeated preview does not tokenize the whole conversation again.
    result =
      plan.kind === "planned"
        ? previewPlan(events, plan, await context.store.tokenCounter(id))
        : { kind: "nothing", message: plan.message };
  } else {
    const { applyCompaction } = await import("../../../query/apply-compaction.js");
    const { assertNoOpenReview } = await import("../../../store/index.js");
    const { startProgress } = await import("../../compaction/progress.js");
    const { withInterrupts } = await import("../../interrupt.js");
    const applied = await withInterrupts((signal) =>
      applyCompaction(context.store, id, "compact", {
        check: () => assertNoOpenReview(context.store, id),
        plan: (events) => planRun(events, runOptions),
        summaries: {
          config: config.values,
          env: context.env,
          signal,
          report: {
            info: (text) => context.info(text),
            warn: (text) => context.warn(text),
            progress: (label) => startProgress(process.stderr, label),
          },
          copies: { conversationId: id },
          checkLosses: true,
        },
        newEventId: () => ids.newEventId(),
        now: () => ids.timestampNow(),
      }),
    );
    for (const warning of applied.warnings) context.warn(warning);
    result = appliedResult(applied);
  }
  if (format === "json") context.outJson(runToJson(id, result));
  else context.out(renderRunText(result));
}
