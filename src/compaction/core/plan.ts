/**
 * The planner: a compaction run without doing it (docs/compaction-model.md: "Range bounds",
 * "Summary-overlap extension", "One compact run"). Pure.
 *
 * For each rule in order: resolve its range (position/bound.ts: every bound, `last-compaction`
 * included, against the conversation as it was when the run started), skip it when it covers
 * nothing, and place a summary among the summaries in force and those planned earlier in the run
 * (overlap.ts: a derived summary grows, a supplied one that would split another is a conflict).
 * The caller decides what a rule's range is (configured keeps, a `-k` range, the range flags of
 * `compact`, the `compact` tool's quotes, automatic compaction's cut); the planner only fills in
 * the per-rule defaults of an unset side. Turn rules are spans from a turn's head to its end, so
 * one planner serves whole turns and cycles alike.
 *
 * Every summary segment gets the facts block of its range's raw events, and every segment the
 * messages of its range the keep rules match (keeping.ts). A segment that would only touch pinned
 * messages (pins, or those rules) is nothing to compact and is left out.
 *
 * The shell then writes the summaries a plan asks for and turns the plan into events
 * (realize.ts, then the compaction pipeline in src/compaction/).
 */
import {
  type Bound,
  type BoundRange,
  describePositions,
  isCycleBound,
  type PositionFacts,
  resolveBoundRange,
} from "../../core/position/bound.js";
import { type CycleSpan, HEAD, spanOfRange, TURN_END } from "../../core/conversation/cycles.js";
import type {
  CompactionOrigin,
  CompactionSource,
  ConversationEvent,
} from "../../core/conversation/events.js";
import { pinnedMessages } from "../../core/conversation/pins.js";
import { groupTurns, type Turn } from "../../core/conversation/turns.js";
import type { CompactionShape } from "./event.js";
import { DEFAULT_KEEPING, factsBlock, type Keeping, matchKeepRules, touchesOnlyPinned } from "./keeping.js";
import {
  fitSummary,
  type PieceOptions,
  type SummaryConflict,
  type SummarySpan,
  summaryPieces,
  summarySpansOf,
  suppliedPiece,
} from "./overlap.js";
import { type CompactionRule, DEFAULT_KEEP_FIRST, DEFAULT_KEEP_LAST, toolCallsPolicyFor } from "./rules.js";

/** Inputs of `planCompaction`. */
export interface PlanCompactionOptions {
  /** The rules, each with its final range (an unset side takes the per-rule default). */
  readonly rules: readonly CompactionRule[];
  /** RFC 3339 time of the run, for time bounds. */
  readonly now: string;
  readonly source?: CompactionSource;
  readonly note?: string;
  /**
   * False when a range inside turns may cover the conversation's last cycle (an agreed review,
   * validated against its source as it stands). Default: the last cycle is never covered, its calls
   * may still be waiting for their results.
   */
  readonly keepLastCycle?: boolean;
  /** The facts block's budget and working directory, and the keep rules (default: none configured). */
  readonly keeping?: Keeping;
}

/** One planned compaction: a rule's resolved range and policies. Turns are 0-based. */
export interface CompactionSegment extends CompactionShape {
  readonly ruleIndex: number;
  /** The rule's own note, when it has one (the `compact` tool's); else the plan's. */
  readonly note?: string;
  /** The turns the rule asked for, before a summary grew. */
  readonly requested: { readonly from: number; readonly to: number };
}

/** The outcome of planning. */
export type CompactionPlan =
  | {
      readonly kind: "planned";
      readonly segments: readonly CompactionSegment[];
      readonly source: CompactionSource;
      readonly note?: string;
      /** Another agent's own compaction, read from its session file. */
      readonly origin?: CompactionOrigin;
    }
  | {
      readonly kind: "nothing-to-compact";
      readonly message: "Nothing to compact.";
      /** Why, rule by rule (absent: the conversation has no turns). */
      readonly why?: readonly NothingWhy[];
    }
  /** `ruleIndex`: the rule the problem was found in. */
  | { readonly kind: "invalid"; readonly message: string; readonly ruleIndex?: number }
  | ({ readonly kind: "conflict"; readonly ruleIndex?: number } & SummaryConflict);

/** A plan that compacts something. */
export type PlannedCompaction = Extract<CompactionPlan, { kind: "planned" }>;

/**
 * Why one rule compacted nothing: its range left no turn (`outside`: what it keeps covers the
 * conversation), or the only messages in it are pinned (`pinned`, the range it had, 0-based).
 */
export type NothingWhy =
  | { readonly ruleIndex: number; readonly kind: "outside" }
  | { readonly ruleIndex: number; readonly kind: "pinned"; readonly from: number; readonly to: number };

export const NOTHING_TO_COMPACT: CompactionPlan = Object.freeze({
  kind: "nothing-to-compact",
  message: "Nothing to compact.",
});

/**
 * Where an unset `keep_first` starts a rule: after the first turn, or, when the rule's other side
 * names cycles, after the first user message (the range starts at the first cycle of turn 1).
 */
const FIRST_MESSAGE: Bound = Object.freeze({ kind: "turn", turn: 0, cycle: 0, lenient: true });

/** A rule's range, the per-rule defaults filled in. */
export function ruleRange(rule: CompactionRule): BoundRange {
  const precise = isCycleBound(rule.keep_first) || isCycleBound(rule.keep_last);
  return {
    start: rule.keep_first ?? (precise ? FIRST_MESSAGE : DEFAULT_KEEP_FIRST),
    end: rule.keep_last ?? DEFAULT_KEEP_LAST,
  };
}

/** A segment's policies from its rule. */
function policiesOf(
  rule: CompactionRule,
): Pick<CompactionSegment, "reasoning" | "toolCalls" | "summary" | "supplied" | "note"> {
  return {
    ...(rule.note === undefined ? {} : { note: rule.note }),
    ...(rule.reasoning === undefined ? {} : { reasoning: rule.reasoning }),
    ...(rule.tool_calls === undefined ? {} : { toolCalls: toolCallsPolicyFor(rule.tool_calls) }),
    ...(rule.supplied !== undefined
      ? { supplied: rule.supplied }
      : rule.summary === undefined
        ? {}
        : { summary: rule.summary }),
  };
}

/** The segment range of a span: cycles only where the range is precise. */
function segmentRange(
  span: CycleSpan,
  precise: boolean,
): Pick<CompactionSegment, "from" | "to" | "fromCycle" | "toCycle"> {
  return {
    from: span.from.turn,
    to: span.to.turn,
    ...(precise && span.from.cycle !== HEAD ? { fromCycle: span.from.cycle } : {}),
    ...(precise && span.to.cycle !== TURN_END ? { toCycle: span.to.cycle } : {}),
  };
}

/** The segments of one rule over its resolved span, or why there are none. */
function planRule(
  rule: CompactionRule,
  ruleIndex: number,
  resolved: { readonly span: CycleSpan; readonly precise: boolean },
  facts: PositionFacts,
  summaries: readonly SummarySpan[],
  pieces: PieceOptions,
): CompactionSegment[] | Extract<CompactionPlan, { kind: "invalid" | "conflict" }> {
  const policies = policiesOf(rule);
  const requested = { from: resolved.span.from.turn, to: resolved.span.to.turn };
  if (policies.summary === undefined && policies.supplied === undefined) {
    return [{ ruleIndex, ...segmentRange(resolved.span, resolved.precise), requested, ...policies }];
  }
  const supplied = policies.supplied !== undefined;
  const fit = fitSummary(resolved.span, summaries, supplied ? "refuse" : "grow");
  if (fit.kind === "conflict") return { ...fit, ruleIndex };
  if (!resolved.precise && fit.span.from.cycle === HEAD && fit.span.to.cycle === TURN_END) {
    return [{ ruleIndex, ...segmentRange(fit.span, false), requested, ...policies }];
  }
  const cycles = facts.cycles();
  if (supplied) {
    const piece = suppliedPiece(cycles, fit.span, pieces);
    if ("problem" in piece) return { kind: "invalid", message: piece.problem, ruleIndex };
    return [{ ruleIndex, ...piece, requested, ...policies }];
  }
  return summaryPieces(cycles, fit.span, pieces).map((piece) => ({
    ruleIndex,
    ...piece,
    requested,
    ...policies,
  }));
}

/** Plans a compaction run; see the module comment. */
export function planCompaction(
  events: readonly ConversationEvent[],
  options: PlanCompactionOptions,
): CompactionPlan {
  const facts = describePositions(events, options.now);
  const summaries: SummarySpan[] = summarySpansOf(events);
  const segments: CompactionSegment[] = [];
  const why: NothingWhy[] = [];
  const keeping = options.keeping ?? DEFAULT_KEEPING;
  let turns: Turn[] | undefined;
  let pinned: ReadonlySet<string> | undefined;
  const keep = (segment: CompactionSegment): CompactionSegment | undefined => {
    turns ??= groupTurns(events);
    pinned ??= pinnedMessages(events).ids;
    const matched = matchKeepRules(turns, segment, keeping.rules);
    if (touchesOnlyPinned(turns, segment, matched.length === 0 ? pinned : new Set([...pinned, ...matched])))
      return undefined;
    const summarized = segment.summary !== undefined || segment.supplied !== undefined;
    const block = summarized ? factsBlock(turns, segment, keeping) : "";
    return {
      ...segment,
      ...(block === "" ? {} : { facts: block }),
      ...(matched.length === 0 ? {} : { pinnedEvents: matched }),
    };
  };
  for (const [ruleIndex, rule] of options.rules.entries()) {
    const resolved = resolveBoundRange(facts, ruleRange(rule), {
      keepLastCycle: options.keepLastCycle ?? true,
    });
    if (resolved.kind === "invalid") return { kind: "invalid", message: resolved.message, ruleIndex };
    if (resolved.kind === "empty") {
      why.push({ ruleIndex, kind: "outside" });
      continue;
    }
    const planned = planRule(rule, ruleIndex, resolved, facts, summaries, {
      lastTurnFinished: options.keepLastCycle === false,
    });
    if (!Array.isArray(planned)) return planned;
    const kept = planned.flatMap((segment) => keep(segment) ?? []);
    if (kept.length === 0 && planned.length > 0) {
      why.push({ ruleIndex, kind: "pinned", from: planned[0]!.from, to: planned.at(-1)!.to });
    }
    for (const segment of kept) {
      if (segment.summary !== undefined || segment.supplied !== undefined) {
        summaries.push({ ...spanOfRange(segment), compactionId: `planned:${ruleIndex}` });
      }
    }
    segments.push(...kept);
  }
  if (segments.length === 0) return { ...NOTHING_TO_COMPACT, why } as CompactionPlan;
  return {
    kind: "planned",
    segments,
    source: options.source ?? "user",
    ...(options.note === undefined ? {} : { note: options.note }),
  };
}
