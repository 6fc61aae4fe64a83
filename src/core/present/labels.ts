/**
 * Labels of compactions, as jp prints them in `show` and the timeline, and the spellings every
 * message shares: turn ranges (`turns A..B`, a single turn too), ranges that start or end inside
 * a turn (`turn 4, cycles 1..37`; docs/decisions/006-tool-cycle-bounds.md) and counts (`1 turn`,
 * `2 turns`, never with an `(s)` suffix). Pure, and free of schema code so the commands that only
 * display conversations stay light.
 */
import {
  type CycleRange,
  type CycleSpan,
  compactionPolicies,
  compactionSpan,
  HEAD,
  spanOfRange,
  TURN_END,
} from "../conversation/cycles.js";
import type { Compaction, ToolCallsPolicy } from "../conversation/events.js";

/**
 * The label of mechanical policies (docs/compaction-model.md, "The timeline"): `reasoning`, then `tools` / `tool requests` /
 * `tool responses` / `tools omitted`, joined with ` + `; undefined when there is nothing to say.
 */
export function describePolicies(policies: {
  reasoning?: "strip" | undefined;
  tool_calls?: ToolCallsPolicy | undefined;
}): string | undefined {
  const parts: string[] = [];
  if (policies.reasoning !== undefined) parts.push("reasoning");
  const tools = policies.tool_calls;
  if (tools?.policy === "omit") parts.push("tools omitted");
  else if (tools?.request && tools.response) parts.push("tools");
  else if (tools?.request) parts.push("tool requests");
  else if (tools?.response) parts.push("tool responses");
  return parts.length === 0 ? undefined : parts.join(" + ");
}

/**
 * The name of a range of positions (1-based on screen): `turns 4..4`, `turns 2..8`, `turn 4, cycles
 * 1..37`, `turn 4, from cycle 5`, `turns 1..4, turn 4 to cycle 37`, `turns 2..4, turn 2 from
 * cycle 5, turn 4 to cycle 37`. A range that starts at a turn's head and ends at a cycle of the
 * same turn counts its cycles from 1.
 */
export function describeSpan(span: CycleSpan): string {
  const { from, to } = span;
  const wholeStart = from.cycle === HEAD;
  const wholeEnd = to.cycle === TURN_END;
  if (from.turn === to.turn) {
    if (wholeStart && wholeEnd) return describeTurnRange(from.turn + 1, to.turn + 1);
    const turn = `turn ${from.turn + 1}`;
    const first = wholeStart ? 1 : from.cycle + 1;
    if (wholeEnd) return `${turn}, from cycle ${first}`;
    const last = to.cycle + 1;
    return first === last ? `${turn}, cycle ${first}` : `${turn}, cycles ${first}..${last}`;
  }
  const parts = [describeTurnRange(from.turn + 1, to.turn + 1)];
  if (!wholeStart) parts.push(`turn ${from.turn + 1} from cycle ${from.cycle + 1}`);
  if (!wholeEnd) parts.push(`turn ${to.turn + 1} to cycle ${to.cycle + 1}`);
  return parts.join(", ");
}

/** The size of a cycle range, with its unit: `37 cycles` within one turn, else `4 turns`. */
export function describeSpanSize(span: CycleSpan): string {
  if (span.from.turn === span.to.turn && span.to.cycle !== TURN_END) {
    const count = span.to.cycle - Math.max(span.from.cycle, 0) + 1;
    return formatCount(count, "cycle");
  }
  return formatCount(span.to.turn - span.from.turn + 1, "turn");
}

/**
 * A turn range as people read it: jp's 1-based, inclusive `turns A..B`, a single turn too
 * (`turns 3..3`). Takes 1-based numbers.
 */
export function describeTurnRange(first: number, last: number): string {
  return `turns ${first}..${last}`;
}

/**
 * A 1-based range on cxc's own surfaces (the review's confirmation, the compact tool's approval,
 * `stats`): one turn is `turn 3`. Where jp prints ranges (the compaction timeline, `show`'s
 * compactions) one turn stays jp's `turns 3..3` (`describeTurnRange`).
 */
export function describeOwnTurnRange(first: number, last: number): string {
  return first === last ? `turn ${first}` : describeTurnRange(first, last);
}

/** `1 compaction`, `2 compactions`; `plural` for the irregular ones (`entry`, `entries`). */
export function formatCount(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}

/** The text with its first letter in upper case. */
export function capitalize(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}

/**
 * jp's label of a compaction: `summary` when it has one, else the policy label, else undefined.
 * A cycle-precise compaction's policies are read from its `cycles` object.
 */
export function compactionLabel(compaction: Compaction): string | undefined {
  const policies = compactionPolicies(compaction);
  return policies.summary !== undefined ? "summary" : describePolicies(policies);
}

/**
 * jp's text of a compaction item (`show`, `print`): `turns A..B (N total[, LABEL])` (jp's
 * `turns 1..5 (5 total, summary)`, `turns 3..3 (1 total, reasoning + tools)`, `turns 1..2 (2
 * total)`); for a cycle-precise one `turn 4, cycles 1..37 (37 cycles[, LABEL])`.
 */
export function describeCompaction(compaction: Compaction): string {
  const label = compactionLabel(compaction);
  if (compaction.cycles !== undefined) {
    const span = compactionSpan(compaction);
    return `${describeSpan(span)} (${describeSpanSize(span)}${label === undefined ? "" : `, ${label}`})`;
  }
  return describeSizedRange({ from: compaction.from_turn, to: compaction.to_turn }, label);
}

/**
 * A range as people read it (1-based): jp's `turns A..B` for whole turns (`turns 3..3` for one),
 * the cycle range otherwise (`turn 4, cycles 1..37`, see `describeSpan`).
 */
export function describeRange(range: CycleRange): string {
  if (range.fromCycle === undefined && range.toCycle === undefined) {
    return describeTurnRange(range.from + 1, range.to + 1);
  }
  return describeSpan(spanOfRange(range));
}

/**
 * A range with its size and label, as the timeline and the dry run print it: jp's
 * `turns 2..8 (7 total, LABEL)` for whole turns, `turn 4, cycles 1..37 (37 cycles, LABEL)` inside.
 */
export function describeSizedRange(range: CycleRange, label?: string): string {
  const suffix = label === undefined ? "" : `, ${label}`;
  if (range.fromCycle === undefined && range.toCycle === undefined) {
    return `${describeTurnRange(range.from + 1, range.to + 1)} (${range.to - range.from + 1} total${suffix})`;
  }
  const span = spanOfRange(range);
  return `${describeSpan(span)} (${describeSpanSize(span)}${suffix})`;
}

/** A range as a file-name part: `turns-3-6`, `turn-4-cycles-1-37`. */
export function rangeSlug(range: CycleRange): string {
  return describeRange(range)
    .replace(/[^A-Za-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

/** The range of a compaction as `describeReset` names it: `turns A..B`, or its cycle range. */
export function describeCompactionRange(compaction: Compaction): string {
  if (compaction.cycles !== undefined) return describeSpan(compactionSpan(compaction));
  return describeTurnRange(compaction.from_turn + 1, compaction.to_turn + 1);
}

/**
 * Several compactions' ranges in one phrase: `turns 1..3, 5..6` when all are whole turns, else
 * each named and joined with `; ` (`turns 1..2; turn 3, cycles 1..6`).
 */
export function describeCompactionRanges(compactions: readonly Compaction[]): string {
  if (compactions.every((compaction) => compaction.cycles === undefined)) {
    const ranges = compactions.map((compaction) => `${compaction.from_turn + 1}..${compaction.to_turn + 1}`);
    return `turns ${ranges.join(", ")}`;
  }
  return compactions.map(describeCompactionRange).join("; ");
}
