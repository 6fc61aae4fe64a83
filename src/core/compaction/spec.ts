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
import type { RuleBound } from "../position/bounds.js";
import type { Parsed } from "../parsed.js";
import { type CompactionRule, parseToolCallsMode, type ToolCallsMode } from "./rules.js";

/** A bound of a spec range. */
export type SpecBound =
  | { kind: "absolute"; turn: number; cycle?: number }
  | { kind: "from-end"; count: number }
  /** `-Ncycles` / `-Ncalls`: keep the last N cycles / tool calls. */
  | { kind: "cycles" | "calls"; count: number };

/** A parsed `-k` spec. */
export interface CompactSpec {
  reasoning: boolean;
  summarize: boolean;
  toolCalls?: ToolCallsMode;
  /** Absent when the spec has no `:RANGE`; an open end is an absent bound. */
  range?: { from?: SpecBound; to?: SpecBound };
}

const FROM_END_COUNT = /^-(\d+)(cycles?|calls?)$/i;

function parseSpecBound(text: string): Parsed<SpecBound> {
  if (/^-\d+$/.test(text)) return { ok: true, value: { kind: "from-end", count: Number(text.slice(1)) } };
  const counted = FROM_END_COUNT.exec(text);
  if (counted) {
    const kind = counted[2]!.toLowerCase().startsWith("cycle") ? "cycles" : "calls";
    return { ok: true, value: { kind, count: Number(counted[1]) } };
  }
  const cycle = /^(\d+)\.(\d+)$/.exec(text);
  if (cycle) {
    if (Number(cycle[1]) === 0)
      return { ok: false, message: "turn indices are 1-based; `0` is not a valid turn" };
    if (Number(cycle[2]) === 0)
      return { ok: false, message: `cycles are 1-based; \`${text}\` is not a valid cycle` };
    return { ok: true, value: { kind: "absolute", turn: Number(cycle[1]), cycle: Number(cycle[2]) } };
  }
  if (!/^\d+$/.test(text)) return { ok: false, message: `invalid bound '${text}'` };
  if (Number(text) === 0) return { ok: false, message: "turn indices are 1-based; `0` is not a valid turn" };
  return { ok: true, value: { kind: "absolute", turn: Number(text) } };
}

function parseRange(text: string): Parsed<NonNullable<CompactSpec["range"]>> {
  const separator = text.indexOf("..");
  if (separator < 0) {
    const single = parseSpecBound(text);
    if (!single.ok) return single;
    return {
      ok: true,
      value: single.value.kind === "absolute" ? { from: single.value } : { to: single.value },
    };
  }
  const range: NonNullable<CompactSpec["range"]> = {};
  for (const [side, part] of [
    ["from", text.slice(0, separator)],
    ["to", text.slice(separator + 2)],
  ] as const) {
    if (part === "") continue;
    const parsed = parseSpecBound(part);
    if (!parsed.ok) return parsed;
    if (side === "from" && (parsed.value.kind === "cycles" || parsed.value.kind === "calls")) {
      return { ok: false, message: `'${part}' counts from the end, so it can only end a range (..${part})` };
    }
    range[side] = parsed.value;
  }
  const inverted = invertedRange(range);
  if (inverted !== undefined) return { ok: false, message: inverted };
  return { ok: true, value: range };
}

/**
 * Why a range can select nothing in any conversation: `5..2` (turn 5 comes after turn 2) or
 * `-2..-5` (two from the end comes after five from the end). cxc refuses it as a usage error;
 * jp resolves it to nothing and prints "Nothing to compact.". Mixed bounds depend on the length.
 */
function invertedRange(range: { from?: SpecBound; to?: SpecBound }): string | undefined {
  const { from, to } = range;
  if (from?.kind === "absolute" && to?.kind === "absolute" && from.turn > to.turn) {
    return `the range is inverted: turn ${from.turn} comes after turn ${to.turn}`;
  }
  if (from?.kind === "from-end" && to?.kind === "from-end" && from.count < to.count) {
    return `the range is inverted: ${from.count} from the end comes after ${to.count} from the end`;
  }
  return undefined;
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
    const range = parseRange(text.slice(colon + 1));
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
    rule.keep_first = spec.range.from ?? ({ kind: "turns", count: 0 } satisfies RuleBound);
    rule.keep_last = spec.range.to ?? ({ kind: "from-end", count: 0 } satisfies RuleBound);
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
