/**
 * Cycles: the model round trips inside a turn, and the positions that name them. Pure.
 * See docs/decisions/006-tool-cycle-bounds.md.
 *
 * A turn is its **head** (everything before its first assistant event: `turn_start` and the user's
 * message) followed by its **cycles**. A cycle is one model response (reasoning, text, tool calls)
 * and the user-side content answering it (tool results, inquiries, further requests); the next
 * assistant event after user-side content opens the next cycle. A `tool_call_response` belongs to
 * the cycle of the request with its `call_id` in the same turn, wherever it stands, so a call and
 * its result are never in different cycles (when ids repeat, the latest call before the result).
 *
 * A position is (turn, cycle), 0-based; `HEAD` is the head of a turn (it sorts before cycle 0) and
 * `TURN_END` the end of a turn including cycles not yet written. Cycle-precise compactions carry
 * their positions in `cycles` (see events.ts); whole-turn ones span `HEAD..TURN_END` of their turns.
 */
import {
  type Compaction,
  type ConversationEvent,
  isTurnEvent,
  type ReasoningPolicy,
  type SummaryPolicy,
  type ToolCallsPolicy,
  type TurnEvent,
} from "./events.js";
import { assignTurnIndices, type Turn } from "./turns.js";

/** The cycle "number" of a turn's head. */
export const HEAD = -1;
/** The cycle "number" of a turn's end, past every cycle it has or will have. */
export const TURN_END = Number.MAX_SAFE_INTEGER;

/** A point in a conversation: a turn and a cycle of it (or `HEAD` / `TURN_END`). 0-based. */
export interface CyclePosition {
  readonly turn: number;
  readonly cycle: number;
}

/** An inclusive range of positions. */
export interface CycleSpan {
  readonly from: CyclePosition;
  readonly to: CyclePosition;
}

/** Orders two positions in stream order. */
export function comparePositions(left: CyclePosition, right: CyclePosition): number {
  return left.turn - right.turn || left.cycle - right.cycle;
}

/**
 * Assigns cycles to the turn events of one turn, in order (see the module comment); `reset()`
 * starts the next turn.
 */
function createCycleCounter(): { next(event: TurnEvent): number; count(): number; reset(): void } {
  let cycle = HEAD;
  let answered = false;
  const callCycles = new Map<string, number>();
  return {
    next(event) {
      switch (event.type) {
        case "chat_response":
        case "tool_call_request":
          if (cycle === HEAD || answered) {
            cycle += 1;
            answered = false;
          }
          // Ids repeat in some histories (jp's `fs_modify_file_0`): a result answers the latest
          // call with its id.
          if (event.type === "tool_call_request") callCycles.set(event.call_id, cycle);
          return cycle;
        case "tool_call_response": {
          const owner = callCycles.get(event.call_id);
          if (cycle !== HEAD) answered = true;
          return owner ?? cycle;
        }
        case "chat_request":
          if (cycle !== HEAD) answered = true;
          return cycle;
        default:
          return cycle;
      }
    },
    count: () => cycle + 1,
    reset() {
      cycle = HEAD;
      answered = false;
      if (callCycles.size > 0) callCycles.clear();
    },
  };
}

/** The cycle of every event of one turn (`HEAD` for the head), in order. */
export function assignCycles(events: readonly TurnEvent[]): number[] {
  const counter = createCycleCounter();
  return events.map((event) => counter.next(event));
}

/** The cycles of a whole stream. */
export interface CycleLayout {
  /** The turn index of every stream position (as `assignTurnIndices`). */
  readonly turnIndices: readonly number[];
  /** The cycle of every stream position; `HEAD` for head events and for global entries. */
  readonly cycles: Int32Array;
  /** The number of cycles of every turn. */
  readonly cycleCounts: readonly number[];
}

/** Lays out the cycles of every turn of a stream in one pass. */
export function layoutCycles(
  events: readonly ConversationEvent[],
  turnIndices: readonly number[] = assignTurnIndices(events),
): CycleLayout {
  const cycles = new Int32Array(events.length).fill(HEAD);
  const cycleCounts: number[] = [];
  const counter = createCycleCounter();
  let currentTurn = -1;
  for (let position = 0; position < events.length; position++) {
    const event = events[position]!;
    if (!isTurnEvent(event)) continue;
    const turn = turnIndices[position]!;
    if (turn !== currentTurn) {
      if (currentTurn >= 0) cycleCounts[currentTurn] = counter.count();
      for (let skipped = currentTurn + 1; skipped < turn; skipped++) cycleCounts[skipped] = 0;
      counter.reset();
      currentTurn = turn;
    }
    cycles[position] = counter.next(event);
  }
  if (currentTurn >= 0) cycleCounts[currentTurn] = counter.count();
  return { turnIndices, cycles, cycleCounts };
}

/** What cycle bounds are resolved against: every cycle of the conversation, in order. */
export interface CycleFacts {
  readonly turnCount: number;
  /** Cycles per turn. */
  readonly cycleCounts: readonly number[];
  /** The flat index of each turn's first cycle (the number of cycles before the turn). */
  readonly firstCycle: readonly number[];
  /** The turn of each flat cycle. */
  readonly turnOf: readonly number[];
  /** The tool calls each flat cycle asked for. */
  readonly calls: readonly number[];
}

/** Counts the cycles and their tool calls (see CycleFacts). */
export function describeCycles(
  events: readonly ConversationEvent[],
  layout = layoutCycles(events),
): CycleFacts {
  const { cycleCounts } = layout;
  const firstCycle: number[] = [];
  const turnOf: number[] = [];
  let total = 0;
  cycleCounts.forEach((count, turn) => {
    firstCycle.push(total);
    for (let cycle = 0; cycle < count; cycle++) turnOf.push(turn);
    total += count;
  });
  const calls: number[] = new Array(total).fill(0);
  events.forEach((event, position) => {
    if (event.type !== "tool_call_request") return;
    const cycle = layout.cycles[position]!;
    if (cycle !== HEAD) calls[firstCycle[layout.turnIndices[position]!]! + cycle]! += 1;
  });
  return { turnCount: cycleCounts.length, cycleCounts, firstCycle, turnOf, calls };
}

/** The position of flat cycle `index`. */
export function positionOfCycle(facts: CycleFacts, index: number): CyclePosition {
  const turn = facts.turnOf[index]!;
  return { turn, cycle: index - facts.firstCycle[turn]! };
}

/** The flat index of a position that names a cycle of an existing turn (clamped to the turn). */
export function flatIndexOf(facts: CycleFacts, position: CyclePosition): number {
  const count = facts.cycleCounts[position.turn] ?? 0;
  return facts.firstCycle[position.turn]! + Math.min(Math.max(position.cycle, 0), count - 1);
}

// ---------------------------------------------------------------------------------------------
// Compactions

/** The policies a compaction applies, wherever it keeps them (top level, or `cycles`). */
export interface CompactionPolicies {
  readonly summary?: SummaryPolicy | undefined;
  readonly reasoning?: ReasoningPolicy | undefined;
  readonly tool_calls?: ToolCallsPolicy | undefined;
}

/** True for a compaction whose range starts or ends inside a turn (it has `cycles`). */
export function isCyclePrecise(compaction: Compaction): boolean {
  return compaction.cycles !== undefined;
}

/** The policies of a compaction: its `cycles` policies when it is cycle-precise. */
export function compactionPolicies(compaction: Compaction): CompactionPolicies {
  return compaction.cycles ?? compaction;
}

/** The positions a compaction covers. */
export function compactionSpan(compaction: Compaction): CycleSpan {
  const { cycles } = compaction;
  return {
    from: { turn: compaction.from_turn, cycle: cycles?.from ?? HEAD },
    to: { turn: compaction.to_turn, cycle: cycles === undefined ? TURN_END : cycles.to },
  };
}

/**
 * For each compaction of `inOrder` (the compactions in force, in stream order), the index of the
 * later summary that covers its whole span and is in force with `turnCount` turns (a deferred one
 * only once its turn started), or undefined: a summary stands for everything in its range, so
 * such a compaction no longer changes what the model sees (`show` says `replaced by N`).
 */
export function replacingSummaries(
  inOrder: readonly Compaction[],
  turnCount: number,
): (number | undefined)[] {
  const spans = inOrder.map(compactionSpan);
  const inForce = (compaction: Compaction): boolean =>
    compaction.deferred_until_turn === undefined || turnCount > compaction.deferred_until_turn;
  return inOrder.map((_, index) => {
    for (let later = inOrder.length - 1; later > index; later--) {
      const candidate = inOrder[later]!;
      if (compactionPolicies(candidate).summary === undefined || !inForce(candidate)) continue;
      const outer = spans[later]!;
      const inner = spans[index]!;
      if (comparePositions(outer.from, inner.from) <= 0 && comparePositions(inner.to, outer.to) <= 0)
        return later;
    }
    return undefined;
  });
}

// ---------------------------------------------------------------------------------------------
// Selecting raw events

/**
 * A range of raw turns (0-based, inclusive), optionally starting and ending at cycles: what plans,
 * segments, summarizers and checks carry.
 */
export interface CycleRange {
  readonly from: number;
  readonly to: number;
  /** First covered cycle of `from`; absent: from its head. */
  readonly fromCycle?: number | undefined;
  /** Last covered cycle of `to`; absent: to its end. */
  readonly toCycle?: number | undefined;
}

/** The positions a range covers. */
export function spanOfRange(range: CycleRange): CycleSpan {
  return {
    from: { turn: range.from, cycle: range.fromCycle ?? HEAD },
    to: { turn: range.to, cycle: range.toCycle ?? TURN_END },
  };
}

/**
 * The turns of a range with only the events inside it, in stream order: whole turns in the
 * middle, the covered part of a turn at either end (a range starting at cycle C of a turn leaves
 * its head and earlier cycles out). Turns left without events are dropped. For summarizers and
 * checks, which read raw events.
 */
export function selectRange(turns: readonly Turn[], range: CycleRange): Turn[] {
  const span = spanOfRange(range);
  const selected: Turn[] = [];
  for (const turn of turns) {
    if (turn.index < range.from || turn.index > range.to) continue;
    const partial =
      (turn.index === range.from && range.fromCycle !== undefined) ||
      (turn.index === range.to && range.toCycle !== undefined);
    if (!partial) {
      selected.push(turn);
      continue;
    }
    const cycles = assignCycles(turn.events);
    const events = turn.events.filter((_, position) => {
      const at = { turn: turn.index, cycle: cycles[position]! };
      return comparePositions(at, span.from) >= 0 && comparePositions(at, span.to) <= 0;
    });
    if (events.length > 0) selected.push({ index: turn.index, events });
  }
  return selected;
}
