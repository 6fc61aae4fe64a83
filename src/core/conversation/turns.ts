/**
 * Turns, exactly as jp counts them. Pure.
 *
 * A turn is a maximal group of consecutive turn events (global entries are ignored), split at
 * `turn_start`: a `turn_start` opens a new turn only if the current turn already holds an event;
 * otherwise it becomes the first event of the current turn. Events before the first `turn_start`
 * form an implicit turn 0. Global entries inherit the index of the most recent turn event (0 when
 * none came before). Indices are 0-based in storage and 1-based on the command line.
 */
import { type ConversationEvent, isTurnEvent, type TurnEvent } from "./events.js";

/** The 0-based turn index of every event, in stream order (global entries included). */
export function assignTurnIndices(events: readonly ConversationEvent[]): number[] {
  const indices: number[] = new Array(events.length);
  let current = 0;
  let currentHasEvent = false;
  for (let position = 0; position < events.length; position++) {
    const event = events[position]!;
    if (isTurnEvent(event)) {
      if (event.type === "turn_start" && currentHasEvent) {
        current += 1;
      }
      currentHasEvent = true;
    }
    indices[position] = current;
  }
  return indices;
}

/** Number of turns: the index of the last turn event plus one, or 0 when there is none. */
export function countTurns(events: readonly ConversationEvent[]): number {
  return new TurnTally().add(events).turns;
}

/** `countTurns` and the number of turn events, kept up while events go by (a log written in batches). */
export class TurnTally {
  turns = 0;
  turnEvents = 0;

  add(events: readonly ConversationEvent[]): this {
    for (const event of events) {
      if (!isTurnEvent(event)) continue;
      if (event.type === "turn_start" && this.turnEvents > 0) this.turns += 1;
      this.turns = Math.max(this.turns, 1);
      this.turnEvents += 1;
    }
    return this;
  }
}

/** One turn: its 0-based index and its turn events in order. */
export interface Turn {
  readonly index: number;
  readonly events: readonly TurnEvent[];
}

/** Groups the turn events into turns (global entries are left out). */
export function groupTurns(events: readonly ConversationEvent[]): Turn[] {
  const turns: { index: number; events: TurnEvent[] }[] = [];
  const indices = assignTurnIndices(events);
  for (let position = 0; position < events.length; position++) {
    const event = events[position]!;
    if (!isTurnEvent(event)) continue;
    const index = indices[position]!;
    const last = turns[turns.length - 1];
    if (last && last.index === index) last.events.push(event);
    else turns.push({ index, events: [event] });
  }
  return turns;
}
