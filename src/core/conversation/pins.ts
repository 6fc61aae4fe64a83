/**
 * Pins: messages every compaction keeps verbatim (docs/compaction.md, "Pins";
 * docs/decisions/010-facts-and-pins.md). Pure.
 *
 * A `pin` event names turn N whole or cycle C of it, optionally narrowed by `only` to the user's
 * messages, the assistant's (its text and tool calls) or the tool results. It is resolved against
 * the events whenever the view is built, so a pin of a turn still in progress covers the messages
 * the turn gets later. Reasoning is never pinned: it is not a message, and stripping it is what
 * `r` is for. A `pin_reset` retires pins; nothing brings a retired pin back (pin it again).
 *
 * Besides pins, a compaction written while keep rules were configured lists the messages of its
 * range they matched (`pinned_events`); while it is in force they are kept like pinned ones.
 *
 * The pinned messages of a stream are the union of both. Under `omit` a call and its result stay
 * together: a pair with either side pinned is kept whole (a result without its call is refused by
 * every provider).
 */
import { activeCompactions, isCompactionInEffect } from "./compactions.js";
import { HEAD, layoutCycles } from "./cycles.js";
import {
  type ConversationEvent,
  isTurnEvent,
  type Pin,
  type PinPart,
  type PinReset,
  type TurnEvent,
} from "./events.js";
import { assignTurnIndices, countTurns } from "./turns.js";
import { describeCycleOutOfRange, describeTurnOutOfRange } from "../position/bound.js";
import { formatCount } from "../present/labels.js";

/** A pin no `pin_reset` has retired. */
export interface ActivePin {
  /** 1-based position among the pins in force, in stream order (as `show` lists them). */
  readonly number: number;
  readonly pin: Pin;
}

/** The pins in force, in stream order, numbered from 1. */
export function activePins(events: readonly ConversationEvent[]): ActivePin[] {
  const retired = new Set<string>();
  for (const event of events) if (event.type === "pin_reset") for (const id of event.retires) retired.add(id);
  const pins: ActivePin[] = [];
  for (const event of events) {
    if (event.type === "pin" && !retired.has(event.id)) pins.push({ number: pins.length + 1, pin: event });
  }
  return pins;
}

/** The part of a turn a message belongs to, or undefined for what is not a message (reasoning). */
export function messagePart(event: TurnEvent): PinPart | undefined {
  switch (event.type) {
    case "chat_request":
      return "user";
    case "chat_response":
      return event.reasoning === undefined ? "assistant" : undefined;
    case "tool_call_request":
      return "assistant";
    case "tool_call_response":
      return "results";
    default:
      return undefined;
  }
}

/** What is pinned in a stream: message ids, and the call ids whose pairs stay whole under `omit`. */
export interface PinnedMessages {
  readonly ids: ReadonlySet<string>;
  readonly calls: ReadonlySet<string>;
}

const NOTHING_PINNED: PinnedMessages = Object.freeze({
  ids: new Set<string>(),
  calls: new Set<string>(),
});

/** True when a pin covers an event at (turn, cycle) of part `part`. */
function covers(pin: Pin, turn: number, cycle: number, part: PinPart): boolean {
  if (pin.turn !== turn) return false;
  if (pin.cycle !== undefined && pin.cycle !== cycle) return false;
  return pin.only === undefined || pin.only === part;
}

/**
 * The pinned messages of `events` (see the module comment). `turnCount` decides which compactions
 * are in force (default: the stream's own).
 */
export function pinnedMessages(events: readonly ConversationEvent[], turnCount?: number): PinnedMessages {
  const pins = activePins(events).map((entry) => entry.pin);
  const ruled = new Set<string>();
  const hasRuled = events.some((event) => event.type === "compaction" && event.pinned_events !== undefined);
  if (hasRuled) {
    const turns = turnCount ?? countTurns(events);
    for (const { compaction } of activeCompactions(events)) {
      if (!isCompactionInEffect(compaction, turns)) continue;
      for (const id of compaction.pinned_events ?? []) ruled.add(id);
    }
  }
  if (pins.length === 0 && ruled.size === 0) return NOTHING_PINNED;
  const byPin = new Set<string>();
  if (pins.length > 0) {
    const cycled = pins.some((pin) => pin.cycle !== undefined);
    const indices = assignTurnIndices(events);
    const cycles = cycled ? layoutCycles(events, indices).cycles : undefined;
    const turnsPinned = new Set(pins.map((pin) => pin.turn));
    events.forEach((event, position) => {
      if (!isTurnEvent(event)) return;
      const turn = indices[position]!;
      if (!turnsPinned.has(turn)) return;
      const part = messagePart(event);
      if (part === undefined) return;
      const cycle = cycles?.[position] ?? HEAD;
      if (pins.some((pin) => covers(pin, turn, cycle, part))) byPin.add(event.id);
    });
  }
  const ids = new Set([...byPin, ...ruled]);
  const calls = new Set<string>();
  for (const event of events) {
    if ((event.type === "tool_call_request" || event.type === "tool_call_response") && ids.has(event.id))
      calls.add(event.call_id);
  }
  return { ids, calls };
}

/** `turn 3`, `turn 3, cycle 2`, with `(user messages)`, `(assistant messages)` or `(tool results)`. */
export function describePin(pin: Pick<Pin, "turn" | "cycle" | "only">): string {
  const place =
    pin.cycle === undefined ? `turn ${pin.turn + 1}` : `turn ${pin.turn + 1}, cycle ${pin.cycle + 1}`;
  return pin.only === undefined ? place : `${place} (${PART_WORDS[pin.only]})`;
}

const PART_WORDS: Readonly<Record<PinPart, string>> = {
  user: "user messages",
  assistant: "assistant messages",
  results: "tool results",
};

/** Where a pin stands and what it keeps: 0-based turn and cycle. */
export interface PinTarget {
  readonly turn: number;
  readonly cycle?: number;
  readonly only?: PinPart;
}

/** What `keep` would do. */
export type PinPlan =
  | { readonly ok: true; readonly kind: "new"; readonly messages: number }
  | { readonly ok: true; readonly kind: "already"; readonly pin: Pin }
  | { readonly ok: false; readonly message: string };

/**
 * Plans a pin: the turn (and cycle) must exist and hold a message of the part asked for; a pin in
 * force with the same target makes it nothing to do.
 */
export function planPin(events: readonly ConversationEvent[], target: PinTarget): PinPlan {
  const turnCount = countTurns(events);
  if (target.turn >= turnCount) return { ok: false, message: describeTurnOutOfRange(target.turn, turnCount) };
  const layout = layoutCycles(events);
  if (target.cycle !== undefined) {
    const count = layout.cycleCounts[target.turn] ?? 0;
    if (target.cycle >= count)
      return { ok: false, message: describeCycleOutOfRange(target.turn, count, target.cycle) };
  }
  const same = activePins(events).find(
    ({ pin }) => pin.turn === target.turn && pin.cycle === target.cycle && pin.only === target.only,
  );
  if (same !== undefined) return { ok: true, kind: "already", pin: same.pin };
  const probe: Pin = { type: "pin", id: "", ts: "", source: "user", ...target };
  let messages = 0;
  events.forEach((event, position) => {
    if (!isTurnEvent(event) || layout.turnIndices[position] !== target.turn) return;
    const part = messagePart(event);
    if (part !== undefined && covers(probe, target.turn, layout.cycles[position]!, part)) messages += 1;
  });
  if (messages === 0) return { ok: false, message: `${describePin(probe)} has no message to keep` };
  return { ok: true, kind: "new", messages };
}

/**
 * What `unkeep` would retire: the pin in force at the position that keeps what `only` names (the
 * whole turn or cycle when `only` is undefined), never another pin beside it; `left` is what stays
 * kept at the position.
 */
export type UnpinPlan =
  | { readonly ok: true; readonly retires: readonly Pin[]; readonly left: readonly Pin[] }
  | { readonly ok: false; readonly message: string };

/**
 * Plans retiring a pin at a position (0-based turn, and cycle when given). Without `only`, the
 * whole pin there, else the one narrowed pin there; several narrowed pins and no whole one is an
 * error asking which (`--only`). A position with no pin lists the pins there are.
 */
export function planUnpin(
  events: readonly ConversationEvent[],
  position: { readonly turn: number; readonly cycle?: number },
  only?: PinPart,
): UnpinPlan {
  const pins = activePins(events).map((entry) => entry.pin);
  const here = pins.filter((pin) => pin.turn === position.turn && pin.cycle === position.cycle);
  const named =
    only !== undefined
      ? here.filter((pin) => pin.only === only)
      : here.some((pin) => pin.only === undefined)
        ? here.filter((pin) => pin.only === undefined)
        : here.length === 1
          ? here
          : [];
  if (named.length > 0) return { ok: true, retires: named, left: here.filter((pin) => !named.includes(pin)) };
  const place = describePin({ ...position, ...(only === undefined ? {} : { only }) });
  if (only === undefined && here.length > 1) {
    const parts = here.map((pin) => pin.only).join("|");
    return {
      ok: false,
      message: `${describePin(position)} is kept by ${formatCount(here.length, "pin")}: ${here.map((pin) => describePin(pin)).join("; ")}; name one with --only ${parts}`,
    };
  }
  if (pins.length === 0) return { ok: false, message: `${place} is not kept: the conversation has no pins` };
  const listed = pins.map((pin) => describePin(pin)).join("; ");
  return { ok: false, message: `${place} is not kept (${formatCount(pins.length, "pin")}: ${listed})` };
}

/** A `pin` event. */
export function buildPinEvent(
  target: PinTarget,
  options: { readonly id: string; readonly ts: string; readonly source?: Pin["source"] },
): Pin {
  return {
    type: "pin",
    id: options.id,
    ts: options.ts,
    turn: target.turn,
    ...(target.cycle === undefined ? {} : { cycle: target.cycle }),
    ...(target.only === undefined ? {} : { only: target.only }),
    source: options.source ?? "user",
  };
}

/** A `pin_reset` event retiring `retires`. */
export function buildPinResetEvent(
  retires: readonly string[],
  options: { readonly id: string; readonly ts: string },
): PinReset {
  return { type: "pin_reset", id: options.id, ts: options.ts, retires: [...retires] };
}
