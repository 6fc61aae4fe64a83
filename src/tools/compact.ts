/**
 * The built-in `compact` tool (docs/compact-tool.md): the assistant proposes compaction rules for the
 * conversation it is in, the user approves the resolved plan, and the compactions are recorded
 * as effects of the call, deferred until the next turn starts.
 *
 * Enabled only when named (`-t compact`, or `-u compact` to force a call) and `run = ask` by
 * default. Before the approval prompt, `describeCall` plans the call against the conversation and
 * shows the plan (ranges, what replaces them, tokens saved, boundary excerpts, the note), and
 * writes one preview file per rule, holding everything that rule would drop, to the user's
 * private scratch directory (store/scratch.ts: mode 0700, files 0600, never overwritten, removed
 * after a day). `run` plans again, against the same events, and returns the `compaction` events
 * (built by core's one constructor) as effects; the turn loop stores them in the same append as
 * the tool response.
 *
 * Planning, validation and every text live in the pure `compaction/core/tool/compact-tool.ts`, the
 * call is prepared like every compaction request (`prepare`) and recorded by the one compaction
 * step (`compact`, src/compaction/compact.ts); this module adds only the token counter, the
 * temporary files, and the `Tool` shape.
 */
import { describeCompactionCost } from "../compaction/core/advisor/cache-cost.js";
import { describeContextChange } from "../compaction/core/advisor/context-gauge.js";
import { rangeSlug } from "../core/present/labels.js";
import { errorMessage } from "../errors.js";
import { writeScratchFile } from "../store/index.js";
import { lazySchema, type ToolArguments } from "./arguments.js";
import {
  COMPACT_TOOL_NAME,
  compactToolArgumentsSchema,
  type CompactToolPlan,
  type CompactToolRule,
  describeRecordedCall,
  summarizeRecordedCall,
  parseCompactArguments,
  renderApprovalPreview,
  renderDroppedContent,
} from "../compaction/core/tool/compact-tool.js";
import { compact } from "../compaction/compact.js";
import { type PlannedPreparation, prepare } from "../compaction/core/prepare.js";
import { type CompactionEnvironment, createCompactionEnvironment } from "../compaction/environment.js";
import { compactArgumentsEditing } from "./compact-editing.js";
import { checkNoOpenReview } from "../compaction/core/review/review.js";
import type { StoreReader } from "../store/index.js";
import { builtinTool, type Tool, type ToolCallContext, type ToolOutcome } from "./tool.js";

const DESCRIPTION = [
  "Propose compaction rules for this conversation: replace a range of earlier turns with your own",
  "summary, or strip reasoning or tool calls from them, to keep the context small. The user approves",
  "every call. Approved compactions take effect when the user's next message starts a new turn; for",
  "the rest of this turn you keep seeing the conversation as it is now.",
  "",
  "Turns are not numbered for you. Name a range by quoting text you were shown, verbatim:",
  "`before_quote` ends the range at the turn before the quoted one, `after_quote` starts it at the",
  "turn after. Or count turns: `keep_first` (default 0) and `keep_last` (default and minimum 1: the",
  "turn in progress is always kept). A quote must appear in exactly one turn and not inside an",
  "existing summary; if it does not, the error tells you which turns matched.",
  "",
  "In this turn, a quote from an earlier step (a tool result, your earlier text) names that step:",
  "`after_quote` starts the range at the next step and, without `before_quote`, the range ends",
  "just before this call; `before_quote` ends it at the step before. The user's message and this",
  "call are always kept.",
  "",
  "A summary must stand alone: it replaces the turns entirely. A summary may cover an existing",
  "summary entirely but may not split one.",
].join("\n");

/**
 * The tool's arguments: the JSON Schema the model is shown and the check of a call, both from the
 * one schema (compact-tool-arguments.ts: its fields, then the rules' cross-field checks), which
 * gives the validated rules.
 */
export const COMPACT_TOOL_ARGUMENTS: ToolArguments<readonly CompactToolRule[]> = {
  get schema() {
    return lazySchema(compactToolArgumentsSchema());
  },
  check: async (argumentsObject) => {
    const parsed = parseCompactArguments(argumentsObject);
    return parsed.ok
      ? { ok: true, value: parsed.rules }
      : { ok: false, message: parsed.message, problems: parsed.message.split("\n- ").slice(1) };
  },
};

/** Writes one preview file and returns its path; throws when it cannot. */
export type PreviewWriter = (stem: string, text: string) => string;

/** Options of `createCompactTool`; tests point the preview files somewhere known. */
export interface CompactToolOptions {
  /** Default: a new private file in the user's scratch directory (store/scratch.ts). */
  readonly writePreview?: PreviewWriter;
}

type PlannedCall = Extract<CompactToolPlan, { ok: true }>;

/** The call's rules prepared against the conversation (src/compaction/core/prepare.ts), or why not. */
async function prepareCall(
  rules: readonly CompactToolRule[],
  context: Pick<ToolCallContext, "events" | "store" | "keeping" | "now">,
): Promise<
  (PlannedPreparation & { readonly call: PlannedCall }) | { readonly ok: false; readonly message: string }
> {
  const countTokens = await context.store.tokenCounter();
  const preparation = prepare(
    context.events,
    { kind: "tool", rules },
    {
      now: context.now(),
      countTokens,
      ...(context.keeping === undefined ? {} : { keeping: context.keeping }),
    },
  );
  if (preparation.kind !== "planned") return { ok: false, message: preparation.message };
  return { ...preparation, call: { ok: true, ...preparation.tool! } };
}

/** The turn's compaction environment; its clock is the call's. */
function environmentOf(context: ToolCallContext): CompactionEnvironment {
  return (
    context.compaction ??
    createCompactionEnvironment({
      config: {},
      env: {},
      report: { info: () => undefined, warn: () => undefined },
      counter: () => context.store.tokenCounter(),
      clock: context,
    })
  );
}

/**
 * One preview file per rule, named with the rule's number and its 1-based turns
 * (`<id>-compact-1-turns-2-5-<random>.md`, `<id>-compact-1-turn-6-cycles-2-9-<random>.md`). A file that cannot be written is left out of the
 * prompt, with the reason.
 */
function writePreviewFiles(
  plan: PlannedCall,
  conversationId: string,
  write: PreviewWriter,
): { paths: (string | undefined)[]; problem?: string } {
  let problem: string | undefined;
  const paths = plan.rules.map((planned) => {
    const stem = `${conversationId}-compact-${planned.index + 1}-${rangeSlug(planned)}`;
    try {
      return write(stem, renderDroppedContent(planned, { ruleCount: plan.rules.length }));
    } catch (error) {
      problem ??= errorMessage(error);
      return undefined;
    }
  });
  return problem === undefined ? { paths } : { paths, problem };
}

/** The prompt text for a call that will only be answered with an error. */
function describeInvalidCall(message: string): string {
  return `compact — this proposal cannot be applied; if run, the model gets this error and nothing is recorded:\n${message}`;
}

/**
 * The answer to a call that cannot be applied (bad arguments, an unresolvable quote, a conflicting
 * summary), or undefined when the call can be put to the user. For a turn-loop pre-check hook:
 * such calls can go straight back to the model, which corrects itself without involving the user.
 */
export async function precheckCompactCall(
  argumentsObject: Readonly<Record<string, unknown>>,
  context: Pick<ToolCallContext, "events" | "now" | "store" | "keeping">,
): Promise<ToolOutcome | undefined> {
  const checked = await COMPACT_TOOL_ARGUMENTS.check(argumentsObject);
  if (!checked.ok) return { content: checked.message, isError: true };
  const prepared = await prepareCall(checked.value, context);
  return "call" in prepared ? undefined : { content: prepared.message, isError: true };
}

/**
 * While a compaction review of this conversation is open, no compaction may be written to it
 * (docs/review.md): the tool answers with the refusal so the model can tell the user.
 */
function openReviewRefusal(store: StoreReader, conversationId: string): string | undefined {
  const refusal = checkNoOpenReview(store.openReviews(), conversationId, "compact");
  return refusal === undefined ? undefined : `${refusal.message} (${refusal.hint})`;
}

/** The approval's text with what the rules do to the context of the next request (docs/context.md). */
function withContextChange(preview: string, plan: PlannedCall, context: ToolCallContext): string {
  const measure = context.compactionEffect;
  if (measure === undefined) return preview;
  const effect = measure(
    context.events,
    plan.rules.map((planned) => planned.compaction),
  );
  return `${preview}\n${describeContextChange(effect.before, effect.after)}\n${describeCompactionCost(effect.cost)}`;
}

/** Builds the `compact` tool. */
export function createCompactTool(options: CompactToolOptions = {}): Tool<readonly CompactToolRule[]> {
  const writePreview: PreviewWriter =
    options.writePreview ?? ((stem, text) => writeScratchFile(process.env, stem, text));
  return builtinTool({
    name: COMPACT_TOOL_NAME,
    description: DESCRIPTION,
    arguments: COMPACT_TOOL_ARGUMENTS,
    defaults: { enable: "explicit", run: "ask" },
    editing: compactArgumentsEditing,

    async precheck(rules, context: ToolCallContext): Promise<ToolOutcome | undefined> {
      const underReview = openReviewRefusal(context.store, context.conversationId);
      if (underReview !== undefined) return { content: underReview, isError: true };
      const prepared = await prepareCall(rules, context);
      return "call" in prepared ? undefined : { content: prepared.message, isError: true };
    },

    describeInvalid: describeInvalidCall,

    async describeCall(rules, context: ToolCallContext): Promise<string> {
      const prepared = await prepareCall(rules, context);
      if (!("call" in prepared)) return describeInvalidCall(prepared.message);
      const plan = prepared.call;
      const previews = writePreviewFiles(plan, context.conversationId, writePreview);
      const preview = withContextChange(renderApprovalPreview(plan, previews.paths), plan, context);
      return previews.problem === undefined ? preview : `${preview}\n(no preview file: ${previews.problem})`;
    },

    async run(rules, context: ToolCallContext): Promise<ToolOutcome> {
      const underReview = openReviewRefusal(context.store, context.conversationId);
      if (underReview !== undefined) return { content: underReview, isError: true };
      const prepared = await prepareCall(rules, context);
      if (!("call" in prepared)) return { content: prepared.message, isError: true };
      // The compactions are the call's effects: the turn loop stores them with its response.
      const report = await compact(prepared, environmentOf(context));
      return {
        content: describeRecordedCall(prepared.call),
        display: summarizeRecordedCall(prepared.call),
        isError: false,
        effects: report.kind === "compacted" ? report.compactions : [],
      };
    },
  });
}

/** The `compact` tool with its default options, for the built-in registry. */
export const compactTool = createCompactTool();
