/**
 * Keeping a subset of turns, for `fork --first N / --last N` (jp reference §3.4). Pure.
 *
 * Turn events outside the kept turns are dropped; every global entry (config deltas, resets,
 * unknown entries) survives. Overlays follow jp's `retain` rule: when any turn event was dropped,
 * let T be the lowest turn that lost one; every compaction reaching T or later is dropped, because
 * its turn numbers no longer mean the same turns. Compactions lying entirely before T keep their
 * meaning (the turns before T are unchanged and keep their numbers), so they are kept.
 *
 * Choice: jp's fork drops every overlay, even those `retain` would keep (reference §0.2 #14).
 * cxc keeps the ones lying entirely before the first removed turn, so `fork --first N` of a
 * compacted conversation stays compacted the same way.
 */
import { type ConversationEvent, isTurnEvent } from "./events.js";
import { assignTurnIndices, countTurns } from "./turns.js";

/** The turns `--first N` or `--last N` keep out of `turnCount` (0-based). No selector keeps all. */
export function selectForkTurns(
  turnCount: number,
  selection: { first?: number; last?: number },
): Set<number> {
  let from = 0;
  let to = turnCount - 1;
  if (selection.first !== undefined) to = Math.min(to, selection.first - 1);
  if (selection.last !== undefined) from = Math.max(from, turnCount - selection.last);
  const kept = new Set<number>();
  for (let turn = from; turn <= to; turn++) kept.add(turn);
  return kept;
}

/** The events of the kept turns plus the global entries, with overlays filtered as described. */
export function retainTurns(
  events: readonly ConversationEvent[],
  keptTurns: ReadonlySet<number>,
): ConversationEvent[] {
  const indices = assignTurnIndices(events);
  let lowestRemoved: number | undefined;
  const retained: ConversationEvent[] = [];
  for (let position = 0; position < events.length; position++) {
    const event = events[position]!;
    const turn = indices[position]!;
    if (isTurnEvent(event) && !keptTurns.has(turn)) {
      lowestRemoved = lowestRemoved === undefined ? turn : Math.min(lowestRemoved, turn);
      continue;
    }
    retained.push(event);
  }
  if (lowestRemoved === undefined) return retained;
  const boundary = lowestRemoved;
  return retained.filter((event) => event.type !== "compaction" || event.to_turn < boundary);
}

/** `retainTurns` with a `--first`/`--last` selection. */
export function forkEvents(
  events: readonly ConversationEvent[],
  selection: { first?: number; last?: number },
): ConversationEvent[] {
  return retainTurns(events, selectForkTurns(countTurns(events), selection));
}
