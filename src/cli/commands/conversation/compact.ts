/**
 * `cxc conversation compact [ID]`: appends compaction overlays (nothing stored is changed), or
 * records a reset of them, or undoes the latest reset. Run order: docs/compaction-model.md, "One compact run": check
 * the flags, lock, snapshot, reset or plan, preview (`--dry-run`) or generate every summary, then
 * append all the new events in one append and print the timeline.
 *
 * The handler is thin: flag parsing, rules, summaries, the run and its rendering live in
 * `src/cli/compaction/`.
 */
import { describeNativeSummaries } from "../../../compaction/summaries.js";
import { type Command, Option } from "commander";
import { CxcError, usageError } from "../../../errors.js";
import type { CompactFlags, CompactRequest } from "../../compaction/options.js";
import type { CompactionRunResult } from "../../compaction/run.js";
import type { CompactionEnvironment } from "../../../compaction/environment.js";
import type { ConversationEvent } from "../../../core/conversation/events.js";
import { CliContext } from "../../context.js";
import { attachedValue, collectAttached } from "../../flag-values.js";
import { parsePickerTarget, resolveConversation, resolveTargets } from "../../targets.js";
import { timestampNow, assertNoOpenReview, newEventId } from "../../../store/index.js";
import { parseCompactFlags } from "../../compaction/options.js";
import { resetCompactions, undoLatestReset } from "../../compaction/reset.js";
import { commandCompaction } from "../../compaction/environment.js";
import { prepare } from "../../../compaction/core/prepare.js";
import { appliedResult, dryRunResult } from "../../compaction/run.js";
import { renderRunText, runToJson } from "../../compaction/render.js";
import { capitalize, describeRange } from "../../../core/present/labels.js";
import { runnable, compact } from "../../../compaction/compact.js";
import { withInterrupts } from "../../interrupt.js";
import { measureNextRequest } from "../../../query/compaction.js";
import * as review from "../../compaction/review.js";

/** What `compact --help` says after the options: what a bare `compact` does, and examples. */
const COMPACT_HELP = `
Without rule flags, compact applies the configured rules (conversation.compaction.rules), or else
the built-in rule: keep the first and the last turn, strip the reasoning and the tool calls of the
turns between. Nothing is deleted: a compaction is an entry appended to the log, and --reset takes
it back.

Examples:
  cxc c compact --dry-run          preview the default rule on the active conversation
  cxc c compact                    apply it
  cxc c compact -k s:..-3          summarize all but the last three turns (offline digest, or -m MODEL)
  cxc c compact -k r+t:-5calls     all but the last five tool calls shrink to one-line placeholders
  cxc c compact -r --keep-last 2   strip the reasoning of all but the last two turns
  cxc c compact --interactive      review a summary with the model before anything is applied
  cxc c compact --reset            retire every compaction (recorded; --undo-reset brings them back)
`;

/** Defines the command on its entry in the registry (index.ts): flags, help and handler. */
export function define(entry: Command): void {
  entry
    .description("compact a conversation's history without deleting anything (default: the active one)")
    .argument(
      "[ID...]",
      "conversations: ids or unique prefixes, `active` (or `.`), `recent`, `-` (ids on stdin); put them before -s/-t/-k, which take optional values",
    )
    .option(
      "--keep-first <B>",
      'leave the first turns alone: N turns, @N, -N, a duration (5h), last-compaction, "N calls", "N cycles" or @T.C',
    )
    .option(
      "--keep-last <B>",
      'leave the last turns alone: N turns, @N, -N, a duration, "N calls", "N cycles" or @T.C',
    )
    .option(
      "--from <B>",
      "start at turn N (1-based), cycle C of turn T (T.C), -N from the end, a duration ago, or last-compaction",
    )
    .option(
      "--to <B>",
      "end at turn N (1-based), cycle C of turn T (T.C), -N from the end, or a duration ago",
    )
    .option("--first [N]", "only the first N turns (default 1)")
    .option("--last [N]", "only the last N turns (default 1)")
    .option("--turn <N|A..B>", "only turn N or turns A..B (1-based; A.. and ..B are open)")
    .option("-r, --reasoning", "ad-hoc rule: strip reasoning")
    .addOption(
      new Option(
        "-t, --tools [MODE]",
        "ad-hoc rule: tool calls strip (s), strip-requests (sreq), strip-responses (sres) or omit (o); default strip",
      ).argParser(attachedValue),
    )
    .addOption(
      new Option(
        "-s, --summarize [CONTEXT]",
        "ad-hoc rule: replace the range with a summary; CONTEXT focuses it",
      ).argParser(attachedValue),
    )
    .addOption(
      new Option(
        "-k, --compact [SPEC]",
        "rules as POLICIES[:RANGE], e.g. r+t:..-2, s:2..10 or t=sres:-5calls (repeatable; bare: the configured rules)",
      )
        .preset("")
        .argParser(collectAttached),
    )
    .addOption(
      new Option("-m, --model <ID>", "summarize with this model (builtin/digest works offline)").argParser(
        attachedValue,
      ),
    )
    .option(
      "--native",
      "summarize with the provider's own on-demand compaction (Anthropic models); cxc's summary where it cannot stand",
    )
    .option("--note <TEXT>", "why, in one sentence (at most 200 characters), recorded on each compaction")
    .option("--dry-run", "show what would be compacted and the tokens saved; change nothing")
    .addOption(
      new Option(
        "--reset [N]",
        "retire all compactions in force, or only the N-th as `show` numbers them, or those from A to B (`=` required: --reset=2, --reset=3..4); a reset is recorded and can be undone with --undo-reset",
      ),
    )
    .option("--undo-reset", "undo the latest reset, bringing back what it retired")
    .option("-y, --yes", "do not ask for confirmation")
    .option("--interactive", "review the compaction with the model in a new conversation before applying it")
    .option("--continue", "apply the active review's latest proposal, then archive the review")
    .option("--abort", "end the active review without applying anything")
    .option(
      "--confirm",
      "with --continue: ask before applying (the default at a terminal; an error in a pipe)",
    )
    .option("--no-confirm", "with --continue: apply without asking (same as --yes)")
    .addHelpText("after", COMPACT_HELP)
    .action(async (idArguments: string[], flags: CompactFlags, command: Command) => {
      const context = CliContext.from(command);
      const format = context.format();
      const reviewMode = review.reviewModeOf(flags);
      if (reviewMode !== undefined) {
        if (idArguments.length > 1) {
          throw usageError(
            `--${reviewMode} reviews one conversation; ${idArguments.length} were given`,
            "start one review at a time",
          );
        }
        // A picker target (`?`) is resolved here; the review resolves ids and keywords itself.
        const target = idArguments[0];
        const picked =
          parsePickerTarget(target) === undefined ? target : await resolveConversation(context, target);
        return review.runReviewMode(context, reviewMode, picked, flags);
      }
      const target = separateResetTarget(idArguments, flags, rawArguments(command));
      const request = parseCompactFlags(target.flags, timestampNow());
      const ids = await resolveCompactTargets(context, target);
      for (const id of ids) review.refuseCompactionOfReview(context, id);
      // jp compacts several conversations in one call, one after another, each under its lock.
      const results: CompactOutcome[] = [];
      let environment: CompactionEnvironment | undefined;
      for (const id of ids) {
        if (request.kind !== "compact") {
          results.push(await runReset(context, id, request));
          continue;
        }
        environment ??= await compactionEnvironment(context);
        results.push(await runCompact(context, id, request, environment));
      }
      if (format === "json") {
        const documents = results.map((result) => result.json);
        context.outJson(documents.length === 1 ? documents[0] : documents);
      } else if (results.length === 1) {
        context.out(results[0]!.text);
      } else {
        context.out(results.map((result) => `${result.id}:\n${indent(result.text)}`).join("\n\n"));
      }
      if (request.kind === "reset" && results.some((result) => result.recordedReset)) {
        context.info(
          "The reset is recorded; `cxc conversation compact --undo-reset` brings the compactions back.",
        );
      }
    });
}

/** What one target's run printed and answered. */
interface CompactOutcome {
  readonly id: string;
  readonly text: string;
  readonly json: unknown;
  /** True when a reset was appended (not for a dry run, an undo, or nothing to reset). */
  readonly recordedReset?: boolean;
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => (line === "" ? line : `  ${line}`))
    .join("\n");
}

interface CompactTarget {
  readonly ids: readonly string[];
  /** The word `--reset` took as its value without `=`: a target (`--reset recent`). */
  readonly resetWord?: string;
  readonly flags: CompactFlags;
}

/**
 * `--reset` takes its index only after `=` (jp): in `--reset recent`, `recent` is the target.
 * Commander cannot express that, so the raw arguments tell the two spellings apart.
 */
function separateResetTarget(
  idArguments: readonly string[],
  flags: CompactFlags,
  rawArgs: readonly string[],
): CompactTarget {
  if (typeof flags.reset !== "string" || rawArgs.some((argument) => argument.startsWith("--reset="))) {
    return { ids: idArguments, flags };
  }
  return { ids: [...idArguments, flags.reset], resetWord: flags.reset, flags: { ...flags, reset: true } };
}

/**
 * The conversations to act on. A number after `--reset` that names no conversation was meant as
 * an index: the error says to write `--reset=N`.
 */
async function resolveCompactTargets(context: CliContext, target: CompactTarget): Promise<string[]> {
  try {
    return await resolveTargets(context, target.ids);
  } catch (error) {
    const word = target.resetWord;
    if (
      word !== undefined &&
      /^\d+$/.test(word) &&
      CxcError.isInstance(error) &&
      error.code === "conversation-not-found"
    ) {
      throw usageError(
        `no conversation matches '${word}' (--reset took it as a conversation)`,
        `to retire compaction ${word}, write --reset=${word}: --reset takes its number after \`=\``,
      );
    }
    throw error;
  }
}

function rawArguments(command: Command): readonly string[] {
  let root = command;
  while (root.parent) root = root.parent;
  return (root as unknown as { rawArgs?: string[] }).rawArgs ?? [];
}

async function runReset(
  context: CliContext,
  id: string,
  request: Extract<CompactRequest, { kind: "reset" | "undo-reset" }>,
): Promise<CompactOutcome> {
  const outcome = await context.store.locked(id, "compact --reset", (conversation) => {
    if (!request.dryRun) assertNoOpenReview(context.store, id);
    const { events, warnings } = conversation.load();
    for (const warning of warnings) context.warn(warning);
    const ids = { id: newEventId(), ts: timestampNow(), dryRun: request.dryRun };
    const result =
      request.kind === "reset"
        ? resetCompactions(events, {
            ...ids,
            ...(request.index === undefined ? {} : { index: request.index }),
            ...(request.last === undefined ? {} : { last: request.last }),
          })
        : undoLatestReset(events, ids);
    if (result.event !== undefined) conversation.append([result.event]);
    return result;
  });
  return {
    id,
    text: outcome.message,
    json: {
      id,
      dry_run: request.dryRun,
      action: request.kind,
      message: outcome.message,
      reset_id: outcome.event?.id ?? null,
      compactions: outcome.compactionIds,
      retired: outcome.retiredIds,
      restored: outcome.restoredIds,
    },
    recordedReset: request.kind === "reset" && outcome.event !== undefined,
  };
}

/** The command's compaction environment: summary copies, summary checks, progress. */
async function compactionEnvironment(context: CliContext): Promise<CompactionEnvironment> {
  return commandCompaction(context, { copies: true, checkLosses: true });
}

/** `compact` of one conversation: a dry run, or the rules carried out under its lock. */
async function runCompact(
  context: CliContext,
  id: string,
  request: Extract<CompactRequest, { kind: "compact" }>,
  environment: CompactionEnvironment,
): Promise<CompactOutcome> {
  const rules = environment.rules(request.explicit, {
    range: request.range,
    ...(request.model === undefined ? {} : { model: request.model }),
    ...(request.native === true ? { native: true } : {}),
    ...(request.note === undefined ? {} : { note: request.note }),
  });
  if (request.native === true && !rules.rules.some((rule) => rule.summary !== undefined)) {
    throw usageError(
      "--native asks for a summary, and no rule writes one; add -s, an s policy in -k (-k s:1..6), or a configured summary rule",
    );
  }
  const countTokens = await environment.counter(id);
  let result: CompactionRunResult;
  if (request.dryRun) {
    const conversation = context.store.load(id);
    for (const warning of conversation.warnings) context.warn(warning);
    const events = conversation.events;
    const preparation = runnable(
      prepare(events, rules, environment.settings(conversation.meta, countTokens)),
    );
    if (preparation.kind === "planned" && !context.json) {
      for (const line of describeNativeSummaries(preparation, environment)) context.info(line);
    }
    result = await withContextEffect(dryRunResult(preparation), events, {
      config: environment.config,
      env: context.env,
      countTokens,
    });
  } else {
    const warnings: string[] = [];
    const report = await withInterrupts((signal) =>
      context.store.locked(id, "compact", (conversation) => {
        assertNoOpenReview(context.store, id);
        const loaded = conversation.load();
        warnings.push(...loaded.warnings);
        const preparation = prepare(loaded.events, rules, environment.settings(loaded.meta, countTokens));
        return compact(preparation, environment, { into: conversation, signal });
      }),
    );
    for (const warning of warnings) context.warn(warning);
    result = appliedResult(report);
  }
  if (result.kind === "nothing" && result.reason !== undefined && !context.json) {
    context.info(`${capitalize(result.reason)}.`);
  }
  await warnOfLittleSavings(context, result);
  return { id, text: renderRunText(result), json: runToJson(id, result) };
}

/** The dry run's result with the context of the next request before and after (docs/context.md). */
async function withContextEffect(
  result: CompactionRunResult,
  events: readonly ConversationEvent[],
  options: Parameters<typeof import("../../../query/compaction.js").measureNextRequest>[1],
): Promise<CompactionRunResult> {
  if (result.kind !== "planned" || result.previewed === undefined) return result;
  const { effect } = await measureNextRequest(events, options);
  return { ...result, context: effect(events, result.previewed) };
}

/** A rule that saves under 1 % of its turns' tokens is said on stderr (it still applies). */
async function warnOfLittleSavings(context: CliContext, result: CompactionRunResult): Promise<void> {
  if (result.kind !== "planned") return;
  for (const { segment, label, savesLittle } of result.segments) {
    if (!savesLittle) continue;
    const what = label === undefined ? "" : ` (${label.replace(/^summary: .*/, "summary")})`;
    context.warn(
      `rule ${segment.ruleIndex + 1}${what} saves under 1% of the tokens of ${describeRange(segment)}: there is little of that kind to remove there`,
    );
  }
}
