/**
 * What a surface can ask of compaction, as one type (docs/architecture.md, "The compaction
 * slice"). Pure. Every surface builds one `CompactionRequest`; `prepare` (prepare.ts) turns it into
 * a preparation against a conversation, and the one effectful step (src/compaction/compact.ts)
 * carries the preparation out.
 *
 * - `rules`: rules from the command line or the configuration (`compact`, `q -k`, `fork -k`); the
 *   flags are read here, once, for every surface (`readRuleFlags`);
 * - `draft`: the opening summary of a review (`compact --interactive`);
 * - `review`: an agreed review proposal (`compact --continue`), 1-based as recorded;
 * - `cut`: automatic compaction up to the advisor's cut point (`compact_now` too);
 * - `tool`: the assistant's `compact` tool's rules;
 * - `imported`: another agent's own compaction, read from its session file.
 */
import type { CompactionOrigin, CompactionSource, NativeSummary } from "../../core/conversation/events.js";
import type { Parsed } from "../../core/parsed.js";
import type { BoundRange } from "../../core/position/bound.js";
import type { CutPoint } from "./advisor/advisor.js";
import type { ReviewProposal } from "./review/review.js";
import {
  buildFlagRule,
  type CompactionRule,
  configuredRules,
  DEFAULT_KEEP_FIRST,
  DEFAULT_KEEP_LAST,
  nativeSummaries,
  overrideSummaryModel,
  parseToolCallsMode,
  readCompactionRules,
  TOOL_CALLS_MODE_CHOICES,
  type ToolCallsMode,
} from "./rules.js";
import { combineRules, describeSpecError, parseCompactSpec, specToRule } from "./spec.js";
import type { CompactToolRule } from "./tool/compact-tool-arguments.js";

/** Rules from the command line or the configuration, with the range and note a run gives them. */
export interface RulesRequest {
  readonly kind: "rules";
  /** The rules of the run, in order (configured and explicit ones combined, `-m` applied). */
  readonly rules: readonly CompactionRule[];
  /** The range every rule takes on the sides it gives (`compact`'s range flags). */
  readonly range?: BoundRange;
  readonly note?: string;
  /** True when the rules are the built-in default rule (nothing configured, nothing given). */
  readonly defaultRule: boolean;
}

/** The opening proposal of a review: one summary rule over the range, its first piece only. */
export interface DraftRequest {
  readonly kind: "draft";
  readonly rule: CompactionRule;
  readonly range: BoundRange;
}

/** An agreed review proposal (1-based source turns, as recorded) and the review that agreed it. */
export interface ReviewRequest {
  readonly kind: "review";
  readonly proposal: ReviewProposal;
  readonly reviewId: string;
  /** The provider's own draft, when the proposal is it unchanged (`nativeDraftOutcome`). */
  readonly native?: NativeSummary;
}

/** Automatic compaction: everything up to the cut, with the automatic rules. */
export interface CutRequest {
  readonly kind: "cut";
  readonly cut: CutPoint;
  /** `conversation.compaction.auto.rules`; absent: strip, then a summary. */
  readonly rules?: readonly CompactionRule[];
  /** The compactions' note: why (at most 200 characters). */
  readonly note: string;
  /** What every summary should focus on (the note the assistant gave `compact_now`). */
  readonly focus?: string;
  /** In force at once (space is needed now); else deferred until the next turn starts. */
  readonly atOnce: boolean;
  /** `auto.native`: summaries are the provider's own where they can be. */
  readonly native?: boolean;
}

/** The `compact` tool's validated rules. */
export interface ToolRequest {
  readonly kind: "tool";
  readonly rules: readonly CompactToolRule[];
}

/** Another agent's own compaction: turns 0..`toTurn` replaced by its summary. */
export interface ImportedRequest {
  readonly kind: "imported";
  readonly toTurn: number;
  readonly summary: string;
  readonly source: CompactionSource;
  readonly note: string;
  readonly origin: CompactionOrigin;
  /** When the agent compacted. */
  readonly ts: string;
  /** The provider's own summary the text stands for (OpenAI's encrypted compaction in Codex). */
  readonly native?: NativeSummary;
  /** cxc's facts block of the turns, read from their raw events. */
  readonly facts?: string;
}

/** What a surface can ask; see the module comment. */
export type CompactionRequest =
  | RulesRequest
  | DraftRequest
  | ReviewRequest
  | CutRequest
  | ToolRequest
  | ImportedRequest;

// ---------------------------------------------------------------------------------------------
// Rules from flags and configuration, read once for every surface

/** The rule flags a surface takes: `-r`, `-t[=MODE]`, `-s[=CONTEXT]`, and each `-k` (`""`: bare). */
export interface RuleFlags {
  readonly reasoning?: boolean;
  readonly tools?: string | true;
  readonly summarize?: string | true;
  readonly compact?: readonly string[];
}

/** A problem of the rule flags or the configured rules: what is wrong, and which input it is. */
export type RuleProblem =
  | { readonly ok: false; readonly input: "spec" | "tools"; readonly message: string }
  | { readonly ok: false; readonly input: "config"; readonly message: string };

/** The explicit rules of the flags: `-r/-t/-s` (one rule), then each `-k SPEC`. */
export interface ExplicitRules {
  readonly rules: readonly CompactionRule[];
  /** A bare `-k` asks for the configured rules as well. */
  readonly withConfigured: boolean;
}

/** Reads the rule flags (see `RuleFlags`); the message is the one wording every surface shows. */
export function readRuleFlags(flags: RuleFlags): { ok: true; value: ExplicitRules } | RuleProblem {
  const rules: CompactionRule[] = [];
  let toolCalls: ToolCallsMode | undefined;
  if (flags.tools !== undefined) {
    const mode =
      flags.tools === true ? ({ ok: true, value: "strip" } as const) : parseToolCallsMode(flags.tools);
    if (!mode.ok) {
      return {
        ok: false,
        input: "tools",
        message: `invalid value '${flags.tools}' for --tools: ${TOOL_CALLS_MODE_CHOICES}`,
      };
    }
    toolCalls = mode.value;
  }
  const flagRule = buildFlagRule({
    ...(flags.reasoning ? { reasoning: true } : {}),
    ...(toolCalls === undefined ? {} : { toolCalls }),
    ...(flags.summarize === undefined ? {} : { summarize: flags.summarize }),
  });
  if (flagRule !== undefined) rules.push(flagRule);
  let withConfigured = false;
  for (const value of flags.compact ?? []) {
    if (value === "") {
      withConfigured = true;
      continue;
    }
    const spec = parseCompactSpec(value);
    if (!spec.ok) return { ok: false, input: "spec", message: describeSpecError(value, spec.message) };
    rules.push(specToRule(spec.value));
  }
  return { ok: true, value: { rules, withConfigured } };
}

/** `conversation.compaction.rules` as read: the rules in force, and whether the key is set. */
export interface ConfiguredRules {
  /** The configured rules, or the built-in default rule when the key is not set. */
  readonly rules: readonly CompactionRule[];
  readonly set: boolean;
}

/** Reads `conversation.compaction.rules` (its value, `undefined` when not set). */
export function readConfiguredRules(value: unknown): Parsed<ConfiguredRules> | RuleProblem {
  if (value === undefined) return { ok: true, value: { rules: configuredRules(undefined), set: false } };
  const read = readCompactionRules(value);
  if (!read.ok) return { ok: false, input: "config", message: `conversation.compaction.${read.message}` };
  return { ok: true, value: { rules: configuredRules(read.value), set: true } };
}

/** The rules request of a run: the configured rules combined with the explicit ones, `-m` applied. */
export function rulesRequest(
  configured: ConfiguredRules,
  explicit: ExplicitRules,
  options: {
    readonly range?: BoundRange;
    readonly model?: string;
    readonly note?: string;
    /** `--native`: every summary asks for the provider's own. */
    readonly native?: boolean;
  } = {},
): RulesRequest {
  const combined = combineRules(configured.rules, explicit.withConfigured, explicit.rules);
  const modelled = options.model === undefined ? combined : overrideSummaryModel(combined, options.model);
  return {
    kind: "rules",
    rules: options.native === true ? nativeSummaries(modelled) : modelled,
    ...(options.range === undefined ? {} : { range: options.range }),
    ...(options.note === undefined ? {} : { note: options.note }),
    defaultRule: explicit.rules.length === 0 && !configured.set,
  };
}

/** Every rule with the range on the sides it gives (`compact`'s range flags win over the rules'). */
export function applyRange(
  rules: readonly CompactionRule[],
  range: BoundRange | undefined,
): CompactionRule[] {
  if (range === undefined) return [...rules];
  return rules.map((rule) => ({
    ...rule,
    ...(range.start === undefined ? {} : { keep_first: range.start }),
    ...(range.end === undefined ? {} : { keep_last: range.end }),
  }));
}

/**
 * The rule of a review's opening proposal: always a summary, the first configured rule with one
 * (its range and summary settings), else the built-in range; `model` writes it, `focus` is its
 * context.
 */
export function openingRule(configured: ConfiguredRules, model?: string, focus?: string): CompactionRule {
  const summaryRule = configured.rules.find((rule) => rule.summary !== undefined);
  const summary = summaryRule?.summary ?? {};
  const rule: CompactionRule = {
    keep_first: summaryRule?.keep_first ?? DEFAULT_KEEP_FIRST,
    keep_last: summaryRule?.keep_last ?? DEFAULT_KEEP_LAST,
    summary: focus === undefined ? summary : { ...summary, context: focus },
  };
  return model === undefined ? rule : overrideSummaryModel([rule], model)[0]!;
}
