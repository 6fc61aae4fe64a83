/**
 * Planning a `compact` tool call (docs/compact-tool.md), for `prepare` (../prepare.ts): the quotes
 * and counts of each rule resolved to bounds of the one position algebra (`planToolRules`), planned
 * by the one planner as supplied summaries (never widened), then judged (`judgeToolPlan`): a rule
 * that saves almost nothing is refused, and a summary gets the summary check. Every expected
 * failure is a message for the model. Pure.
 *
 * Each rule names a range of raw turns and what to do with it. The start is `after_quote` (the
 * turn after the quoted one) or `keep_first` (default 0: nothing kept); the end is `before_quote`
 * (the turn before the quoted one) or `keep_last`, clamped to at least 1 so the turn in progress,
 * with the user's request and this very call, can never be compacted away. Quotes resolve
 * against the projected view the model was shown (see anchors.ts). A quote may also land in an
 * earlier cycle of the turn in progress: then it names that cycle, the range starts or ends
 * there, and a range starting inside the turn ends before the cycle holding this call (docs/
 * compact-tool.md, "Inside the turn in progress"); the user's message and the calling cycle are
 * never covered.
 *
 * Rules are planned one after another against the stream as it would be after the earlier ones,
 * and that stream includes the deferred compactions recorded earlier in this turn (a second call
 * sees the first). A summary is the assistant's own text (`supplied`), so its range is never
 * widened: a summary that would split an existing one is a tool error naming the turns.
 */
import type { CompactToolRule } from "./compact-tool-arguments.js";
import { type AnchorResolution, resolveAnchor } from "./anchors.js";
import { type CycleRange, HEAD, layoutCycles } from "../../../core/conversation/cycles.js";
import { type Compaction, type ConversationEvent, isTurnEvent } from "../../../core/conversation/events.js";
import { type ProjectedView, projectConversation } from "../../../core/conversation/projection.js";
import type { TokenCounter } from "../../../core/conversation/tokens.js";
import { countTurns, groupTurns } from "../../../core/conversation/turns.js";
import {
  type Bound,
  type BoundRange,
  describePositions,
  OPEN_END,
  resolveBoundRange,
} from "../../../core/position/bound.js";
import { describeRange } from "../../../core/present/labels.js";
import type { Keeping } from "../keeping.js";
import { type CompactionPlan, type PlannedCompaction, planCompaction } from "../plan.js";
import { type CompactionPreview, previewCompactions, savesAlmostNothing } from "../preview.js";
import type { CompactionRule } from "../rules.js";
import { checkSummary, type SummaryLosses } from "../summary/check.js";

/** The tool's name, as the model and `-t`/`-u` spell it. */
export const COMPACT_TOOL_NAME = "compact";

/** One planned rule: its resolved raw range, its event, and what the user needs to judge it. */
export interface PlannedCompactRule {
  /** 0-based position in the call's `rules`. */
  readonly index: number;
  readonly rule: CompactToolRule;
  /** Raw turns, 0-based, inclusive. */
  readonly from: number;
  readonly to: number;
  /** For a range inside the turn in progress (or ending there): its first and last raw cycle. */
  readonly fromCycle?: number;
  readonly toCycle?: number;
  readonly compaction: Compaction;
  /** Tokens the projected view shrinks by once this rule is active (negative: it grows). */
  readonly tokensSaved: number;
  /** The projected view just before and just after this rule, every recorded compaction active. */
  readonly before: ProjectedView;
  readonly after: ProjectedView;
  /** For a summary: what it does not mention of the raw turns it replaces (summary-check.ts). */
  readonly losses?: SummaryLosses;
}

/** A planned call, or the message that tells the model what to fix. */
export type CompactToolPlan =
  | {
      readonly ok: true;
      readonly rules: readonly PlannedCompactRule[];
      /** The turn the compactions activate at (0-based): the next one. */
      readonly activatesAtTurn: number;
    }
  | { readonly ok: false; readonly message: string };

// ---------------------------------------------------------------------------------------------
// Planning

/** The raw cycles of the turn in progress, for quotes that land inside it (see anchors.ts). */
interface InProgressCycles {
  readonly cycleOf: ReadonlyMap<string, number>;
  /** The cycle holding this call: never compacted, never searched. */
  readonly callingCycle: number;
}

function inProgressCyclesOf(events: readonly ConversationEvent[], inProgress: number): InProgressCycles {
  const layout = layoutCycles(events);
  const cycleOf = new Map<string, number>();
  events.forEach((event, position) => {
    if (isTurnEvent(event) && layout.turnIndices[position] === inProgress) {
      cycleOf.set(event.id, layout.cycles[position]!);
    }
  });
  return { cycleOf, callingCycle: (layout.cycleCounts[inProgress] ?? 0) - 1 };
}

function describeNoSaving(
  index: number,
  rule: CompactToolRule,
  range: CycleRange,
  saved: number,
  covered: number,
): string {
  const what =
    rule.summary !== undefined
      ? "the summary is about as long as the turns it replaces"
      : "there is little or nothing of that kind to strip there";
  return (
    `rules[${index}] would save ${Math.max(0, saved)} of the ${covered} tokens of ${describeRange(range)}: ${what}. ` +
    "Drop this rule, or choose a range or a policy that removes something (a shorter summary, " +
    "tool_calls on turns with tool calls, reasoning on turns with reasoning)."
  );
}

function resolveQuote(
  view: ProjectedView,
  quote: string,
  field: string,
  inProgressTurn: number,
  cycles: InProgressCycles,
): AnchorResolution {
  return resolveAnchor(view, quote, {
    field,
    ignoredToolNames: new Set([COMPACT_TOOL_NAME]),
    inProgressTurn,
    inProgressCycles: cycles,
  });
}

/** Where a quote found in the turn in progress puts the range's start or end (0-based cycles). */
function where(anchor: Extract<AnchorResolution, { kind: "found" }>): string {
  const turn = `turn ${anchor.turn + 1}`;
  if (anchor.cycle === undefined) return turn;
  return anchor.cycle === HEAD ? `${turn}, the user's message` : `${turn}, cycle ${anchor.cycle + 1}`;
}

/** A rule's bounds, and how each was chosen (for the message when the range is empty). */
interface RuleBounds {
  readonly range: BoundRange;
  readonly startedBy: string;
  readonly endedBy: string;
}

/**
 * The range of one rule as bounds of the one position algebra, or a message for the model. In
 * finished turns quotes and counts name turns; a quote in the turn in progress names a cycle of it
 * (after_quote: the range starts at the next cycle; before_quote: it ends at the cycle before),
 * and a range that starts inside the turn in progress ends, unless before_quote says otherwise, at
 * the cycle before this call: a range inside turns never covers the last cycle, which holds it.
 */
function ruleBounds(
  rule: CompactToolRule,
  index: number,
  shown: ProjectedView,
  turnCount: number,
  cycles: InProgressCycles,
): RuleBounds | string {
  const inProgress = turnCount - 1;
  let start: Bound = { kind: "count", unit: "turns", count: rule.keepFirst ?? 0, from: "start" };
  let startedBy = `keep_first ${rule.keepFirst ?? 0}`;
  let startsInside = false;
  if (rule.afterQuote !== undefined) {
    const anchor = resolveQuote(shown, rule.afterQuote, "after_quote", inProgress, cycles);
    if (anchor.kind !== "found") return `rules[${index}]: ${anchor.message}`;
    start =
      anchor.cycle === undefined
        ? { kind: "turn", turn: anchor.turn + 1 }
        : { kind: "turn", turn: anchor.turn, cycle: anchor.cycle + 1 };
    startsInside = anchor.cycle !== undefined;
    startedBy = `after_quote (found in ${where(anchor)})`;
  }
  let end: Bound = startsInside
    ? OPEN_END
    : { kind: "count", unit: "turns", count: rule.keepLast, from: "end" };
  let endedBy = startsInside ? "the cycle before this call" : `keep_last ${rule.keepLast}`;
  if (rule.beforeQuote !== undefined) {
    const anchor = resolveQuote(shown, rule.beforeQuote, "before_quote", inProgress, cycles);
    if (anchor.kind !== "found") return `rules[${index}]: ${anchor.message}`;
    end =
      anchor.cycle === undefined || anchor.cycle <= 0
        ? { kind: "turn", turn: anchor.turn - 1 }
        : { kind: "turn", turn: anchor.turn, cycle: anchor.cycle - 1 };
    endedBy = `before_quote (found in ${where(anchor)})`;
  }
  return { range: { start, end }, startedBy, endedBy };
}

/** Where a tool bound puts the range's start or end, as the message says it (1-based). */
function describeBound(bound: Bound, side: "start" | "end", turnCount: number): string {
  if (bound.kind === "turn") {
    if (bound.cycle === undefined) return `turn ${bound.turn + 1}`;
    return `turn ${bound.turn + 1}, cycle ${bound.cycle + 1}`;
  }
  if (bound.kind !== "count") return "the conversation";
  // keep_first N starts at turn N + 1; keep_last N ends N turns before the last.
  return side === "start" ? `turn ${bound.count + 1}` : `turn ${turnCount - bound.count}`;
}

/** Why a rule covers nothing, for the model. */
function describeEmpty(index: number, bounds: RuleBounds, turnCount: number, beforeCall: string): string {
  const { start, end } = bounds.range;
  const from = describeBound(start!, "start", turnCount);
  const wholeStart = start!.kind !== "turn" || start!.cycle === undefined;
  const wholeEnd = end !== OPEN_END && (end!.kind !== "turn" || end!.cycle === undefined);
  if (wholeStart && wholeEnd) {
    return (
      `rules[${index}] selects no turns: the range would start at ${from} (${bounds.startedBy}) and end at ` +
      `${describeBound(end!, "end", turnCount)} (${bounds.endedBy}); the conversation has ${turnCount} turns and the last one is in progress.`
    );
  }
  const to = end === OPEN_END ? beforeCall : describeBound(end!, "end", turnCount);
  return (
    `rules[${index}] selects nothing: the range would start at ${from} (${bounds.startedBy}) and ` +
    `end at ${to} (${bounds.endedBy}); the last turn is in progress and its latest cycle holds this call.`
  );
}

function describeConflict(
  plan: Extract<CompactionPlan, { kind: "conflict" }>,
  events: readonly ConversationEvent[],
): string {
  const origins = plan.conflicts.map((entry) => {
    const planned = /^planned:(\d+)$/.exec(entry.compactionId);
    if (planned !== null) return `rules[${planned[1]}] of this call`;
    const recorded = events.find((event) => event.type === "compaction" && event.id === entry.compactionId);
    const pending = recorded?.type === "compaction" && recorded.deferred_until_turn !== undefined;
    return pending ? "a compaction proposed earlier in this turn, not active yet" : undefined;
  });
  const named = origins.filter((origin): origin is string => origin !== undefined);
  const origin = named.length === 0 ? "" : ` (${[...new Set(named)].join("; ")})`;
  return (
    `rules[${plan.ruleIndex ?? 0}]: ${plan.message}${origin}. Move the range's ends so the existing summary is either ` +
    "entirely inside it or entirely outside it."
  );
}

/** A tool rule as a compaction rule of the one planner. */
function compactionRule(rule: CompactToolRule, range: BoundRange): CompactionRule {
  return {
    ...(range.start === undefined ? {} : { keep_first: range.start }),
    ...(range.end === undefined ? {} : { keep_last: range.end }),
    ...(rule.summary === undefined ? {} : { supplied: { text: rule.summary, author: "assistant" as const } }),
    ...(rule.reasoning === undefined ? {} : { reasoning: rule.reasoning }),
    ...(rule.toolCalls === undefined ? {} : { tool_calls: rule.toolCalls }),
    note: rule.note,
  };
}

/**
 * The rules of a validated call planned against the conversation as stored (this turn's earlier
 * calls and their deferred compactions included), to activate at the next turn; see the module
 * comment.
 */
export function planToolRules(
  events: readonly ConversationEvent[],
  rules: readonly CompactToolRule[],
  options: { readonly now: string; readonly keeping?: Keeping },
):
  | { readonly ok: true; readonly plan: PlannedCompaction; readonly activatesAtTurn: number }
  | { readonly ok: false; readonly message: string } {
  const turnCount = countTurns(events);
  if (turnCount < 2) {
    return {
      ok: false,
      message: "Nothing to compact: the conversation has no turn before the one in progress.",
    };
  }
  // Quotes resolve against what the model was shown: deferred compactions are not in effect yet.
  const shown = projectConversation(events);
  const cycles = inProgressCyclesOf(events, turnCount - 1);
  const beforeCall = `turn ${turnCount}, cycle ${cycles.callingCycle}`;
  const facts = describePositions(events, options.now);
  const planned: CompactionRule[] = [];
  for (const [index, rule] of rules.entries()) {
    const bounds = ruleBounds(rule, index, shown, turnCount, cycles);
    if (typeof bounds === "string") return { ok: false, message: bounds };
    if (resolveBoundRange(facts, bounds.range).kind !== "span") {
      return { ok: false, message: describeEmpty(index, bounds, turnCount, beforeCall) };
    }
    planned.push(compactionRule(rule, bounds.range));
  }
  const plan = planCompaction(events, {
    rules: planned,
    now: options.now,
    source: "assistant",
    ...(options.keeping === undefined ? {} : { keeping: options.keeping }),
  });
  if (plan.kind === "conflict") return { ok: false, message: describeConflict(plan, events) };
  if (plan.kind === "invalid")
    return { ok: false, message: `rules[${plan.ruleIndex ?? 0}]: ${plan.message}.` };
  if (plan.kind !== "planned") return { ok: false, message: "Nothing to compact." };
  return { ok: true, plan, activatesAtTurn: turnCount };
}

/**
 * Each planned rule judged on the preview of its events (every recorded compaction active), or
 * the message refusing the call: a rule that saves almost nothing of the turns it covers is not
 * put to the user. `compactions` are the plan's events, in its order.
 */
export function judgeToolPlan(
  events: readonly ConversationEvent[],
  rules: readonly CompactToolRule[],
  plan: PlannedCompaction,
  compactions: readonly Compaction[],
  preview: CompactionPreview,
  countTokens: TokenCounter,
):
  | { readonly ok: true; readonly rules: PlannedCompactRule[] }
  | { readonly ok: false; readonly message: string } {
  // The conversation without any compaction, to judge each rule on its own (below).
  const uncompacted = events.filter(
    (event) => event.type !== "compaction" && event.type !== "compaction_reset",
  );
  const rawTurns = groupTurns(events);
  const result: PlannedCompactRule[] = [];
  for (const [position, segment] of plan.segments.entries()) {
    const index = segment.ruleIndex;
    const rule = rules[index]!;
    const range: CycleRange = {
      from: segment.from,
      to: segment.to,
      ...(segment.fromCycle === undefined ? {} : { fromCycle: segment.fromCycle }),
      ...(segment.toCycle === undefined ? {} : { toCycle: segment.toCycle }),
    };
    const step = preview.steps[position]!;
    // Worth asking about is judged on the turns as they were, not on the view: a summary that
    // mends an earlier one for the same turns replaces it and may be longer, yet saves as much.
    const alone = previewCompactions(uncompacted, [step.compaction], countTokens, {
      activateAll: true,
    }).steps[0]!;
    // A rule that saves almost nothing is not put to the user: an approval and a cache break for nothing.
    if (savesAlmostNothing(alone)) {
      return { ok: false, message: describeNoSaving(index, rule, range, alone.saved, alone.covered.before) };
    }
    // The summary check, against the raw turns: what the assistant's summary leaves out.
    const losses = rule.summary === undefined ? undefined : checkSummary(rawTurns, range, rule.summary);
    result.push({
      index,
      rule,
      ...range,
      compaction: compactions[position]!,
      tokensSaved: step.saved,
      before: step.before,
      after: step.after,
      ...(losses ? { losses } : {}),
    });
  }
  return { ok: true, rules: result };
}
