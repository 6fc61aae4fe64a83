/**
 * The assistant's `compact` tool (docs/compact-tool.md), the pure part: its argument schema, planning the
 * proposed rules into `compaction` events, and the texts shown to the user and the model. Pure.
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
 *
 * The events carry `source: assistant`, the note, `summary.source = supplied` with `author:
 * assistant`, and `deferred_until_turn` = the next turn's index, so the rest of this turn keeps
 * the same prompt prefix and everything activates when the user's next message opens a turn.
 *
 * Every expected failure is returned as a message for the model, never thrown. The argument
 * schema is in `compact-tool-arguments.ts`, the texts in `compact-tool-preview.ts`; both are
 * re-exported here, so the tool needs only this module.
 */
import { type AnchorResolution, resolveAnchor } from "./anchors.js";
import type { CompactToolRule } from "./compact-tool-arguments.js";
import type { CompactToolPlan, PlannedCompactRule } from "./compact-tool-plan.js";
import {
  type CycleRange,
  type CyclePosition,
  comparePositions,
  HEAD,
  layoutCycles,
  spanOfRange,
  TURN_END,
} from "../conversation/cycles.js";
import { type Compaction, type ConversationEvent, isTurnEvent } from "../conversation/events.js";
import { describeRange } from "../present/labels.js";
import { buildCompactionEvent, checkSuppliedSummary, withoutDeferral } from "./plan.js";
import { checkSuppliedCycleSummary } from "./plan-cycles.js";
import { originOverlaps, type ProjectedView, projectConversation } from "../conversation/projection.js";
import { toolCallsPolicyFor } from "./rules.js";
import { checkSummary } from "../summary/check.js";
import { countTurnTokens, type TokenCounter } from "../conversation/tokens.js";
import { countTurns, groupTurns } from "../conversation/turns.js";

export {
  CompactToolArgumentsSchema,
  type CompactToolRule,
  cutNote,
  NOTE_MAX_LENGTH,
  type ParsedCompactArguments,
  parseCompactArguments,
} from "./compact-tool-arguments.js";
export type { CompactToolPlan, PlannedCompactRule } from "./compact-tool-plan.js";
export {
  boundaryExcerpts,
  countWords,
  describeRecordedCall,
  describeRuleAction,
  describeTokenChange,
  formatRuleRange,
  formatTurnRange,
  renderApprovalPreview,
  renderDroppedContent,
} from "../present/compact-tool-preview.js";

/** The tool's name, as the model and `-t`/`-u` spell it. */
export const COMPACT_TOOL_NAME = "compact";

// ---------------------------------------------------------------------------------------------
// Planning

/** Inputs of `planCompactCall`. */
export interface PlanCompactCallOptions {
  /** Counts tokens for the "smaller by" estimate. */
  readonly countTokens: TokenCounter;
  /** Ids for the planned events (placeholders are fine for a preview). */
  readonly newEventId: () => string;
  /** RFC 3339 time of the events. */
  readonly now: string;
}

/** The stream with every compaction's deferral dropped: what the view will be once all activate. */
function activateAll(events: readonly ConversationEvent[]): ConversationEvent[] {
  return events.map((event) => (event.type === "compaction" ? withoutDeferral(event) : event));
}

/** Tokens of a view, or of its turns standing for raw turns `range`. */
function countViewTokens(
  view: ProjectedView,
  countTokens: TokenCounter,
  range?: { readonly from: number; readonly to: number },
): number {
  return view.turns.reduce(
    (sum, turn, index) =>
      range !== undefined && !originOverlaps(turn.origin, range.from, range.to)
        ? sum
        : sum + countTurnTokens({ index, events: turn.events }, countTokens).total,
    0,
  );
}

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

/**
 * A rule that saves nothing, or less than 1% of the tokens of the turns it covers, is not put to
 * the user: it would cost an approval and a cache break for nothing.
 */
function savesAlmostNothing(saved: number, covered: number): boolean {
  return saved <= 0 || saved < covered * 0.01;
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

/**
 * The raw range of one rule, or a message for the model. In finished turns quotes and counts name
 * turns; a quote in the turn in progress names a cycle of it (after_quote: the range starts at
 * the next cycle; before_quote: it ends at the cycle before), and a range that starts inside the
 * turn in progress ends, unless before_quote says otherwise, at the cycle before this call.
 */
function resolveRuleRange(
  rule: CompactToolRule,
  index: number,
  shown: ProjectedView,
  turnCount: number,
  cycles: InProgressCycles,
): CycleRange | string {
  const inProgress = turnCount - 1;
  let from: CyclePosition = { turn: rule.keepFirst ?? 0, cycle: HEAD };
  let startedBy = `keep_first ${rule.keepFirst ?? 0}`;
  if (rule.afterQuote !== undefined) {
    const anchor = resolveQuote(shown, rule.afterQuote, "after_quote", inProgress, cycles);
    if (anchor.kind !== "found") return `rules[${index}]: ${anchor.message}`;
    from =
      anchor.cycle === undefined
        ? { turn: anchor.turn + 1, cycle: HEAD }
        : { turn: anchor.turn, cycle: anchor.cycle + 1 };
    startedBy = `after_quote (found in ${where(anchor)})`;
  }
  const beforeCall = { turn: inProgress, cycle: cycles.callingCycle - 1 };
  const startsInside = from.turn === inProgress && from.cycle !== HEAD;
  let to: CyclePosition = startsInside ? beforeCall : { turn: inProgress - rule.keepLast, cycle: TURN_END };
  let endedBy = startsInside ? "the cycle before this call" : `keep_last ${rule.keepLast}`;
  if (rule.beforeQuote !== undefined) {
    const anchor = resolveQuote(shown, rule.beforeQuote, "before_quote", inProgress, cycles);
    if (anchor.kind !== "found") return `rules[${index}]: ${anchor.message}`;
    to =
      anchor.cycle === undefined || anchor.cycle <= 0
        ? { turn: anchor.turn - 1, cycle: TURN_END }
        : { turn: anchor.turn, cycle: anchor.cycle - 1 };
    endedBy = `before_quote (found in ${where(anchor)})`;
  }
  if (comparePositions(to, beforeCall) > 0) to = beforeCall;
  if (comparePositions(from, to) > 0) {
    if (from.cycle === HEAD && to.cycle === TURN_END) {
      return (
        `rules[${index}] selects no turns: the range would start at turn ${from.turn + 1} (${startedBy}) and end at ` +
        `turn ${to.turn + 1} (${endedBy}); the conversation has ${turnCount} turns and the last one is in progress.`
      );
    }
    return (
      `rules[${index}] selects nothing: the range would start at ${describePosition(from)} (${startedBy}) and ` +
      `end at ${describePosition(to)} (${endedBy}); the last turn is in progress and its latest cycle holds this call.`
    );
  }
  return {
    from: from.turn,
    to: to.turn,
    ...(from.cycle === HEAD ? {} : { fromCycle: from.cycle }),
    ...(to.cycle === TURN_END ? {} : { toCycle: to.cycle }),
  };
}

/** `turn 3`, or `turn 5, cycle 2` (1-based). */
function describePosition(position: CyclePosition): string {
  if (position.cycle === HEAD || position.cycle === TURN_END) return `turn ${position.turn + 1}`;
  return `turn ${position.turn + 1}, cycle ${position.cycle + 1}`;
}

function describeConflict(
  index: number,
  conflict: NonNullable<ReturnType<typeof checkSuppliedSummary>>,
  events: readonly ConversationEvent[],
  planned: readonly PlannedCompactRule[],
): string {
  const origins = conflict.conflicts.map((entry) => {
    const rule = planned.find((candidate) => candidate.compaction.id === entry.compactionId);
    if (rule !== undefined) return `rules[${rule.index}] of this call`;
    const recorded = events.find((event) => event.type === "compaction" && event.id === entry.compactionId);
    const pending = recorded?.type === "compaction" && recorded.deferred_until_turn !== undefined;
    return pending ? "a compaction proposed earlier in this turn, not active yet" : undefined;
  });
  const named = origins.filter((origin): origin is string => origin !== undefined);
  const origin = named.length === 0 ? "" : ` (${[...new Set(named)].join("; ")})`;
  return (
    `rules[${index}]: ${conflict.message}${origin}. Move the range's ends so the existing summary is either ` +
    "entirely inside it or entirely outside it."
  );
}

function buildEvent(
  rule: CompactToolRule,
  range: CycleRange,
  id: string,
  now: string,
  activatesAtTurn: number,
): Compaction {
  return buildCompactionEvent(
    {
      ...range,
      ...(rule.summary === undefined
        ? {}
        : { supplied: { text: rule.summary, author: "assistant" as const } }),
      ...(rule.reasoning === undefined ? {} : { reasoning: rule.reasoning }),
      ...(rule.toolCalls === undefined ? {} : { toolCalls: toolCallsPolicyFor(rule.toolCalls) }),
    },
    { id, ts: now, source: "assistant", note: rule.note, deferredUntilTurn: activatesAtTurn },
  );
}

/**
 * Plans a validated call against the conversation as stored (this turn's earlier calls and their
 * deferred compactions included); see the module comment.
 */
export function planCompactCall(
  events: readonly ConversationEvent[],
  rules: readonly CompactToolRule[],
  options: PlanCompactCallOptions,
): CompactToolPlan {
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
  const activatesAtTurn = turnCount;
  const planned: PlannedCompactRule[] = [];
  let stream: ConversationEvent[] = [...events];
  const rawTurns = groupTurns(events);
  // The conversation without any compaction, to judge each rule on its own (below).
  const uncompacted = events.filter(
    (event) => event.type !== "compaction" && event.type !== "compaction_reset",
  );
  const rawBefore = projectConversation(uncompacted);
  for (const [index, rule] of rules.entries()) {
    let range = resolveRuleRange(rule, index, shown, turnCount, cycles);
    if (typeof range === "string") return { ok: false, message: range };
    if (rule.summary !== undefined && (range.fromCycle !== undefined || range.toCycle !== undefined)) {
      const checked = checkSuppliedCycleSummary(stream, spanOfRange(range));
      if (checked.kind === "invalid") return { ok: false, message: `rules[${index}]: ${checked.message}.` };
      if (checked.kind === "conflict")
        return { ok: false, message: describeConflict(index, checked, stream, planned) };
      range = checked.piece;
    } else if (rule.summary !== undefined) {
      const conflict = checkSuppliedSummary(stream, range.from, range.to);
      if (conflict !== undefined)
        return { ok: false, message: describeConflict(index, conflict, stream, planned) };
    }
    const compaction = buildEvent(rule, range, options.newEventId(), options.now, activatesAtTurn);
    const before = projectConversation(activateAll(stream));
    stream = [...stream, compaction];
    const after = projectConversation(activateAll(stream));
    const tokensSaved =
      countViewTokens(before, options.countTokens) - countViewTokens(after, options.countTokens);
    // Worth asking about is judged on the turns as they were, not on the view: a summary that
    // mends an earlier one for the same turns replaces it and may be longer, yet saves as much.
    const rawAfter = projectConversation(activateAll([...uncompacted, compaction]));
    const covered = countViewTokens(rawBefore, options.countTokens, range);
    const savedAlone =
      countViewTokens(rawBefore, options.countTokens) - countViewTokens(rawAfter, options.countTokens);
    if (savesAlmostNothing(savedAlone, covered)) {
      return { ok: false, message: describeNoSaving(index, rule, range, savedAlone, covered) };
    }
    // The summary check, against the raw turns: what the assistant's summary leaves out.
    const losses = rule.summary === undefined ? undefined : checkSummary(rawTurns, range, rule.summary);
    planned.push({
      index,
      rule,
      ...range,
      compaction,
      tokensSaved,
      before,
      after,
      ...(losses ? { losses } : {}),
    });
  }
  return { ok: true, rules: planned, activatesAtTurn };
}
