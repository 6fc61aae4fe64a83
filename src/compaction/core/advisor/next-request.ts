/**
 * The context of the next request: the one number the gauge, `stats`, the dry run, the review's
 * confirmation, the `compact` tool's approval, the advisor, automatic compaction, the agents'
 * hooks and the pi extension show and act on (docs/context.md). Pure.
 *
 * It is what the one who sends the next request will be charged for as its context, in the
 * provider's tokens, system prompt and tool definitions included:
 *
 * - `reported`: the last request's reported usage (input, cache reads and writes, output) less
 *   the reasoning the provider will not send again (earlier turns' reasoning, when the next
 *   request starts a turn and the provider drops it), when nothing else the model sees changed;
 * - `reported-adjusted`: that figure less the net saving of what changed since (a compaction, a
 *   pin, a reset, messages added): what the view lost less what it gained, counted by cxc and put
 *   on the provider's scale (`factor`, the provider's tokens per token cxc counts);
 * - `estimated`: without usage, cxc's own count: the system prompt and tool definitions (when
 *   known), the view the next request sends, and an answer being written.
 *
 * A deferred compaction's saving counts from the first request of the next turn: for a request
 * that continues the turn in progress (`next: "same-turn"`), it does not.
 *
 * The scale: with the overhead (system prompt and tools) known, the reported figure divided by
 * cxc's count of what that request held (its overhead, its view and its answer). Usage an agent
 * recorded was sent with the agent's own system prompt and tools, which cxc does not know: then
 * the scale is the growth of two reported figures over the growth of cxc's counts between them
 * (requests with no compaction between), else 1. A scale no tokenizer difference explains (usage
 * a fork kept from its original, which sent another context) means the usage describes another
 * context: the figure is then an estimate.
 */
import { activeCompactions } from "../../../core/conversation/compactions.js";
import {
  type ConversationEvent,
  isOverlay,
  isTurnEvent,
  type TurnEvent,
} from "../../../core/conversation/events.js";
import { withoutDeferral } from "../event.js";
import { type ProjectedTurn, projectConversation } from "../../../core/conversation/projection.js";
import {
  countedText,
  countEventTokens,
  MAX_PLAUSIBLE_FACTOR,
  plausibleScale,
  type ProviderUsage,
  reportedContextTokens,
  type TokenCounter,
  usageReader,
} from "../../../core/conversation/tokens.js";
import { countTurns } from "../../../core/conversation/turns.js";
import { isNativeReasoning } from "../../../core/provider-keys.js";

/** Where the figure comes from (see the module comment). */
export type ContextSource = "reported" | "reported-adjusted" | "estimated";

/** Why a figure is an estimate. */
export type EstimateReason =
  /** No request of this conversation reported usage. */
  | "no-usage"
  /** The last usage describes another context (a fork kept its original's). */
  | "other-context";

/** Options of `contextOfNextRequest`. */
export interface NextRequestOptions {
  readonly countTokens: TokenCounter;
  /**
   * cxc's count of the system prompt and tool definitions the next request sends (and cxc's
   * requests sent), asked only when a figure needs it; undefined when unknown. Not used for usage
   * an agent reported (its own are in it).
   */
  readonly overhead?: () => number | undefined;
  /**
   * `next-turn` (default): the next request starts a turn (the user's next message): deferred
   * compactions take effect and the provider drops the reasoning of earlier turns. `same-turn`:
   * it continues the turn in progress (between cycles).
   */
  readonly next?: "next-turn" | "same-turn";
  /** Whether the provider drops earlier turns' reasoning (default true; see `dropsEarlierReasoning` in src/llm). */
  readonly dropsEarlierReasoning?: boolean;
  /** An answer being written (a gauge mid-turn): counted on top. */
  readonly pending?: string;
  /** Also compute cxc's own estimate when the figure is not one (`stats` shows it beside). */
  readonly withEstimate?: boolean;
}

/** The usage a figure starts from. */
export interface ReportedBase {
  /** Input (cache reads and writes included) plus output, as reported. */
  readonly tokens: number;
  /** The event that carries it. */
  readonly position: number;
  readonly usage: ProviderUsage;
}

/** The context of the next request. */
export interface NextRequestContext {
  readonly tokens: number;
  readonly source: ContextSource;
  /** The usage it starts from (`reported`, `reported-adjusted`). */
  readonly base?: ReportedBase;
  /** Provider tokens per token cxc counts, when it was measured or needed. */
  readonly factor?: number;
  /** The reasoning the provider will not send again, in its tokens (`reported`, `reported-adjusted`). */
  readonly reasoningDropped: number;
  /** What changed since the base takes out (negative: adds), in the provider's tokens. */
  readonly netSaving: number;
  /** Why it is an estimate (`estimated`). */
  readonly estimateReason?: EstimateReason;
  /** cxc's own count of the next request: overhead (when known), the view, a pending answer. */
  readonly estimate?: number;
}

/** The turn events of a projected view, by turn. */
interface View {
  readonly turns: readonly ProjectedTurn[];
  readonly events: readonly TurnEvent[];
}

function viewOf(events: readonly ConversationEvent[]): View {
  const turns = projectConversation(events).turns;
  return { turns, events: turns.flatMap((turn) => turn.events) };
}

/**
 * The events of the conversation as the next request sees them: for a request that starts the
 * next turn, deferred compactions that take effect then count as in force.
 */
export function eventsForNextRequest(
  events: readonly ConversationEvent[],
  next: "next-turn" | "same-turn" = "next-turn",
): readonly ConversationEvent[] {
  if (next === "same-turn") return events;
  const nextTurn = countTurns(events);
  let changed = false;
  const activated = events.map((event) => {
    if (event.type !== "compaction" || event.deferred_until_turn === undefined) return event;
    if (event.deferred_until_turn > nextTurn) return event;
    changed = true;
    return withoutDeferral(event);
  });
  return changed ? activated : events;
}

/**
 * The events a request made from `events` sends that count (the view, less the reasoning a
 * provider drops: see `sentEvents`), for a request that starts the next turn.
 */
export function sentForNextTurn(
  events: readonly ConversationEvent[],
  dropsEarlierReasoning = true,
): TurnEvent[] {
  return [...sentEvents(viewOf(events), dropsEarlierReasoning, false)];
}

/** The last event that carries usage (its own, or learnt later: `usageReader`), and its usage. */
export function lastUsage(events: readonly ConversationEvent[]): ReportedBase | undefined {
  const readUsage = usageReader(events);
  for (let position = events.length - 1; position >= 0; position--) {
    const event = events[position]!;
    if (!isTurnEvent(event)) continue;
    const usage = readUsage(event);
    if (usage !== undefined) return { tokens: reportedContextTokens(usage), position, usage };
  }
  return undefined;
}

/**
 * The events a request sends that count: all of them, except, where the provider drops earlier
 * turns' reasoning, the native reasoning (signed or encrypted; unsigned reasoning goes as text) of
 * every turn but the view's last (when `lastTurnReasons`).
 */
function sentEvents(view: View, dropsReasoning: boolean, lastTurnReasons: boolean): Set<TurnEvent> {
  const sent = new Set<TurnEvent>();
  view.turns.forEach((turn, index) => {
    const last = index === view.turns.length - 1;
    for (const event of turn.events) {
      const dropped = dropsReasoning && !(last && lastTurnReasons) && isDroppableReasoning(event);
      if (!dropped) sent.add(event);
    }
  });
  return sent;
}

function isDroppableReasoning(event: TurnEvent): boolean {
  return event.type === "chat_response" && event.reasoning !== undefined && isNativeReasoning(event.metadata);
}

function countEvents(events: Iterable<TurnEvent>, countTokens: TokenCounter): number {
  let total = 0;
  for (const event of events) total += countEventTokens(event, countTokens);
  return total;
}

function isReasoning(event: TurnEvent): boolean {
  return event.type === "chat_response" && event.reasoning !== undefined;
}

/**
 * The reasoning tokens of each reasoning event by the usage of the answer it belongs to: the
 * answer's reported `reasoning_tokens`, shared among its reasoning events by their counts; none
 * where the answer reported none.
 */
function reportedReasoning(
  events: readonly TurnEvent[],
  countTokens: TokenCounter,
  readUsage: (event: TurnEvent) => ProviderUsage | undefined,
): Map<TurnEvent, number> {
  const shares = new Map<TurnEvent, number>();
  let answer: TurnEvent[] = [];
  for (const event of events) {
    if (event.type === "chat_response" || event.type === "tool_call_request") {
      answer.push(event);
      const reported = readUsage(event)?.reasoning_tokens;
      if (reported === undefined) continue;
      const reasons = answer.filter(isReasoning);
      const counts = reasons.map((item) => Math.max(1, countEventTokens(item, countTokens)));
      const total = counts.reduce((sum, value) => sum + value, 0);
      reasons.forEach((item, index) => {
        shares.set(item, (reported * counts[index]!) / total);
      });
      answer = [];
    } else answer = [];
  }
  return shares;
}

/** True when `event` is in `others` unchanged: the same object, or the same id and counted text. */
function sameIn(event: TurnEvent, others: ReadonlyMap<string, TurnEvent>): boolean {
  const other = others.get(event.id);
  return (
    other !== undefined &&
    (other === event || (other.type === event.type && countedText(other) === countedText(event)))
  );
}

/**
 * The provider's scale for usage an agent reported: the growth of the reported figure over the
 * growth of cxc's count between the earliest usage after the last overlay change and `base`.
 */
function agentScale(
  events: readonly ConversationEvent[],
  base: ReportedBase,
  countA: number,
  countTokens: TokenCounter,
  dropsReasoning: boolean,
): number | undefined {
  let earliest: ReportedBase | undefined;
  const readUsage = usageReader(events);
  for (let position = base.position - 1; position >= 0; position--) {
    const event = events[position]!;
    // Any overlay but a usage record changes the view, and with it what the figures measure.
    if (isOverlay(event) && event.type !== "usage") break;
    if (!isTurnEvent(event)) continue;
    const usage = readUsage(event);
    if (usage !== undefined) earliest = { tokens: reportedContextTokens(usage), position, usage };
  }
  if (earliest === undefined) return undefined;
  const before = viewOf(events.slice(0, earliest.position + 1));
  const countBefore = countEvents(sentEvents(before, dropsReasoning, true), countTokens);
  const grown = countA - countBefore;
  // Too little growth to measure a scale by.
  if (grown < Math.max(200, countA * 0.05)) return undefined;
  return plausibleScale(base.tokens - earliest.tokens, grown);
}

/** The provider's scale for the usage `base` (see the module comment). */
function scaleOf(
  events: readonly ConversationEvent[],
  base: ReportedBase,
  options: NextRequestOptions & { readonly countA: number },
): { readonly factor?: number; readonly otherContext: boolean } {
  const { countA, countTokens } = options;
  if (base.usage.reported_by !== undefined) {
    const factor = agentScale(events, base, countA, countTokens, options.dropsEarlierReasoning ?? true);
    return factor === undefined ? { otherContext: false } : { factor, otherContext: false };
  }
  // A request of cxc's: its overhead and its view; without the overhead, the view alone.
  const overhead = options.overhead?.();
  const factor = plausibleScale(base.tokens, (overhead ?? 0) + countA);
  if (factor !== undefined) return { factor, otherContext: false };
  // More than the view by a ratio no tokenizer explains: a system prompt and tools cxc was not told of may.
  const overheadMayExplain = overhead === undefined && base.tokens > countA;
  return { otherContext: !overheadMayExplain };
}

/**
 * The provider's tokens per token cxc counts for the last usage of `events` (see the module
 * comment), or undefined when there is no usage or it describes another context.
 */
export function measureProviderScale(
  events: readonly ConversationEvent[],
  options: Pick<NextRequestOptions, "countTokens" | "overhead" | "dropsEarlierReasoning">,
): number | undefined {
  const base = lastUsage(events);
  if (base === undefined) return undefined;
  const viewA = viewOf(events.slice(0, base.position + 1));
  const countA = countEvents(
    sentEvents(viewA, options.dropsEarlierReasoning ?? true, true),
    options.countTokens,
  );
  return scaleOf(events, base, { ...options, countA }).factor;
}

/** The context of the next request of `events`; see the module comment. */
export function contextOfNextRequest(
  events: readonly ConversationEvent[],
  options: NextRequestOptions,
): NextRequestContext {
  const { countTokens } = options;
  const next = options.next ?? "next-turn";
  const drops = options.dropsEarlierReasoning ?? true;
  const pending = options.pending === undefined ? 0 : countTokens(options.pending);
  const viewB = viewOf(eventsForNextRequest(events, next));
  const sentB = sentEvents(viewB, drops, next === "same-turn");
  const estimateOf = (): number => (options.overhead?.() ?? 0) + countEvents(sentB, countTokens) + pending;
  const estimated = (reason: EstimateReason): NextRequestContext => {
    const estimate = estimateOf();
    return {
      tokens: estimate,
      source: "estimated",
      reasoningDropped: 0,
      netSaving: 0,
      estimateReason: reason,
      estimate,
    };
  };
  const base = lastUsage(events);
  if (base === undefined) return estimated("no-usage");

  const viewA = viewOf(events.slice(0, base.position + 1));
  const sentA = sentEvents(viewA, drops, true);
  const byIdA = new Map(viewA.events.map((event) => [event.id, event]));
  const byIdB = new Map(viewB.events.map((event) => [event.id, event]));
  // What the next request no longer sends, and what it sends that the base request did not.
  const removed: TurnEvent[] = [];
  const dropped: TurnEvent[] = [];
  for (const event of sentA) {
    if (!sameIn(event, byIdB)) removed.push(event);
    else if (!sentB.has(byIdB.get(event.id)!)) dropped.push(event);
  }
  const added: TurnEvent[] = [];
  for (const event of sentB) {
    const before = byIdA.get(event.id);
    if (!sameIn(event, byIdA) || !sentA.has(before!)) added.push(event);
  }
  const changed = removed.length > 0 || added.length > 0 || pending > 0;
  if (!changed && dropped.length === 0) {
    return {
      tokens: base.tokens,
      source: "reported",
      base,
      reasoningDropped: 0,
      netSaving: 0,
      ...(options.withEstimate ? { estimate: estimateOf() } : {}),
    };
  }

  // The scale, measured once something has to be put on it.
  const measured = scaleOf(events, base, { ...options, countA: countEvents(sentA, countTokens) });
  if (measured.otherContext) return estimated("other-context");
  const factor = measured.factor;
  const scale = factor ?? 1;
  const shares = reportedReasoning(viewA.events, countTokens, usageReader(events));
  const cost = (event: TurnEvent): number =>
    shares.get(event) ?? scale * countEventTokens(event, countTokens);
  const reasoningDropped = Math.round(dropped.reduce((sum, event) => sum + cost(event), 0));
  const netSaving = Math.round(
    removed.reduce((sum, event) => sum + cost(event), 0) -
      added.reduce((sum, event) => sum + scale * countEventTokens(event, countTokens), 0) -
      scale * pending,
  );
  // Never below half of cxc's count of what the request holds: usage that disagrees that much
  // with the conversation (a hand-edited session) must not make the context vanish.
  const floor = Math.round(0.5 * (countEvents(sentB, countTokens) + pending));
  const tokens = Math.max(floor, base.tokens - reasoningDropped - netSaving);
  return {
    tokens,
    source: changed ? "reported-adjusted" : "reported",
    base,
    ...(factor === undefined ? {} : { factor }),
    reasoningDropped,
    netSaving,
    ...(options.withEstimate ? { estimate: estimateOf() } : {}),
  };
}

/**
 * An upper bound of `contextOfNextRequest(...).tokens` that costs no tokenizer, from `boundTokens`,
 * a counter that never counts less than the real one (a cached count, else a text's size in UTF-8
 * bytes). Without usage: the bound of the overhead and the view. With usage: the reported figure
 * plus what was added since on the largest scale cxc accepts (what was removed only lowers it).
 */
export function boundContextOfNextRequest(
  events: readonly ConversationEvent[],
  boundTokens: TokenCounter,
  options: Pick<NextRequestOptions, "next" | "dropsEarlierReasoning"> & {
    /** A bound of the overhead's count (`NextRequestOptions.overhead`), when known. */
    readonly overheadTokens?: number;
  } = {},
): number {
  const next = options.next ?? "next-turn";
  const drops = options.dropsEarlierReasoning ?? true;
  const viewB = viewOf(eventsForNextRequest(events, next));
  const sentB = sentEvents(viewB, drops, next === "same-turn");
  const estimate = (options.overheadTokens ?? 0) + countEvents(sentB, boundTokens);
  const base = lastUsage(events);
  if (base === undefined) return estimate;
  const viewA = viewOf(events.slice(0, base.position + 1));
  const byIdA = new Map(viewA.events.map((event) => [event.id, event]));
  let added = 0;
  for (const event of sentB) if (!sameIn(event, byIdA)) added += countEventTokens(event, boundTokens);
  // The estimate bounds the figure when the usage turns out to describe another context.
  return Math.max(estimate, base.tokens + Math.ceil(added * MAX_PLAUSIBLE_FACTOR));
}

/** Compactions in force now and deferred ones, for the gauge's account of them. */
export function compactionCounts(events: readonly ConversationEvent[]): {
  readonly inForce: number;
  readonly deferred: number;
} {
  const turnCount = countTurns(events);
  let inForce = 0;
  let deferred = 0;
  for (const { compaction } of activeCompactions(events)) {
    if (compaction.deferred_until_turn === undefined || turnCount - 1 >= compaction.deferred_until_turn)
      inForce += 1;
    else deferred += 1;
  }
  return { inForce, deferred };
}

/** What of the next request stays as the prompt cache holds it when `events` become `changed`. */
export interface UnchangedPrefix {
  /** Provider tokens of the next request before the first changed message (system prompt and tools included). */
  readonly tokens: number;
  /** The raw turn (0-based) the first changed message stands for; undefined when nothing changed. */
  readonly firstChangedTurn?: number;
}

/**
 * The part of the next request that a change (a compaction, a pin, a reset) leaves as it was: the
 * system prompt, the tools and the messages before the first one that differs, which the prompt
 * cache still holds; from there on the next request writes the cache again. `before` is
 * `contextOfNextRequest(events)`: its scale puts cxc's count of the rest on the provider's.
 */
export function unchangedPrefix(
  events: readonly ConversationEvent[],
  changed: readonly ConversationEvent[],
  before: NextRequestContext,
  options: Pick<NextRequestOptions, "countTokens" | "dropsEarlierReasoning">,
): UnchangedPrefix {
  const drops = options.dropsEarlierReasoning ?? true;
  const ordered = (list: readonly ConversationEvent[]) => {
    const view = viewOf(eventsForNextRequest(list));
    const sent = sentEvents(view, drops, false);
    return view.turns.flatMap((turn) => {
      const raw = turn.origin.kind === "kept" ? turn.origin.turn : turn.origin.from;
      return turn.events.filter((event) => sent.has(event)).map((event) => ({ event, raw }));
    });
  };
  const was = ordered(events);
  const now = ordered(changed);
  let same = 0;
  while (same < was.length && same < now.length && sameEvent(was[same]!.event, now[same]!.event)) same++;
  if (same === was.length && same === now.length) return { tokens: before.tokens };
  const rest = was
    .slice(same)
    .reduce((sum, { event }) => sum + countEventTokens(event, options.countTokens), 0);
  const tokens = Math.max(0, Math.round(before.tokens - (before.factor ?? 1) * rest));
  const first = was[same] ?? now[same];
  return { tokens, ...(first === undefined ? {} : { firstChangedTurn: first.raw }) };
}

function sameEvent(left: TurnEvent, right: TurnEvent): boolean {
  return (
    left === right ||
    (left.id === right.id && left.type === right.type && countedText(left) === countedText(right))
  );
}
