/**
 * Projection: applies the compaction overlays to a conversation and returns what the model sees
 * (docs/compaction-model.md, "Projection"; extended below the turn by
 * docs/decisions/006-tool-cycle-bounds.md). Pure; it never changes its input.
 *
 * Winners are resolved per slot: the head of a turn, or one of its cycles (see cycles.ts). A
 * whole-turn compaction covers every slot of its turns, a cycle-precise one the slots between its
 * positions. For every slot and each content type (summary, reasoning, tool calls) separately, the
 * winner is the in-force compaction covering the slot with that type set and the latest timestamp;
 * on equal timestamps the later one in the stream wins. A summary beats the mechanical policies in
 * its slots. A summary is injected once per contiguous run of slots won by the same compaction: as
 * its own turn (`turn_start`, the request `[Summary of previous conversation]`, the summary text)
 * when the run starts at a turn's head, and as one user-side request
 * (`[Summary of earlier steps in this turn]` and the text) where the cycles were when it starts at
 * a cycle, so the turn's user message and the cycles after it stay in place. Without any
 * cycle-precise compaction every turn is one slot, which is jp's per-turn projection exactly.
 *
 * A summary's message is its text, then the facts block cxc stored with it (`summary.facts`), then
 * the pinned messages of its run, verbatim and in order, under `[Pinned messages, kept verbatim]`
 * (pins.ts). Mechanical policies leave pinned messages as they are; under `omit` a call and its
 * result stay together when either is pinned. A provider's own summary marks its summary turn for
 * a native replay (provider-keys.ts); one made inside the turn after its range (Codex's mid-turn
 * compaction, `inside_turn`) also marks that turn's events it stands for: the prompt its items
 * already hold and the steps before it (`turn_events`).
 *
 * Overlays in force are the active ones (see compactions.ts) whose `deferred_until_turn`, if any,
 * has been reached. Overlays (compactions, pins and their resets) are consumed; config deltas and
 * unknown entries pass through in place.
 *
 * Winners are found by visiting compactions from highest to lowest priority and painting only
 * slots not yet painted, skipping painted stretches with a "next unpainted slot" forest, so the
 * cost is about O(slots + compactions log compactions) rather than O(slots × compactions).
 */
import { activeCompactions, isCompactionInEffect } from "./compactions.js";
import {
  type CyclePosition,
  compactionPolicies,
  compactionSpan,
  HEAD,
  isCyclePrecise,
  layoutCycles,
} from "./cycles.js";
import {
  type ChatRequest,
  type ChatResponse,
  type Compaction,
  type ConversationEvent,
  compareTimestamps,
  type NativeSummary,
  isOverlay,
  isTurnEvent,
  type ToolCallRequest,
  type TurnEvent,
  type TurnStart,
} from "./events.js";
import { type PinnedMessages, pinnedMessages } from "./pins.js";
import {
  NATIVE_SUMMARY_ADDITION_KEY,
  NATIVE_SUMMARY_HELD_KEY,
  NATIVE_SUMMARY_KEY,
  NATIVE_SUMMARY_OPENER_KEY,
} from "../provider-keys.js";
import { composeSummaryMessage, type PinnedMessage } from "./summary-message.js";
import { assignTurnIndices, groupTurns } from "./turns.js";

/** The request text of an injected summary turn (jp's exact text). */
export const SUMMARY_REQUEST_TEXT = "[Summary of previous conversation]";

/** The first line of a summary that stands inside a turn, where the cycles it replaces were. */
export const IN_TURN_SUMMARY_HEADING = "[Summary of earlier steps in this turn]";

/** The content of the request that carries a summary inside a turn. */
export function inTurnSummaryContent(text: string): string {
  return `${IN_TURN_SUMMARY_HEADING}\n\n${text}`;
}

/** Where a projected turn came from: a raw turn carried through, or a summary of a run of raw turns. */
export type TurnOrigin =
  | { kind: "kept"; turn: number }
  | { kind: "summary"; from: number; to: number; compactionId: string };

/** One turn of the projected view. */
export interface ProjectedTurn {
  origin: TurnOrigin;
  events: readonly TurnEvent[];
  /** Summaries standing inside this turn: the raw cycles each replaced (0-based, inclusive). */
  cycleSummaries?: readonly CycleSummaryOrigin[];
  /** How many tool results of this turn were replaced by a placeholder. Absent when none. */
  strippedResults?: number;
  /** A summary turn: the pinned raw messages shown after its summary, in order. Absent when none. */
  pinnedEvents?: readonly PinnedMessage[];
}

/** The raw positions a summary standing inside a turn replaced (cycle `HEAD` is a turn's head). */
export interface CycleSummaryOrigin {
  from: CyclePosition;
  to: CyclePosition;
  compactionId: string;
  /** The id of the injected request that carries the summary in the projected turn. */
  eventId: string;
  /** The pinned raw messages shown after the summary, in order. Absent when none. */
  pinnedEvents?: readonly PinnedMessage[];
}

/** The result of projection. */
export interface ProjectedView {
  /** turn events after projection plus config deltas and unknown entries, in order; overlays consumed */
  events: readonly ConversationEvent[];
  turns: readonly ProjectedTurn[];
  /** The ids of the pinned raw messages (kept verbatim in place, or shown after a summary). */
  pinned: ReadonlySet<string>;
}

/** True when the origin covers any raw turn of `from..to` (0-based, inclusive). */
export function originOverlaps(origin: TurnOrigin, from: number, to: number): boolean {
  const start = origin.kind === "kept" ? origin.turn : origin.from;
  const end = origin.kind === "kept" ? origin.turn : origin.to;
  return start <= to && end >= from;
}

/**
 * The slots of a stream. Without cycle-precise compactions a turn is one slot; otherwise a turn's
 * head and each of its cycles are slots, numbered in stream order.
 */
interface Slots {
  readonly count: number;
  /** The slot of the turn event at each stream position. */
  readonly of: ArrayLike<number>;
  /** The first and last slot a compaction covers (empty when first > last). */
  spanOf(compaction: Compaction): { first: number; last: number };
  /** True when the slot is a turn's head (the start of a whole turn). */
  isHead(slot: number): boolean;
  turnOf(slot: number): number;
  /** The cycle of a slot that is not a head. */
  cycleOf(slot: number): number;
}

function turnSlots(indices: readonly number[], turnCount: number): Slots {
  return {
    count: turnCount,
    of: indices,
    spanOf: (compaction) => ({
      first: compaction.from_turn,
      last: Math.min(compaction.to_turn, turnCount - 1),
    }),
    isHead: () => true,
    turnOf: (slot) => slot,
    cycleOf: () => HEAD,
  };
}

function cycleSlots(
  events: readonly ConversationEvent[],
  indices: readonly number[],
  turnCount: number,
): Slots {
  const layout = layoutCycles(events, indices);
  const counts = layout.cycleCounts;
  // base[t]: the slot of turn t's head; base[turnCount] is one past the last slot.
  const base = new Int32Array(turnCount + 1);
  for (let turn = 0; turn < turnCount; turn++) base[turn + 1] = base[turn]! + 1 + (counts[turn] ?? 0);
  const count = base[turnCount]!;
  const turnOfSlot = new Int32Array(count);
  for (let turn = 0; turn < turnCount; turn++) turnOfSlot.fill(turn, base[turn]!, base[turn + 1]!);
  const of = new Int32Array(events.length);
  for (let position = 0; position < events.length; position++) {
    of[position] = base[indices[position]!]! + 1 + layout.cycles[position]!;
  }
  const lastOfTurn = (turn: number) => base[turn + 1]! - 1;
  return {
    count,
    of,
    spanOf: (compaction) => {
      const span = compactionSpan(compaction);
      if (span.from.turn >= turnCount) return { first: 1, last: 0 };
      const fromCount = counts[span.from.turn] ?? 0;
      const first =
        span.from.cycle === HEAD
          ? base[span.from.turn]!
          : span.from.cycle < fromCount
            ? base[span.from.turn]! + 1 + span.from.cycle
            : base[span.from.turn + 1]!;
      if (span.to.turn >= turnCount) return { first, last: lastOfTurn(turnCount - 1) };
      const last = Math.min(base[span.to.turn]! + 1 + span.to.cycle, lastOfTurn(span.to.turn));
      return { first, last };
    },
    isHead: (slot) => slot === base[turnOfSlot[slot]!],
    turnOf: (slot) => turnOfSlot[slot]!,
    cycleOf: (slot) => slot - base[turnOfSlot[slot]!]! - 1,
  };
}

/** Per slot, the compaction that wins among those with `hasPolicy`, or undefined. */
function resolveWinners(
  compactions: readonly Compaction[],
  slots: Slots,
  hasPolicy: (compaction: Compaction) => boolean,
): (Compaction | undefined)[] {
  const slotCount = slots.count;
  const winners: (Compaction | undefined)[] = new Array(slotCount).fill(undefined);
  const candidates = compactions
    .map((compaction, order) => ({ compaction, order }))
    .filter((candidate) => hasPolicy(candidate.compaction));
  if (candidates.length === 0) return winners;
  candidates.sort(
    (left, right) => compareTimestamps(right.compaction.ts, left.compaction.ts) || right.order - left.order,
  );
  // nextUnpainted[s] points at a slot >= s that may be unpainted; slotCount is a sentinel.
  const nextUnpainted = new Int32Array(slotCount + 1);
  for (let slot = 0; slot <= slotCount; slot++) nextUnpainted[slot] = slot;
  const findUnpainted = (slot: number): number => {
    let root = slot;
    while (nextUnpainted[root] !== root) root = nextUnpainted[root]!;
    let cursor = slot;
    while (nextUnpainted[cursor] !== root) {
      const following = nextUnpainted[cursor]!;
      nextUnpainted[cursor] = root;
      cursor = following;
    }
    return root;
  };
  for (const { compaction } of candidates) {
    const { first, last } = slots.spanOf(compaction);
    if (first >= slotCount) continue;
    for (let slot = findUnpainted(first); slot <= last; slot = findUnpainted(slot + 1)) {
      winners[slot] = compaction;
      nextUnpainted[slot] = slot + 1;
    }
  }
  return winners;
}

/** The first and last slot of the run of equal summary winners around each summarized slot. */
function summaryRuns(winners: readonly (Compaction | undefined)[]): { start: number[]; end: number[] } {
  const start: number[] = new Array(winners.length);
  const end: number[] = new Array(winners.length);
  for (let slot = 0; slot < winners.length; slot++) {
    start[slot] = slot > 0 && winners[slot - 1] === winners[slot] ? start[slot - 1]! : slot;
  }
  for (let slot = winners.length - 1; slot >= 0; slot--) {
    end[slot] = slot + 1 < winners.length && winners[slot + 1] === winners[slot] ? end[slot + 1]! : slot;
  }
  return { start, end };
}

/** The message a summary stands as: its text, its facts block, the pinned messages of its run. */
function summaryText(
  compaction: Compaction,
  pinned: readonly PinnedMessage[],
  requests: ToolRequests,
): string {
  const policy = compactionPolicies(compaction).summary;
  return composeSummaryMessage(policy?.summary ?? "", {
    ...(policy?.facts === undefined ? {} : { facts: policy.facts }),
    pinned,
    requests,
  });
}

/** The tool requests of the stream by call id (the latest with each id), for pinned results. */
type ToolRequests = ReadonlyMap<string, ToolCallRequest>;

/** The events of a summary turn; `runStart` is the raw turn the run starts at. */
function buildSummaryEvents(compaction: Compaction, runStart: number, ts: string, text: string): TurnEvent[] {
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
    message: text,
  } as ChatResponse;
  return [turnStart, request, response];
}

/**
 * Marks a summary turn as a provider's own summary (provider-keys.ts): the response carries the
 * native summary and what cxc adds after it when it is replayed natively (`addition`); the request
 * is the opener an adapter replaying it natively leaves out.
 */
function markNative(injected: TurnEvent[], native: NativeSummary, addition: string): void {
  const [, request, response] = injected as [TurnStart, ChatRequest, ChatResponse];
  request.metadata = { [NATIVE_SUMMARY_OPENER_KEY]: true };
  response.metadata = { [NATIVE_SUMMARY_KEY]: native, [NATIVE_SUMMARY_ADDITION_KEY]: addition };
}

/** An event a native summary's items stand for, marked for a native replay to leave out. */
function markHeld(event: TurnEvent): TurnEvent {
  return { ...event, metadata: { ...event.metadata, [NATIVE_SUMMARY_HELD_KEY]: true } } as TurnEvent;
}

/** The events of a kept turn a native summary made inside it stands for (see `injectSummaryTurn`). */
interface HeldEvents {
  readonly turn: number;
  /** How many of the turn's events (not its `turn_start`) are still to come. */
  remaining: number;
}

/** The request of a summary standing inside a turn, at raw turn `turn`, cycle `cycle`. */
function buildInTurnSummary(
  compaction: Compaction,
  turn: number,
  cycle: number,
  ts: string,
  text: string,
): ChatRequest {
  return {
    type: "chat_request",
    id: `${compaction.id}:summary:${turn}.${cycle}`,
    ts,
    content: inTurnSummaryContent(text),
  };
}

/** Longest string argument value kept in a placeholder, and the longest argument text. */
const PLACEHOLDER_VALUE_LENGTH = 40;
const PLACEHOLDER_ARGUMENTS_LENGTH = 120;

/** `text` cut to at most `length` UTF-16 units (never inside a surrogate pair) plus `…`. */
function cutText(text: string, length: number): string {
  if (text.length <= length) return text;
  let end = length - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** The length of the shortest placeholder (`[compacted] : error, 0 chars dropped`). */
const PLACEHOLDER_FRAME_LENGTH = "[compacted] : error, 0 chars dropped".length;

/** A call's arguments in short, on one line: JSON with long strings cut; empty for `{}`. */
export function shortArguments(args: Readonly<Record<string, unknown>>): string {
  if (Object.keys(args).length === 0) return "";
  const text = JSON.stringify(args, (_key, value: unknown) =>
    typeof value === "string" ? cutText(value, PLACEHOLDER_VALUE_LENGTH) : value,
  );
  return cutText(text, PLACEHOLDER_ARGUMENTS_LENGTH);
}

/**
 * The placeholder of a tool result stripped by a cycle-precise compaction: the tool, its
 * arguments in short, the outcome and the size dropped, e.g.
 * `[compacted] read_file {"path":"a.ts"}: success, 9812 chars dropped`.
 */
export function strippedResultPlaceholder(
  request: Pick<ToolCallRequest, "name" | "arguments"> | undefined,
  isError: boolean,
  droppedChars: number,
): string {
  const name = request?.name ?? "unknown";
  const args = request === undefined ? "" : shortArguments(request.arguments);
  const outcome = isError ? "error" : "success";
  return `[compacted] ${name}${args === "" ? "" : ` ${args}`}: ${outcome}, ${droppedChars} chars dropped`;
}

/** Applies the winning mechanical policies to one event; undefined means the event is dropped. */
function applyMechanicalPolicies(
  event: TurnEvent,
  reasoningWinner: Compaction | undefined,
  toolWinner: Compaction | undefined,
  toolNames: ReadonlyMap<string, string>,
  requests: ReadonlyMap<string, ToolCallRequest> | undefined,
  pinned: PinnedMessages,
): TurnEvent | undefined {
  if (event.type === "chat_response" && event.reasoning !== undefined && reasoningWinner !== undefined) {
    return undefined;
  }
  const policy = toolWinner === undefined ? undefined : compactionPolicies(toolWinner).tool_calls;
  if (policy === undefined || pinned.ids.has(event.id)) return event;
  const isCall = event.type === "tool_call_request" || event.type === "tool_call_response";
  if (policy.policy === "omit" && isCall && pinned.calls.has(event.call_id)) return event;
  if (event.type === "tool_call_request") {
    if (policy.policy === "omit") return undefined;
    return policy.request ? { ...event, arguments: {} } : event;
  }
  if (event.type === "tool_call_response") {
    if (policy.policy === "omit") return undefined;
    if (!policy.response) return event;
    if (isCyclePrecise(toolWinner!)) {
      // A result no longer than its placeholder loses nothing by staying; most short results are
      // told by the placeholder's shortest form, before its arguments are rendered.
      if (event.content.length <= PLACEHOLDER_FRAME_LENGTH) return event;
      const request = requests?.get(event.call_id);
      const placeholder = strippedResultPlaceholder(request, event.is_error, event.content.length);
      return placeholder.length < event.content.length ? { ...event, content: placeholder } : event;
    }
    const name = toolNames.get(event.call_id) ?? "unknown";
    return { ...event, content: `[compacted] ${name}: ${event.is_error ? "error" : "success"}` };
  }
  return event;
}

function projectWithoutOverlays(
  events: readonly ConversationEvent[],
  pinned: ReadonlySet<string>,
): ProjectedView {
  const kept = events.filter((event) => !isOverlay(event));
  const turns = groupTurns(kept).map((turn) => ({
    origin: { kind: "kept", turn: turn.index } as TurnOrigin,
    events: turn.events,
  }));
  return { events: kept, turns, pinned };
}

/** The turn count (`countTurns`) from already assigned indices: the last turn event's index + 1. */
function countTurnsFromIndices(events: readonly ConversationEvent[], indices: readonly number[]): number {
  for (let position = events.length - 1; position >= 0; position--) {
    if (isTurnEvent(events[position]!)) return indices[position]! + 1;
  }
  return 0;
}

function openKeptTurn(turn: number, turns: ProjectedTurn[], stripped: number[]): void {
  turns.push({ origin: { kind: "kept", turn }, events: [] });
  stripped.push(0);
}

/**
 * A run of slots one summary stands for, to inject where it starts: its first and last slot, the
 * pinned messages it hides, the time of the event it replaces, and the tool requests by call id.
 */
interface SummaryRun {
  readonly summary: Compaction;
  readonly start: number;
  readonly end: number;
  readonly pinned: readonly PinnedMessage[];
  readonly slots: Slots;
  readonly ts: string;
  readonly requests: ToolRequests;
}

/**
 * Injects the summary turn of a run that starts at a turn's head. Returns, when it is a native
 * summary made inside the turn after its range (`inside_turn`), that turn and how many of its
 * events the summary stands for (its prompt and the steps before it: `turn_events`, else 1).
 */
function injectSummaryTurn(
  run: SummaryRun,
  output: ConversationEvent[],
  turns: ProjectedTurn[],
  stripped: number[],
): HeldEvents | undefined {
  const { summary, slots, ts, requests } = run;
  const text = summaryText(summary, run.pinned, requests);
  const injected = buildSummaryEvents(summary, slots.turnOf(run.start), ts, text);
  const native = compactionPolicies(summary).summary?.native;
  let holds: HeldEvents | undefined;
  // A provider's summary goes back natively only while it stands for its whole range.
  if (
    native !== undefined &&
    slots.turnOf(run.start) === summary.from_turn &&
    slots.turnOf(run.end) === summary.to_turn
  ) {
    const facts = compactionPolicies(summary).summary?.facts;
    // The facts of an encrypted compaction stand in for what no other model can read; replayed
    // natively, it goes as its provider wrote it. A readable native summary keeps them after it.
    const withFacts = native.format === "anthropic-compaction" && facts !== undefined;
    const addition = composeSummaryMessage("", {
      ...(withFacts ? { facts } : {}),
      pinned: run.pinned,
      requests,
    });
    markNative(injected, native, addition.replace(/^\s+/, ""));
    if (native.inside_turn === true) {
      holds = { turn: summary.to_turn + 1, remaining: Math.max(1, native.turn_events ?? 1) };
    }
  }
  output.push(...injected);
  const origin: TurnOrigin = {
    kind: "summary",
    from: slots.turnOf(run.start),
    to: slots.turnOf(run.end),
    compactionId: summary.id,
  };
  turns.push({ origin, events: injected, ...(run.pinned.length === 0 ? {} : { pinnedEvents: run.pinned }) });
  stripped.push(0);
  return holds;
}

/** Injects the request of a run that starts at a cycle into the projected turn `host`. */
function injectInTurnSummary(run: SummaryRun, output: ConversationEvent[], host: ProjectedTurn): void {
  const { summary, slots, ts, requests } = run;
  const text = summaryText(summary, run.pinned, requests);
  const injected = buildInTurnSummary(summary, slots.turnOf(run.start), slots.cycleOf(run.start), ts, text);
  output.push(injected);
  (host.events as TurnEvent[]).push(injected);
  const positionOf = (slot: number): CyclePosition => ({
    turn: slots.turnOf(slot),
    cycle: slots.cycleOf(slot),
  });
  const origin: CycleSummaryOrigin = {
    from: positionOf(run.start),
    to: positionOf(run.end),
    compactionId: summary.id,
    eventId: injected.id,
    ...(run.pinned.length === 0 ? {} : { pinnedEvents: run.pinned }),
  };
  host.cycleSummaries = [...(host.cycleSummaries ?? []), origin];
}

/** Projects the conversation: applies every compaction in force (see the module comment). */
export function projectConversation(events: readonly ConversationEvent[]): ProjectedView {
  const indices = assignTurnIndices(events);
  const turnCount = countTurnsFromIndices(events, indices);
  const compactions = activeCompactions(events)
    .map((entry) => entry.compaction)
    .filter((compaction) => isCompactionInEffect(compaction, turnCount));
  const pinned = pinnedMessages(events, turnCount);
  if (compactions.length === 0 || turnCount === 0) return projectWithoutOverlays(events, pinned.ids);

  const precise = compactions.some(isCyclePrecise);
  const slots = precise ? cycleSlots(events, indices, turnCount) : turnSlots(indices, turnCount);
  const summaryWinners = resolveWinners(
    compactions,
    slots,
    (compaction) => compactionPolicies(compaction).summary !== undefined,
  );
  const reasoningWinners = resolveWinners(
    compactions,
    slots,
    (compaction) => compactionPolicies(compaction).reasoning !== undefined,
  );
  const toolWinners = resolveWinners(
    compactions,
    slots,
    (compaction) => compactionPolicies(compaction).tool_calls !== undefined,
  );
  const runs = summaryRuns(summaryWinners);
  // jp names a stripped result after the last request with its id in the whole stream.
  const toolNames = new Map<string, string>();
  for (const event of events)
    if (event.type === "tool_call_request") toolNames.set(event.call_id, event.name);
  // A placeholder describes the call the result answers: the latest request with its id so far.
  const requests = precise ? new Map<string, ToolCallRequest>() : undefined;
  const { pinnedOfRun, allRequests } = pinnedInSummaries(
    events,
    slots,
    summaryWinners,
    runs,
    indices,
    pinned,
  );

  const output: ConversationEvent[] = [];
  const turns: ProjectedTurn[] = [];
  const stripped: number[] = [];
  const injectedRuns = new Set<number>();
  // The raw turn whose kept events the last projected turn holds; -1 after a summary turn.
  let currentKeptTurn = -1;
  // The events of the next kept turn that a native summary just injected stands for (inside_turn).
  let held: HeldEvents | undefined;
  for (let position = 0; position < events.length; position++) {
    const event = events[position]!;
    if (!isTurnEvent(event)) {
      if (!isOverlay(event)) output.push(event);
      continue;
    }
    if (requests !== undefined && event.type === "tool_call_request") requests.set(event.call_id, event);
    const turn = indices[position]!;
    const slot = slots.of[position]!;
    const summary = summaryWinners[slot];
    if (summary !== undefined) {
      const runStart = runs.start[slot]!;
      // The first event seen of a run opens it. (Slots grow along the stream, except for a tool
      // result standing after later cycles, which belongs to its call's cycle.)
      if (injectedRuns.has(runStart)) continue;
      injectedRuns.add(runStart);
      const run: SummaryRun = {
        summary,
        start: runStart,
        end: runs.end[slot]!,
        pinned: pinnedOfRun.get(runStart) ?? [],
        slots,
        ts: event.ts,
        requests: allRequests,
      };
      if (slots.isHead(runStart)) {
        currentKeptTurn = -1;
        held = injectSummaryTurn(run, output, turns, stripped);
      } else {
        // A run that starts at a cycle stands in the projected turn it interrupts.
        if (turns.length === 0 || (currentKeptTurn !== -1 && currentKeptTurn !== turn)) {
          currentKeptTurn = turn;
          openKeptTurn(turn, turns, stripped);
        }
        injectInTurnSummary(run, output, turns[turns.length - 1]!);
      }
      continue;
    }
    let projected: TurnEvent | undefined = applyMechanicalPolicies(
      event,
      reasoningWinners[slot],
      toolWinners[slot],
      toolNames,
      requests,
      pinned,
    );
    // Counted in raw events (one a policy omits counts too), as the summary's writer counted them.
    let isHeld = false;
    if (held !== undefined && event.type !== "turn_start") {
      isHeld = turn === held.turn;
      held.remaining -= 1;
      if (!isHeld || held.remaining === 0) held = undefined;
    }
    if (projected === undefined) continue;
    if (isHeld) projected = markHeld(projected);
    output.push(projected);
    if (currentKeptTurn !== turn || turns.length === 0) {
      currentKeptTurn = turn;
      openKeptTurn(turn, turns, stripped);
    }
    (turns[turns.length - 1]!.events as TurnEvent[]).push(projected);
    if (projected !== event && projected.type === "tool_call_response") stripped[turns.length - 1]! += 1;
  }
  stripped.forEach((count, index) => {
    if (count > 0) turns[index]!.strippedResults = count;
  });
  return { events: output, turns, pinned: pinned.ids };
}

/**
 * The pinned messages each summary run hides, by the run's first slot, in stream order, and the
 * tool requests by call id (to name the call a pinned result answers). Empty when nothing is pinned.
 */
function pinnedInSummaries(
  events: readonly ConversationEvent[],
  slots: Slots,
  summaryWinners: readonly (Compaction | undefined)[],
  runs: { start: readonly number[] },
  indices: readonly number[],
  pinned: PinnedMessages,
): { pinnedOfRun: Map<number, PinnedMessage[]>; allRequests: ToolRequests } {
  const pinnedOfRun = new Map<number, PinnedMessage[]>();
  const allRequests = new Map<string, ToolCallRequest>();
  if (pinned.ids.size === 0) return { pinnedOfRun, allRequests };
  for (let position = 0; position < events.length; position++) {
    const event = events[position]!;
    if (!isTurnEvent(event)) continue;
    if (event.type === "tool_call_request") allRequests.set(event.call_id, event);
    if (!pinned.ids.has(event.id)) continue;
    const slot = slots.of[position]!;
    if (summaryWinners[slot] === undefined) continue;
    const start = runs.start[slot]!;
    const message = { turn: indices[position]!, event };
    const list = pinnedOfRun.get(start);
    if (list === undefined) pinnedOfRun.set(start, [message]);
    else list.push(message);
  }
  return { pinnedOfRun, allRequests };
}
