/**
 * Builds the event list of a fork: the selected turns of a source conversation, copied with new
 * event ids. Shared by `cxc conversation fork` (and later `query --fork`).
 *
 * What is kept, and why:
 * - the turn events of the selected turns;
 * - every `config_delta` before the first dropped trailing turn, so the fork runs with the
 *   configuration the source had at that point (the sticky per-conversation config);
 * - compactions that lie wholly inside the selection, renumbered to the fork's turns; one that
 *   reaches a dropped turn no longer describes the fork's history and is dropped (jp does the same);
 * - resets, with their `retires` list mapped to the new ids (a reset left with nothing to retire is
 *   dropped);
 * - unknown event kinds inside the selection, verbatim.
 * Timestamps are kept: the fork's history happened when it happened.
 */
import type { ConversationEvent } from "../../core/events.js";
import { isTurnEvent } from "../../core/events.js";
import { assignTurnIndices } from "../../core/turns.js";
import type { ResolvedTurns } from "./turn-selection.js";

/** The fork's events and what was left behind. */
export interface ForkedEvents {
  readonly events: ConversationEvent[];
  /** Compactions of the source that the fork does not carry. */
  readonly droppedCompactions: number;
}

/** Copies the selected turns of `events` with ids from `newEventId`. Inputs are not modified. */
export function copyEventsForFork(
  events: readonly ConversationEvent[],
  selection: ResolvedTurns,
  newEventId: () => string,
): ForkedEvents {
  const indices = assignTurnIndices(events);
  const tailStart = firstPositionOfTurn(events, indices, selection.end);
  const kept: ConversationEvent[] = [];
  const newIds = new Map<string, string>();
  let droppedCompactions = 0;
  const copy = <T extends ConversationEvent & { id: string }>(event: T, changes: Partial<T> = {}): void => {
    const id = newEventId();
    newIds.set(event.id, id);
    kept.push({ ...event, ...changes, id });
  };
  events.forEach((event, position) => {
    const index = indices[position]!;
    const insideSelection = index >= selection.start && index < selection.end;
    if (isTurnEvent(event)) {
      if (insideSelection) copy(event);
      return;
    }
    if (position >= tailStart) {
      if (event.type === "compaction") droppedCompactions += 1;
      return;
    }
    switch (event.type) {
      case "config_delta":
        copy(event);
        return;
      case "compaction": {
        if (event.from_turn < selection.start || event.to_turn >= selection.end) {
          droppedCompactions += 1;
          return;
        }
        const shifted = {
          ...event,
          from_turn: event.from_turn - selection.start,
          to_turn: event.to_turn - selection.start,
        };
        if (event.deferred_until_turn !== undefined) {
          const deferred = event.deferred_until_turn - selection.start;
          if (deferred > 0) shifted.deferred_until_turn = deferred;
          else delete shifted.deferred_until_turn;
        }
        copy(shifted);
        return;
      }
      case "compaction_reset":
        // Mapped after the walk: a reset may retire an event that comes later in the stream.
        copy(event);
        return;
      case "unknown":
        if (insideSelection) kept.push(event);
        return;
    }
  });
  return { events: remapResets(kept, newIds), droppedCompactions };
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

function remapResets(events: ConversationEvent[], newIds: ReadonlyMap<string, string>): ConversationEvent[] {
  const result: ConversationEvent[] = [];
  for (const event of events) {
    if (event.type !== "compaction_reset") {
      result.push(event);
      continue;
    }
    const retires = event.retires.flatMap((id) => {
      const mapped = newIds.get(id);
      return mapped === undefined ? [] : [mapped];
    });
    if (retires.length > 0) result.push({ ...event, retires });
  }
  return result;
}
