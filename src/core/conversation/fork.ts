/**
 * Building the event list of a fork: the selected turns of a source conversation, copied with new
 * event ids (docs/compaction.md, "Other commands"). Pure. Used by `cxc conversation fork` (and
 * `-k`), `query --fork` and the review shell. The selection is one run of turns, or several
 * (`fork --first N --last M` keeps the head and the tail; `--from/--until` keep the turns that
 * started in a time range).
 *
 * What is kept, and why:
 * - the turn events of the selected turns;
 * - every `config_delta` that comes before the first dropped trailing turn, so the fork runs with
 *   the configuration the source had at that point (the sticky per-conversation config); one that
 *   comes later belongs to a history the fork does not have;
 * - compactions lying wholly inside one kept run of turns, wherever they stand in the stream,
 *   renumbered to the fork's turns (and their deferral with them). This is jp's `retain` rule — an overlay
 *   lying entirely before the first removed turn keeps its meaning — extended to `--last`, where
 *   the kept turns only move down. A compaction reaching a dropped turn no longer describes the
 *   fork's history and is dropped.
 *   Choice: jp documents `retain` for forks but its fork drops every overlay, even those it would keep.
 *   cxc keeps them, so `fork --first N` of a compacted conversation stays compacted the same way;
 * - pins of kept turns, renumbered like compactions; a pin of a dropped turn is dropped. The
 *   messages a compaction's keep rules matched (`pinned_events`) are mapped to their copies;
 * - resets (of compactions and of pins), wherever they stand, with `retires` mapped to the new
 *   ids; a reset left with nothing to retire is dropped. Dropping one that still retires a kept
 *   compaction would revive it;
 * - unknown event kinds inside the selection, verbatim (they have no id to renew).
 * Timestamps are kept: the fork's history happened when it happened.
 */
import { type Compaction, type ConversationEvent, isTurnEvent } from "./events.js";
import { assignTurnIndices } from "./turns.js";

/** Selected turns as 0-based indices, `start` inclusive and `end` exclusive. */
export interface TurnSlice {
  readonly start: number;
  readonly end: number;
}

/** The fork's events and what was left behind. */
export interface ForkedEvents {
  readonly events: ConversationEvent[];
  /** Compactions of the source that the fork does not carry. */
  readonly droppedCompactions: number;
}

/**
 * The one slice `--first N` or `--last N` keeps out of `turnCount` (both given: the overlap; a fork
 * keeps head and tail with `selectForkTurns`). No selector keeps all of them.
 */
export function selectTurnSlice(turnCount: number, selection: { first?: number; last?: number }): TurnSlice {
  const end = selection.first === undefined ? turnCount : Math.min(turnCount, selection.first);
  const start = selection.last === undefined ? 0 : Math.max(0, turnCount - selection.last);
  return { start, end: Math.max(start, end) };
}

/**
 * The turns a fork keeps, as slices: `--first N` and `--last M` (jp's head and tail), applied to
 * the turns `keep` offers (all of them, or those a time filter left), in order.
 */
export function selectForkTurns(
  keep: readonly number[],
  selection: { first?: number; last?: number },
): TurnSlice[] {
  const { first, last } = selection;
  let kept = [...keep];
  if (first !== undefined && last !== undefined) {
    if (first + last < kept.length) kept = [...kept.slice(0, first), ...kept.slice(kept.length - last)];
  } else if (first !== undefined) kept = kept.slice(0, first);
  else if (last !== undefined) kept = kept.slice(Math.max(0, kept.length - last));
  return slicesOf(kept);
}

/** Sorted turn indices as maximal runs. */
function slicesOf(indices: readonly number[]): TurnSlice[] {
  const slices: TurnSlice[] = [];
  for (const index of indices) {
    const last = slices[slices.length - 1];
    if (last !== undefined && last.end === index)
      slices[slices.length - 1] = { start: last.start, end: index + 1 };
    else slices.push({ start: index, end: index + 1 });
  }
  return slices;
}

/**
 * Copies the turns of `selection` (one slice, or several in order, as `--first N --last M`
 * gives) out of `events`, each copied event getting the id `newId` gives for its old one. Inputs
 * are not modified.
 */
/** A turn event without the usage it carried (`metadata.usage`). */
function withoutUsage<T extends ConversationEvent>(event: T): T {
  const metadata = (event as { metadata?: Record<string, unknown> }).metadata;
  if (metadata?.usage === undefined) return event;
  const { usage: _usage, ...rest } = metadata;
  const copied = { ...event, metadata: rest } as T & { metadata?: Record<string, unknown> };
  if (Object.keys(rest).length === 0) delete copied.metadata;
  return copied;
}

export function copyEventsForFork(
  events: readonly ConversationEvent[],
  selection: TurnSlice | readonly TurnSlice[],
  newId: (oldId: string) => string,
): ForkedEvents {
  const slices = (Array.isArray(selection) ? selection : [selection]).filter(
    (slice: TurnSlice) => slice.end > slice.start,
  );
  const keeps = (index: number): boolean => slices.some((slice) => index >= slice.start && index < slice.end);
  const indices = assignTurnIndices(events);
  const tailStart = firstPositionOfTurn(events, indices, slices[slices.length - 1]?.end ?? 0);
  const kept: ConversationEvent[] = [];
  const newIds = new Map<string, string>();
  /** The kept turn events whose usage still describes the fork's context (no turn dropped before). */
  const usageKept = new Set<string>();
  let droppedCompactions = 0;
  const copy = <T extends ConversationEvent & { id: string }>(event: T): void => {
    const id = newId(event.id);
    newIds.set(event.id, id);
    const copied: T = { ...event, id };
    kept.push(copied);
  };
  events.forEach((event, position) => {
    const index = indices[position]!;
    const beforeTail = position < tailStart;
    if (isTurnEvent(event)) {
      // Usage reported after turns the fork leaves out describes a context the fork never sends.
      if (!keeps(index)) return;
      const sameContext = droppedBefore(index, slices) === 0;
      if (sameContext) usageKept.add(event.id);
      copy(sameContext ? event : withoutUsage(event));
      return;
    }
    switch (event.type) {
      case "config_delta":
        if (beforeTail) copy(event);
        return;
      case "compaction": {
        const shifted = shiftCompaction(event, slices);
        if (shifted === undefined) droppedCompactions += 1;
        else copy(shifted);
        return;
      }
      case "pin":
        if (keeps(event.turn)) copy({ ...event, turn: event.turn - droppedBefore(event.turn, slices) });
        return;
      case "recall_exclusion":
        // A fork keeps what its source kept out of recall: a pattern whole, a turn's or call's where
        // that turn comes along.
        if (event.turn === undefined) copy(event);
        else if (keeps(event.turn)) copy({ ...event, turn: event.turn - droppedBefore(event.turn, slices) });
        return;
      case "compaction_reset":
      case "pin_reset":
        // Mapped after the walk: a reset may name an event that comes later in the stream.
        copy(event);
        return;
      case "usage":
        // Usage learnt later for a kept event, under the same rule as the event's own.
        if (usageKept.has(event.event)) copy({ ...event, event: newIds.get(event.event)! });
        return;
      case "unknown":
        if (beforeTail && keeps(index)) kept.push(event);
        return;
    }
  });
  return { events: remapResets(kept, newIds), droppedCompactions };
}

/**
 * The compaction renumbered to the fork's turns, or undefined when it reaches a dropped turn: it is
 * kept only when it lies wholly inside one kept slice.
 */
function shiftCompaction(compaction: Compaction, slices: readonly TurnSlice[]): Compaction | undefined {
  if (!slices.some((slice) => compaction.from_turn >= slice.start && compaction.to_turn < slice.end)) {
    return undefined;
  }
  const shifted = {
    ...compaction,
    from_turn: compaction.from_turn - droppedBefore(compaction.from_turn, slices),
    to_turn: compaction.to_turn - droppedBefore(compaction.to_turn, slices),
  };
  if (compaction.deferred_until_turn !== undefined) {
    // A deferral already reached in the fork's numbering is no deferral at all.
    const deferred = compaction.deferred_until_turn - droppedBefore(compaction.deferred_until_turn, slices);
    if (deferred > 0) shifted.deferred_until_turn = deferred;
    else delete shifted.deferred_until_turn;
  }
  return shifted;
}

/**
 * The turns a fork leaves out before `turn`: those before and between the kept slices (turns
 * after the last slice do not move anything).
 */
function droppedBefore(turn: number, slices: readonly TurnSlice[]): number {
  let dropped = 0;
  let previousEnd = 0;
  for (const slice of slices) {
    if (turn < slice.start) break;
    dropped += slice.start - previousEnd;
    previousEnd = slice.end;
  }
  return dropped;
}

/** The position of the first turn event with index >= `turn`, or the stream length. */
function firstPositionOfTurn(
  events: readonly ConversationEvent[],
  indices: readonly number[],
  turn: number,
): number {
  for (let position = 0; position < events.length; position++) {
    if (isTurnEvent(events[position]!) && indices[position]! >= turn) return position;
  }
  return events.length;
}

/**
 * Points every reset's `retires` at the copies of what it retired, leaving out events the fork
 * does not carry, and drops resets left with nothing to retire. Repeats until stable, because a
 * dropped reset may have been all that another reset retired.
 */
function remapResets(events: ConversationEvent[], newIds: ReadonlyMap<string, string>): ConversationEvent[] {
  let current = events.map((event) => {
    if (event.type === "compaction_reset" || event.type === "pin_reset")
      return { ...event, retires: event.retires.flatMap((id) => newIds.get(id) ?? []) };
    if (event.type === "recall_exclusion" && event.retires !== undefined)
      return { ...event, retires: event.retires.flatMap((id) => newIds.get(id) ?? []) };
    if (event.type === "compaction" && event.pinned_events !== undefined) {
      const pinned = event.pinned_events.flatMap((id) => newIds.get(id) ?? []);
      const copied: Compaction = { ...event, pinned_events: pinned };
      if (pinned.length === 0) delete copied.pinned_events;
      return copied;
    }
    return event;
  });
  for (;;) {
    const present = new Set(current.flatMap((event) => (event.type === "unknown" ? [] : [event.id])));
    let changed = false;
    const next: ConversationEvent[] = [];
    for (const event of current) {
      const resets =
        event.type === "compaction_reset" || event.type === "pin_reset"
          ? event.retires
          : event.type === "recall_exclusion"
            ? event.retires
            : undefined;
      if (resets === undefined) {
        next.push(event);
        continue;
      }
      const retires = resets.filter((id) => present.has(id));
      if (retires.length === 0) changed = true;
      else next.push(retires.length === resets.length ? event : ({ ...event, retires } as ConversationEvent));
    }
    if (!changed) return next;
    current = next;
  }
}
