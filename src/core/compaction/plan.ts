/**
 * Plans a compaction run without doing it (docs/compaction-model.md: "Range bounds", "Summary-overlap extension", "One compact run"). Pure.
 *
 * For each rule in order: work out its range from the rule's keeps and the command-line overrides
 * (every bound, `last-compaction` included, against the conversation as it was when the run
 * started), skip it when the range is empty, and widen a summary rule's range over any summary it
 * touches (transitively), counting the summaries planned earlier in this same run. The shell then
 * generates the summary texts over the planned (raw) ranges and turns each segment into an event
 * with `buildCompactionEvent`, the one constructor of compaction events.
 *
 * cxc addition: a `supplied` summary (typed text) is never widened, because its text covers only
 * the turns it names; if it partially overlaps an existing summary the plan is a conflict instead.
 */
import { activeCompactions } from "../conversation/compactions.js";
import {
  convertKeepFirst,
  convertKeepLast,
  describeStream,
  isCycleBound,
  resolveResolutions,
  type StreamFacts,
  type TurnRange,
} from "../position/bounds.js";
import { type CycleRuleContext, createCycleRuleContext, isCycleRule, planCycleRule } from "./plan-cycles.js";
import {
  checkTurnSelector,
  convertFromBound,
  convertToBound,
  cycleFlagBound,
  selectorBounds,
  type TurnSelector,
} from "../position/cli-bounds.js";
import type { Compaction, ConversationEvent, SummaryPolicy } from "../conversation/events.js";
import { describeRange } from "../present/labels.js";
import type {
  CompactionEventOptions,
  CompactionOverrides,
  CompactionPlan,
  CompactionSegment,
  CompactionShape,
  ImposedBounds,
  PlanCompactionOptions,
  SummaryConflict,
} from "./plan-types.js";
import { type CompactionRule, DEFAULT_KEEP, toolCallsPolicyFor } from "./rules.js";

export type {
  CompactionEventOptions,
  CompactionOverrides,
  CompactionPlan,
  CompactionSegment,
  CompactionShape,
  ImposedBounds,
  PlanCompactionOptions,
  PlannedCompaction,
  SummaryConflict,
  SuppliedSummary,
} from "./plan-types.js";

const NOTHING: CompactionPlan = { kind: "nothing-to-compact", message: "Nothing to compact." };

interface SummaryRange {
  from: number;
  to: number;
  compactionId: string;
}

function summaryRangesOf(events: readonly ConversationEvent[]): SummaryRange[] {
  return activeCompactions(events)
    .map((entry) => entry.compaction)
    .filter((compaction) => compaction.summary !== undefined)
    .map((compaction) => ({
      from: compaction.from_turn,
      to: compaction.to_turn,
      compactionId: compaction.id,
    }));
}

function extendOver(summaries: readonly SummaryRange[], range: TurnRange): TurnRange {
  let { from, to } = range;
  let changed = true;
  while (changed) {
    changed = false;
    for (const summary of summaries) {
      if (from <= summary.to && to >= summary.from && (summary.from < from || summary.to > to)) {
        from = Math.min(from, summary.from);
        to = Math.max(to, summary.to);
        changed = true;
      }
    }
  }
  return { from, to };
}

/** Widens a derived summary's range over every summary it touches, transitively (docs/compaction-model.md, "Summary-overlap extension"). */
export function extendSummaryRange(
  events: readonly ConversationEvent[],
  from: number,
  to: number,
): TurnRange {
  return extendOver(summaryRangesOf(events), { from, to });
}

function findSplitSummaries(
  summaries: readonly SummaryRange[],
  range: TurnRange,
): SummaryConflict | undefined {
  const split = summaries.filter(
    (summary) =>
      range.from <= summary.to &&
      range.to >= summary.from &&
      (summary.from < range.from || summary.to > range.to),
  );
  if (split.length === 0) return undefined;
  const named = split.map((summary) => `${summary.from + 1}..${summary.to + 1}`).join(", ");
  const plural = split.length === 1 ? "the existing summary of turns" : "existing summaries of turns";
  return {
    message:
      `summary of turns ${range.from + 1}..${range.to + 1} partially overlaps ${plural} ${named}; ` +
      "a supplied summary must cover an existing summary entirely or leave it alone",
    conflicts: split.map((summary) => ({ ...summary })),
  };
}

/** A conflict when a supplied summary of `from..to` (0-based) would split an existing summary. */
export function checkSuppliedSummary(
  events: readonly ConversationEvent[],
  from: number,
  to: number,
): SummaryConflict | undefined {
  return findSplitSummaries(summaryRangesOf(events), { from, to });
}

/** The first pair of range flags that cannot be combined (jp's clap conflicts), as a message. */
export function findOverrideConflict(overrides: CompactionOverrides): string | undefined {
  const given = (name: keyof CompactionOverrides) => overrides[name] !== undefined;
  const flag = (name: string) => `--${name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
  const pairs: [keyof CompactionOverrides, keyof CompactionOverrides][] = [
    ["keepFirst", "from"],
    ["keepFirst", "last"],
    ["keepFirst", "turn"],
    ["keepLast", "to"],
    ["keepLast", "first"],
    ["keepLast", "turn"],
    ["first", "last"],
    ["first", "turn"],
    ["first", "from"],
    ["first", "to"],
    ["last", "turn"],
    ["last", "from"],
    ["last", "to"],
    ["turn", "from"],
    ["turn", "to"],
  ];
  const pair = pairs.find(([left, right]) => given(left) && given(right));
  return pair === undefined ? undefined : `${flag(pair[0])} cannot be used with ${flag(pair[1])}`;
}

/** jp's `--keep-first K --first M` (K > M) and `--keep-last K --last M` checks. */
export function checkKeepAgainstSelection(overrides: CompactionOverrides): string | undefined {
  const checks = [
    ["keep-first", overrides.keepFirst, "first", overrides.first],
    ["keep-last", overrides.keepLast, "last", overrides.last],
  ] as const;
  for (const [keepFlag, keep, selectFlag, selected] of checks) {
    if (keep?.kind === "turns" && selected !== undefined && keep.count > selected) {
      return `--${keepFlag} ${keep.count} is greater than --${selectFlag} ${selected}: nothing would remain to compact`;
    }
  }
  return undefined;
}

function selectorOf(overrides: CompactionOverrides): TurnSelector | undefined {
  if (overrides.turn !== undefined) return { kind: "turns", ...overrides.turn };
  if (overrides.last !== undefined) return { kind: "last", count: overrides.last };
  if (overrides.first !== undefined) return { kind: "first", count: overrides.first };
  return undefined;
}

/** The start and end the overrides impose (undefined: use the rule's own), per the precedence in "Range bounds". */
function resolveOverrides(overrides: CompactionOverrides, facts: StreamFacts, now: string): ImposedBounds {
  const selector = selectorOf(overrides);
  const selected = selector === undefined ? undefined : selectorBounds(selector);
  const keepFirst =
    overrides.keepFirst === undefined ? undefined : convertKeepFirst(overrides.keepFirst, facts);
  const keepLast =
    overrides.keepLast === undefined ? undefined : convertKeepLast(overrides.keepLast, facts, now);
  const fromFlag = overrides.from === undefined ? undefined : convertFromBound(overrides.from, facts);
  const toFlag = overrides.to === undefined ? undefined : convertToBound(overrides.to, facts);
  const keepFirstWins =
    keepFirst !== undefined && (overrides.first !== undefined || (selected?.from ?? fromFlag) === undefined);
  const keepLastWins =
    keepLast !== undefined && (overrides.last !== undefined || (selected?.to ?? toFlag) === undefined);
  const imposed: ImposedBounds = {
    from: keepFirstWins ? keepFirst : (selected?.from ?? fromFlag),
    to: keepLastWins ? keepLast : (selected?.to ?? toFlag),
  };
  if (keepFirstWins && isCycleBound(overrides.keepFirst)) imposed.cycleFrom = overrides.keepFirst;
  if (keepLastWins && isCycleBound(overrides.keepLast)) imposed.cycleTo = overrides.keepLast;
  // `--from T.C` / `--to T.C`, when they win their side.
  const fromCycle = cycleFlagBound(overrides.from);
  const toCycle = cycleFlagBound(overrides.to);
  if (fromCycle !== undefined && !keepFirstWins && selected?.from === undefined)
    imposed.cycleFrom = fromCycle;
  if (toCycle !== undefined && !keepLastWins && selected?.to === undefined) imposed.cycleTo = toCycle;
  return imposed;
}

function segmentFor(
  rule: CompactionRule,
  ruleIndex: number,
  range: TurnRange,
  requested: TurnRange,
): CompactionSegment {
  const segment: CompactionSegment = { ruleIndex, from: range.from, to: range.to, requested };
  if (rule.reasoning !== undefined) segment.reasoning = rule.reasoning;
  if (rule.tool_calls !== undefined) segment.toolCalls = toolCallsPolicyFor(rule.tool_calls);
  if (rule.summary !== undefined) segment.summary = rule.summary;
  return segment;
}

/** Plans a compaction run; see the module comment. */
export function planCompaction(
  events: readonly ConversationEvent[],
  options: PlanCompactionOptions,
): CompactionPlan {
  const overrides = options.overrides ?? {};
  const problem = findOverrideConflict(overrides) ?? checkKeepAgainstSelection(overrides);
  if (problem !== undefined) return { kind: "invalid", message: problem };
  if (overrides.first === 0 || overrides.last === 0) return NOTHING;
  const facts = describeStream(events);
  const selector = selectorOf(overrides);
  const outOfRange = selector === undefined ? undefined : checkTurnSelector(selector, facts.turnCount);
  if (outOfRange !== undefined) return { kind: "invalid", message: outOfRange };

  const imposed = resolveOverrides(overrides, facts, options.now);
  const summaries = summaryRangesOf(events);
  const segments: CompactionSegment[] = [];
  let cycleContext: CycleRuleContext | undefined;
  for (const [ruleIndex, rule] of options.rules.entries()) {
    if (isCycleRule(rule, imposed)) {
      cycleContext ??= createCycleRuleContext(events, facts, options);
      const planned = planCycleRule(cycleContext, { rule, ruleIndex, imposed, segments });
      if (planned.kind !== "planned") return planned;
      for (const segment of planned.segments) {
        if (segment.summary !== undefined && segment.toCycle === undefined) {
          summaries.push({ from: segment.from, to: segment.to, compactionId: `planned:${ruleIndex}` });
        }
      }
      segments.push(...planned.segments);
      continue;
    }
    const from = imposed.from ?? convertKeepFirst(rule.keep_first ?? DEFAULT_KEEP, facts);
    const to = imposed.to ?? convertKeepLast(rule.keep_last ?? DEFAULT_KEEP, facts, options.now);
    const requested = resolveResolutions(facts, from, to);
    if (requested === undefined) continue;
    let range = requested;
    if (rule.summary !== undefined) {
      if (options.summarySource === "supplied") {
        const conflict = findSplitSummaries(summaries, requested);
        if (conflict !== undefined) return { kind: "conflict", ...conflict };
      } else {
        range = extendOver(summaries, requested);
      }
      summaries.push({ ...range, compactionId: `planned:${ruleIndex}` });
    }
    segments.push(segmentFor(rule, ruleIndex, range, requested));
  }
  if (segments.length === 0) return NOTHING;
  const plan: CompactionPlan = { kind: "planned", segments, source: options.source ?? "user" };
  if (options.note !== undefined) plan.note = options.note;
  return plan;
}

/** A shape's range as people read it (1-based): `turns 2..4`, `turn 4, cycles 1..37`. */
function describeShape(shape: CompactionShape): string {
  return describeRange(shape);
}

function summaryPolicyOf(shape: CompactionShape, options: CompactionEventOptions): SummaryPolicy | undefined {
  if (shape.supplied !== undefined) {
    return { summary: shape.supplied.text, source: "supplied", author: shape.supplied.author };
  }
  if (shape.summary === undefined) return undefined;
  if (options.summary === undefined) {
    throw new Error(`the summary of ${describeShape(shape)} needs its text before it becomes an event`);
  }
  return { ...options.summary };
}

/**
 * The one constructor of `compaction` events: every compaction cxc writes (by `compact`, `fork -k`,
 * `q -k`, automatic compaction, the `compact` tool, an agreed review) is built here. Keys come in
 * jp's order followed by cxc's additions, so the written JSON reads like jp's.
 */
export function buildCompactionEvent(shape: CompactionShape, options: CompactionEventOptions): Compaction {
  if (shape.fromCycle !== undefined && shape.toCycle === undefined) {
    throw new Error(`the compaction of ${describeShape(shape)} starts at a cycle but names no last cycle`);
  }
  const summary = summaryPolicyOf(shape, options);
  const policies = {
    ...(summary === undefined ? {} : { summary }),
    ...(shape.reasoning === undefined ? {} : { reasoning: shape.reasoning }),
    ...(shape.toolCalls === undefined ? {} : { tool_calls: { ...shape.toolCalls } }),
  };
  const range =
    shape.toCycle === undefined
      ? policies
      : {
          cycles: {
            ...(shape.fromCycle === undefined ? {} : { from: shape.fromCycle }),
            to: shape.toCycle,
            ...policies,
          },
        };
  return {
    type: "compaction",
    id: options.id,
    ts: options.ts,
    from_turn: shape.from,
    to_turn: shape.to,
    ...range,
    source: options.source,
    ...(options.note === undefined ? {} : { note: options.note }),
    ...(options.deferredUntilTurn === undefined ? {} : { deferred_until_turn: options.deferredUntilTurn }),
    ...(options.metadata === undefined ? {} : { metadata: { ...options.metadata } }),
    ...(options.origin === undefined ? {} : { origin: { ...options.origin } }),
  };
}

/** The same compaction in force at once: what the view is once a deferred compaction activates. */
export function withoutDeferral(compaction: Compaction): Compaction {
  if (compaction.deferred_until_turn === undefined) return compaction;
  const active: Compaction = { ...compaction };
  delete active.deferred_until_turn;
  return active;
}
