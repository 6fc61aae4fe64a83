/**
 * Projection: applies the compaction overlays to a conversation and returns what the model sees
 * (docs/compaction-model.md, "Projection"). Pure; it never changes its input.
 *
 * For every turn and each content type (summary, reasoning, tool calls) separately, the winner is
 * the in-force compaction covering the turn with that type set and the latest timestamp; on equal
 * timestamps the later one in the stream wins. A summary beats the mechanical policies in its
 * turns. A summary is injected once per contiguous run of turns won by the same compaction, as its
 * own turn: `turn_start`, the request `[Summary of previous conversation]`, and the summary text.
 *
 * Overlays in force are the active ones (see compactions.ts) whose `deferred_until_turn`, if any,
 * has been reached. `compaction` and `compaction_reset` entries are consumed; config deltas and
 * unknown entries pass through in place.
 *
 * Winners are found by visiting compactions from highest to lowest priority and painting only
 * turns not yet painted, skipping painted stretches with a "next unpainted turn" forest, so the
 * cost is about O(turns + compactions log compactions) rather than O(turns × compactions).
 */
import { activeCompactions, isCompactionInEffect } from "./compactions.js";
import {
  type ChatRequest,
  type ChatResponse,
  type Compaction,
  type ConversationEvent,
  compareTimestamps,
  isTurnEvent,
  type TurnEvent,
  type TurnStart,
} from "./events.js";
import { assignTurnIndices, groupTurns } from "./turns.js";

/** The request text of an injected summary turn (jp's exact text). */
export const SUMMARY_REQUEST_TEXT = "[Summary of previous conversation]";

/** Where a projected turn came from: a raw turn carried through, or a summary of a run of raw turns. */
export type TurnOrigin =
  | { kind: "kept"; turn: number }
  | { kind: "summary"; from: number; to: number; compactionId: string };

/** One turn of the projected view. */
export interface ProjectedTurn {
  origin: TurnOrigin;
  events: readonly TurnEvent[];
}

/** The result of projection. */
export interface ProjectedView {
  /** turn events after projection plus config deltas and unknown entries, in order; compaction(_reset) consumed */
  events: readonly ConversationEvent[];
  turns: readonly ProjectedTurn[];
}

/** True when the origin covers any raw turn of `from..to` (0-based, inclusive). */
export function originOverlaps(origin: TurnOrigin, from: number, to: number): boolean {
  const start = origin.kind === "kept" ? origin.turn : origin.from;
  const end = origin.kind === "kept" ? origin.turn : origin.to;
  return start <= to && end >= from;
}

/** Per turn, the compaction that wins among those with `hasPolicy`, or undefined. */
function resolveWinners(
  compactions: readonly Compaction[],
  turnCount: number,
  hasPolicy: (compaction: Compaction) => boolean,
): (Compaction | undefined)[] {
  const winners: (Compaction | undefined)[] = new Array(turnCount).fill(undefined);
  const candidates = compactions
    .map((compaction, order) => ({ compaction, order }))
    .filter((candidate) => hasPolicy(candidate.compaction));
  if (candidates.length === 0) return winners;
  candidates.sort(
    (left, right) => compareTimestamps(right.compaction.ts, left.compaction.ts) || right.order - left.order,
  );
  // nextUnpainted[t] points at a turn >= t that may be unpainted; turnCount is a sentinel.
  const nextUnpainted = Array.from({ length: turnCount + 1 }, (_, turn) => turn);
  const findUnpainted = (turn: number): number => {
    let root = turn;
    while (nextUnpainted[root] !== root) root = nextUnpainted[root]!;
    let cursor = turn;
    while (nextUnpainted[cursor] !== root) {
      const following = nextUnpainted[cursor]!;
      nextUnpainted[cursor] = root;
      cursor = following;
    }
    return root;
  };
  for (const { compaction } of candidates) {
    const last = Math.min(compaction.to_turn, turnCount - 1);
    for (let turn = findUnpainted(compaction.from_turn); turn <= last; turn = findUnpainted(turn + 1)) {
      winners[turn] = compaction;
      nextUnpainted[turn] = turn + 1;
    }
  }
  return winners;
}

/** The first and last turn of the run of equal summary winners around each summarized turn. */
function summaryRuns(winners: readonly (Compaction | undefined)[]): { start: number[]; end: number[] } {
  const start: number[] = new Array(winners.length);
  const end: number[] = new Array(winners.length);
  for (let turn = 0; turn < winners.length; turn++) {
    start[turn] = turn > 0 && winners[turn - 1] === winners[turn] ? start[turn - 1]! : turn;
  }
  for (let turn = winners.length - 1; turn >= 0; turn--) {
    end[turn] = turn + 1 < winners.length && winners[turn + 1] === winners[turn] ? end[turn + 1]! : turn;
  }
  return { start, end };
}

function buildSummaryEvents(compaction: Compaction, runStart: number, ts: string): TurnEvent[] {
  const prefix = `${compaction.id}:summary:${runStart}`;
  const turnStart: TurnStart = { type: "turn_start", id: `${prefix}:turn_start`, ts };
  const request: ChatRequest = {
    type: "chat_request",
    id: `${prefix}:request`,
    ts,
    content: SUMMARY_REQUEST_TEXT,
  };
  const response = {
    type: "chat_response",
    id: `${prefix}:response`,
    ts,
    message: compaction.summary?.summary ?? "",
  } as ChatResponse;
  return [turnStart, request, response];
}

/** Applies the winning mechanical policies to one event; undefined means the event is dropped. */
function applyMechanicalPolicies(
  event: TurnEvent,
  reasoningWinner: Compaction | undefined,
  toolWinner: Compaction | undefined,
  toolNames: ReadonlyMap<string, string>,
): TurnEvent | undefined {
  if (event.type === "chat_response" && event.reasoning !== undefined && reasoningWinner !== undefined) {
    return undefined;
  }
  const policy = toolWinner?.tool_calls;
  if (policy === undefined) return event;
  if (event.type === "tool_call_request") {
    if (policy.policy === "omit") return undefined;
    return policy.request ? { ...event, arguments: {} } : event;
  }
  if (event.type === "tool_call_response") {
    if (policy.policy === "omit") return undefined;
    if (!policy.response) return event;
    const name = toolNames.get(event.call_id) ?? "unknown";
    return { ...event, content: `[compacted] ${name}: ${event.is_error ? "error" : "success"}` };
  }
  return event;
}

function projectWithoutOverlays(events: readonly ConversationEvent[]): ProjectedView {
  const kept = events.filter((event) => event.type !== "compaction" && event.type !== "compaction_reset");
  const turns = groupTurns(kept).map((turn) => ({
    origin: { kind: "kept", turn: turn.index } as TurnOrigin,
    events: turn.events,
  }));
  return { events: kept, turns };
}

/** The turn count (`countTurns`) from already assigned indices: the last turn event's index + 1. */
function countTurnsFromIndices(events: readonly ConversationEvent[], indices: readonly number[]): number {
  for (let position = events.length - 1; position >= 0; position--) {
    if (isTurnEvent(events[position]!)) return indices[position]! + 1;
  }
  return 0;
}

/** Projects the conversation: applies every compaction in force (see the module comment). */
export function projectConversation(events: readonly ConversationEvent[]): ProjectedView {
  const indices = assignTurnIndices(events);
  const turnCount = countTurnsFromIndices(events, indices);
  const compactions = activeCompactions(events)
    .map((entry) => entry.compaction)
    .filter((compaction) => isCompactionInEffect(compaction, turnCount));
  if (compactions.length === 0 || turnCount === 0) return projectWithoutOverlays(events);

  const summaryWinners = resolveWinners(
    compactions,
    turnCount,
    (compaction) => compaction.summary !== undefined,
  );
  const reasoningWinners = resolveWinners(
    compactions,
    turnCount,
    (compaction) => compaction.reasoning !== undefined,
  );
  const toolWinners = resolveWinners(
    compactions,
    turnCount,
    (compaction) => compaction.tool_calls !== undefined,
  );
  const runs = summaryRuns(summaryWinners);
  const toolNames = new Map<string, string>();
  for (const event of events)
    if (event.type === "tool_call_request") toolNames.set(event.call_id, event.name);

  const output: ConversationEvent[] = [];
  const turns: { origin: TurnOrigin; events: TurnEvent[] }[] = [];
  let currentKeptTurn = -1;
  let lastInjectedRun = -1;
  for (let position = 0; position < events.length; position++) {
    const event = events[position]!;
    if (!isTurnEvent(event)) {
      if (event.type !== "compaction" && event.type !== "compaction_reset") output.push(event);
      continue;
    }
    const turn = indices[position]!;
    const summary = summaryWinners[turn];
    if (summary !== undefined) {
      const runStart = runs.start[turn]!;
      if (runStart !== lastInjectedRun) {
        // Turn indices never decrease along the stream, so the first event seen of a run opens it.
        lastInjectedRun = runStart;
        currentKeptTurn = -1;
        const injected = buildSummaryEvents(summary, runStart, event.ts);
        output.push(...injected);
        const origin: TurnOrigin = {
          kind: "summary",
          from: runStart,
          to: runs.end[turn]!,
          compactionId: summary.id,
        };
        turns.push({ origin, events: injected });
      }
      continue;
    }
    const projected = applyMechanicalPolicies(event, reasoningWinners[turn], toolWinners[turn], toolNames);
    if (projected === undefined) continue;
    output.push(projected);
    if (currentKeptTurn !== turn) {
      currentKeptTurn = turn;
      lastInjectedRun = -1;
      turns.push({ origin: { kind: "kept", turn }, events: [] });
    }
    turns[turns.length - 1]!.events.push(projected);
  }
  return { events: output, turns };
}
