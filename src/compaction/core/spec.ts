/**
 * The `-k/--compact[=SPEC]` mini-language (docs/compaction-model.md, "The -k spec"). Pure.
 *
 *   SPEC     = POLICIES [ ":" RANGE ]         split at the first ":"
 *   POLICIES = POLICY *( "+" POLICY )         each trimmed
 *   POLICY   = r | reasoning | s | summarize | ( t | tools ) [ "=" MODE ]
 *   RANGE    = [ BOUND ] ".." [ BOUND ] | BOUND      not trimmed
 *   BOUND    = "-" UINT (from the end) | UINT (1-based turn, >= 1)
 *            | UINT "." UINT                      turn T, cycle C (both 1-based)
 *            | "-" UINT ( "calls" | "cycles" )    the last N tool calls / cycles (end only)
 *
 * A lone `-N` (or `-Ncalls`, `-Ncycles`) means `..-N`, a lone `N` (or `T.C`) means `N..`. Reasons
 * are jp's texts; the CLI wraps them as `invalid compact spec '<value>': <reason>` (see
 * `describeSpecError`). Cycle bounds are cxc's (docs/decisions/006-tool-cycle-bounds.md). An
 * inverted range (`5..2`) is an error here, where jp would compact nothing.
 */
import type { Parsed } from "../../core/parsed.js";
import type { BoundRange } from "../../core/position/bound.js";
import { parseSpecRange } from "../../core/position/parse.js";
import { type CompactionRule, parseToolCallsMode, type ToolCallsMode } from "./rules.js";

/** A parsed `-k` spec. */
export interface CompactSpec {
  reasoning: boolean;
  summarize: boolean;
  toolCalls?: ToolCallsMode;
  /** Absent when the spec has no `:RANGE`; an open end is the open bound (keeps nothing there). */
  range?: BoundRange;
}

function applyPolicy(spec: CompactSpec, text: string): string | undefined {
  const policy = text.trim();
  if (policy === "") return "empty policy";
  const equals = policy.indexOf("=");
  const key = (equals < 0 ? policy : policy.slice(0, equals)).trim();
  const value = equals < 0 ? undefined : policy.slice(equals + 1).trim();
  if (key === "r" || key === "reasoning") {
    if (value !== undefined) return "`reasoning` does not take a value";
    spec.reasoning = true;
  } else if (key === "s" || key === "summarize") {
    if (value !== undefined) return "`summarize` does not take a value";
    spec.summarize = true;
  } else if (key === "t" || key === "tools") {
    const mode = value === undefined ? ({ ok: true, value: "strip" } as const) : parseToolCallsMode(value);
    if (!mode.ok) return mode.message;
    spec.toolCalls = mode.value;
  } else {
    return `unknown policy '${key}'`;
  }
  return undefined;
}

/** Parses one `-k` value; the message is the reason only. */
export function parseCompactSpec(text: string): Parsed<CompactSpec> {
  const colon = text.indexOf(":");
  const policies = colon < 0 ? text : text.slice(0, colon);
  const spec: CompactSpec = { reasoning: false, summarize: false };
  for (const policy of policies.split("+")) {
    const problem = applyPolicy(spec, policy);
    if (problem !== undefined) return { ok: false, message: problem };
  }
  if (!spec.reasoning && !spec.summarize && spec.toolCalls === undefined) {
    return { ok: false, message: "at least one policy required (r, t=MODE, s)" };
  }
  if (colon >= 0) {
    const range = parseSpecRange(text.slice(colon + 1));
    if (!range.ok) return range;
    spec.range = range.value;
  }
  return { ok: true, value: spec };
}

/** The user-facing text of a spec error: `invalid compact spec '<value>': <reason>`. */
export function describeSpecError(value: string, reason: string): string {
  return `invalid compact spec '${value}': ${reason}`;
}

/**
 * The rule a spec stands for (docs/compaction-model.md, "The -k spec"). With a range, an open start keeps nothing at the front
 * (`Turns(0)`) and an open end keeps nothing at the back (`FromEnd(0)`). Without one, the keeps are
 * left unset, so the built-in per-rule defaults (1 and 1) apply, not the configured rules' values.
 */
export function specToRule(spec: CompactSpec): CompactionRule {
  const rule: CompactionRule = {};
  if (spec.range !== undefined) {
    if (spec.range.start !== undefined) rule.keep_first = spec.range.start;
    if (spec.range.end !== undefined) rule.keep_last = spec.range.end;
  }
  if (spec.reasoning) rule.reasoning = "strip";
  if (spec.toolCalls !== undefined) rule.tool_calls = spec.toolCalls;
  if (spec.summarize) rule.summary = {};
  return rule;
}

/**
 * The rules a command runs (jp's `combine_rules`): no explicit rules → the configured ones;
 * explicit rules with a bare `-k` → configured first, then explicit; explicit only → explicit.
 */
export function combineRules(
  configRules: readonly CompactionRule[],
  useConfigRules: boolean,
  explicitRules: readonly CompactionRule[],
): CompactionRule[] {
  if (explicitRules.length === 0) return [...configRules];
  return useConfigRules ? [...configRules, ...explicitRules] : [...explicitRules];
}
