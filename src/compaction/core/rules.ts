/**
 * Compaction rules: what to compact and how (docs/compaction-model.md; configuration in docs/compaction.md). Pure.
 *
 * A rule names where its range starts and ends (`keep_first`, `keep_last`: bounds of the one
 * position algebra, core/position/bound.ts) and the policies for the turns between: strip
 * reasoning, a tool-call mode, and/or a summary (to generate, or supplied). Rules come from config
 * (`conversation.compaction.rules`), the `-k` DSL, `-r/-t/-s`, the `compact` tool, a review's
 * agreed proposal and automatic compaction. Each rule that resolves to a non-empty range becomes
 * one `compaction` event (a summary inside turns: one per piece).
 *
 * Keys are snake_case because they are the config keys. An unset `keep_first`/`keep_last` means
 * the per-rule default, 1 turn (compaction/core/plan.ts, `ruleRange`).
 */
import * as z from "zod/mini";
import en from "zod/v4/locales/en.js";
import type { NativeSummary, ToolCallsPolicy } from "../../core/conversation/events.js";
import type { Parsed } from "../../core/parsed.js";
import type { Bound } from "../../core/position/bound.js";
import { readKeep } from "../../core/position/parse.js";

/** How tool calls are compacted, in its canonical spelling. */
export type ToolCallsMode = "strip" | "strip-requests" | "strip-responses" | "omit";

const TOOL_CALLS_MODE_SPELLINGS: ReadonlyMap<string, ToolCallsMode> = new Map([
  ["strip", "strip"],
  ["s", "strip"],
  ["strip-requests", "strip-requests"],
  ["strip_requests", "strip-requests"],
  ["sreq", "strip-requests"],
  ["strip-responses", "strip-responses"],
  ["strip_responses", "strip-responses"],
  ["sres", "strip-responses"],
  ["omit", "omit"],
  ["o", "omit"],
]);

/** The message for a bad `-t/--tools` value on the command line. */
export const TOOL_CALLS_MODE_CHOICES =
  "expected one of: strip (s), strip-requests (sreq), strip-responses (sres), omit (o)";

/** Parses a tool-call mode or one of its aliases (`s`, `sreq`, `sres`, `o`, underscore forms). */
export function parseToolCallsMode(text: string): Parsed<ToolCallsMode> {
  const mode = TOOL_CALLS_MODE_SPELLINGS.get(text);
  return mode === undefined
    ? { ok: false, message: `unknown tool_calls mode: \`${text}\`` }
    : { ok: true, value: mode };
}

/** The event policy a tool-call mode writes (docs/compaction-model.md, "The compaction event"). */
export function toolCallsPolicyFor(mode: ToolCallsMode): ToolCallsPolicy {
  switch (mode) {
    case "strip":
      return { policy: "strip", request: true, response: true };
    case "strip-requests":
      return { policy: "strip", request: true, response: false };
    case "strip-responses":
      return { policy: "strip", request: false, response: true };
    case "omit":
      return { policy: "omit" };
  }
}

/** The summarizer model of a rule; unset fields fall back to the assistant model. */
export interface SummaryModel {
  id?: string;
  parameters?: Record<string, unknown>;
}

/** A rule's summary settings. Its presence means "summarize"; it beats the mechanical policies. */
export interface SummaryRule {
  /** Replaces the summarizer's system prompt. */
  instructions?: string;
  /** Extra guidance appended to the summarize request. */
  context?: string;
  model?: SummaryModel;
  /**
   * Ask the model for the provider's own summary (Anthropic's on-demand compaction) where it can
   * stand; cxc writes its own where it cannot, or when the provider refuses
   * (docs/native-compaction.md).
   */
  native?: boolean;
}

/** A summary whose text is given (typed by a person, written by the assistant), not generated. */
export interface SuppliedSummary {
  readonly text: string;
  readonly author: "user" | "assistant";
  /** The provider's own summary the text stands for (an imported encrypted compaction). */
  readonly native?: NativeSummary;
}

/** One compaction rule. */
export interface CompactionRule {
  /** Where the range starts (`keep_first = 1`: after the first turn); default 1 turn kept. */
  keep_first?: Bound;
  /** Where the range ends (`keep_last = 1`: before the last turn); default 1 turn kept. */
  keep_last?: Bound;
  reasoning?: "strip";
  tool_calls?: ToolCallsMode;
  /** A summary to generate. */
  summary?: SummaryRule;
  /** A summary whose text is given (the `compact` tool, an agreed review); never with `summary`. */
  supplied?: SuppliedSummary;
  /** Why, for this rule's compaction alone (the `compact` tool's rules each have one). */
  note?: string;
}

/** The per-rule defaults for an unset `keep_first`/`keep_last`: one turn kept at each end. */
export const DEFAULT_KEEP_FIRST: Bound = Object.freeze({
  kind: "count",
  unit: "turns",
  count: 1,
  from: "start",
});
export const DEFAULT_KEEP_LAST: Bound = Object.freeze({
  kind: "count",
  unit: "turns",
  count: 1,
  from: "end",
});

/** The built-in rule used when no rule is configured: keep 1 and 1, strip reasoning and tools. */
export const DEFAULT_COMPACTION_RULE: CompactionRule = Object.freeze({
  keep_first: DEFAULT_KEEP_FIRST,
  keep_last: DEFAULT_KEEP_LAST,
  reasoning: "strip",
  tool_calls: "strip",
});

/**
 * The rules in force: the configured ones, or the built-in default when none is configured. An
 * explicitly configured empty list means "no rules" (the default is discarded once the key is set).
 */
export function configuredRules(configured: readonly CompactionRule[] | undefined): CompactionRule[] {
  return configured === undefined ? [DEFAULT_COMPACTION_RULE] : [...configured];
}

/**
 * Builds the schema of `conversation.compaction.rules` (one rule as written in config, TOML/JSON;
 * unknown keys are dropped, as jp does). Built on first use, with zod/mini like the event schemas:
 * a command that never reads configured rules loads neither the classic zod API nor these schemas
 * (see docs/decisions/003-zod-mini-for-events.md).
 */
function buildRulesSchema() {
  const keepSchema = (side: "start" | "end") =>
    z.pipe(
      z.unknown(),
      z.transform((value, context) => {
        const parsed = readKeep(value, side);
        if (parsed.ok) return parsed.value;
        context.issues.push({ code: "custom", message: parsed.message, input: value });
        return z.NEVER;
      }),
    );
  const ToolCallsModeSchema = z.pipe(
    z.string(),
    z.transform((value, context) => {
      const parsed = parseToolCallsMode(value);
      if (parsed.ok) return parsed.value;
      context.issues.push({ code: "custom", message: parsed.message, input: value });
      return z.NEVER;
    }),
  );
  const CompactionRuleSchema = z.object({
    keep_first: z.optional(keepSchema("start")),
    keep_last: z.optional(keepSchema("end")),
    reasoning: z.optional(z.literal("strip")),
    tool_calls: z.optional(ToolCallsModeSchema),
    summary: z.optional(
      z.object({
        instructions: z.optional(z.string()),
        context: z.optional(z.string()),
        native: z.optional(z.boolean()),
        model: z.optional(
          z.object({
            // `provider/name`, an alias, or jp's `{ provider, name }` table.
            id: z.optional(
              z.union([
                z.string(),
                z.pipe(
                  z.object({ provider: z.string(), name: z.string() }),
                  z.transform((id) => `${id.provider}/${id.name}`),
                ),
              ]),
            ),
            parameters: z.optional(z.record(z.string(), z.unknown())),
          }),
        ),
      }),
    ),
  });
  return z.array(CompactionRuleSchema);
}

let rulesSchema: ReturnType<typeof buildRulesSchema> | undefined;

/** Reads `conversation.compaction.rules` from config; the message names the first problem. */
export function readCompactionRules(value: unknown): Parsed<CompactionRule[]> {
  rulesSchema ??= buildRulesSchema();
  // zod/mini registers no locale of its own: the English messages are asked for here.
  const parsed = rulesSchema.safeParse(value, { error: en().localeError });
  if (parsed.success) return { ok: true, value: parsed.data.map(dropUndefined) };
  const issue = parsed.error.issues[0];
  const path = (issue?.path ?? []).map((part) =>
    typeof part === "number" ? `[${part}]` : `.${String(part)}`,
  );
  const where = path.length > 0 ? `rules${path.join("")}: ` : "";
  return { ok: false, message: `${where}${issue?.message ?? "invalid compaction rules"}` };
}

function dropUndefined(rule: CompactionRule): CompactionRule {
  return Object.fromEntries(
    Object.entries(rule).filter(([, value]) => value !== undefined),
  ) as CompactionRule;
}

/** True when the rule has a policy that changes something (a rule with none compacts nothing). */
export function ruleHasPolicy(rule: CompactionRule): boolean {
  return (
    rule.reasoning !== undefined ||
    rule.tool_calls !== undefined ||
    rule.summary !== undefined ||
    rule.supplied !== undefined
  );
}

export { describeCompaction, describePolicies } from "../../core/present/labels.js";

/**
 * The one ad-hoc rule built from `-r`, `-t[=MODE]` and `-s[=CONTEXT]` (keeps left unset, so they
 * finalize to 1 and 1); undefined when none of the flags is given. A blank context is dropped.
 */
export function buildFlagRule(flags: {
  reasoning?: boolean;
  toolCalls?: ToolCallsMode;
  summarize?: boolean | string;
}): CompactionRule | undefined {
  const rule: CompactionRule = {};
  if (flags.reasoning) rule.reasoning = "strip";
  if (flags.toolCalls !== undefined) rule.tool_calls = flags.toolCalls;
  if (flags.summarize !== undefined && flags.summarize !== false) {
    const context = typeof flags.summarize === "string" ? flags.summarize.trim() : "";
    rule.summary = context === "" ? {} : { context };
  }
  return ruleHasPolicy(rule) ? rule : undefined;
}

/** `--native`: every summary rule asks for the provider's own summary. */
export function nativeSummaries(rules: readonly CompactionRule[]): CompactionRule[] {
  return rules.map((rule) =>
    rule.summary === undefined ? rule : { ...rule, summary: { ...rule.summary, native: true } },
  );
}

/** `-m/--model`: points every summary rule's model id at `modelId`, keeping its parameters. */
export function overrideSummaryModel(rules: readonly CompactionRule[], modelId: string): CompactionRule[] {
  return rules.map((rule) =>
    rule.summary === undefined
      ? rule
      : { ...rule, summary: { ...rule.summary, model: { ...rule.summary.model, id: modelId } } },
  );
}
