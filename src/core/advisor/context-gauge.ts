/**
 * The context gauge: how much of the model's context window the conversation fills now, what the
 * compactions in force save, and what the deferred ones will save once they take effect (from
 * the next turn). Pure. `cxc q` prints it as one line after each turn, `cxc conversation stats`
 * shows it, and the advisor reads its count (docs/query.md, "The context gauge").
 *
 * Every number is on the provider's scale when the provider reported usage. The provider counts
 * differently from cxc's o200k tokenizer (and adds the system prompt and the tools), so a count of
 * cxc's is turned into the provider's by the scale: the last reported usage (prompt plus answer)
 * divided by cxc's count of the view that request sent (`measureProviderScale`).
 *
 * The context used is the provider's own count of the last request when nothing the model sees
 * changed since; otherwise (a compaction applied at once, a message sent after it) it is cxc's
 * count of the view now, on the provider's scale. Without usage, or with a scale no tokenizer
 * difference explains (usage inherited from another context: a fork that dropped turns keeps the
 * usage of the original), it is cxc's count alone. The scale is checked whenever the view is
 * counted anyway: always for the advisor (`measureContextTokens`), and for the gauge when
 * compactions exist; after an ordinary turn the gauge takes the provider's count as it is.
 *
 * Savings are differences between views (raw history, the view now, the view with every deferred
 * compaction in force). Most events are the same objects in both views, so only the events a
 * compaction removed, replaced or rewrote are counted: after an ordinary turn with no compaction,
 * nothing is counted at all, and the caller's counter (which may load a tokenizer on its first
 * uncached text) is never called.
 */
import { activeCompactions, isCompactionInEffect } from "../conversation/compactions.js";
import { type ConversationEvent, isTurnEvent, type TurnEvent } from "../conversation/events.js";
import { withoutDeferral } from "../compaction/event.js";
import { projectConversation } from "../conversation/projection.js";
import {
  countedText,
  countEventTokens,
  formatTokenCount,
  MAX_PLAUSIBLE_FACTOR,
  plausibleScale,
  readResponseUsage,
  reportedContextTokens,
  type TokenCounter,
} from "../conversation/tokens.js";
import { countTurns } from "../conversation/turns.js";

/** The window the gauge measures against, and where its size came from. */
export interface ContextWindow {
  readonly tokens: number;
  /**
   * `known`: cxc's model table; `configured`: `providers.<name>.models.<model>.context_window`;
   * `assumed`: neither knows the model, so cxc assumed `ASSUMED_CONTEXT_WINDOW`.
   */
  readonly source: "known" | "configured" | "assumed";
}

/** The window assumed for a model neither the table nor the configuration knows. */
export const ASSUMED_CONTEXT_WINDOW = 128_000;

/** What the gauge shows. */
export interface ContextGauge {
  /** Tokens the model's context holds now. */
  readonly tokens: number;
  /** `reported`: from the provider's usage of the last request; `estimated`: counted locally. */
  readonly tokensSource: "reported" | "estimated";
  readonly window: ContextWindow;
  /** `tokens` as a percentage of the window. */
  readonly percent: number;
  /** Compactions in force now. */
  readonly compactions: number;
  /** Tokens the compactions in force save now (raw history minus the view the model sees). */
  readonly saved: number;
  /** Compactions recorded but deferred: they take effect when the next turn starts. */
  readonly deferredCompactions: number;
  /** Tokens the deferred compactions will save, from the next turn on. */
  readonly deferredSaving: number;
  /**
   * Provider tokens per token cxc counts, when it was needed and is known (see the module
   * comment); undefined when every number is cxc's own count or the provider's unchanged one.
   */
  readonly scale: number | undefined;
}

/** Computes the gauge of `events` against `window`; see the module comment. */
export function computeContextGauge(
  events: readonly ConversationEvent[],
  options: { readonly countTokens: TokenCounter; readonly window: ContextWindow },
): ContextGauge {
  const { countTokens, window } = options;
  const turnCount = countTurns(events);
  const active = activeCompactions(events).map((entry) => entry.compaction);
  const inForce = active.filter((compaction) => isCompactionInEffect(compaction, turnCount));
  const deferred = active.length - inForce.length;
  // Views and the scale are computed only when a number needs them (each costs a pass).
  const view = lazyView(events);
  let scale: number | undefined | null = null;
  const providerScale = (): number | undefined => {
    if (scale === null) scale = measureProviderScale(events, countTokens);
    return scale;
  };
  const scaled = (tokens: number): number => {
    const factor = providerScale();
    return factor === undefined ? tokens : Math.round(tokens * factor);
  };
  const saved =
    inForce.length === 0 ? 0 : scaled(tokenDifference(events.filter(isTurnEvent), view(), countTokens));
  const deferredSaving =
    deferred === 0
      ? 0
      : scaled(
          tokenDifference(
            view(),
            viewEvents(events.map((event) => (event.type === "compaction" ? withoutDeferral(event) : event))),
            countTokens,
          ),
        );
  const used = contextUsed(events, {
    turnCount,
    view,
    countTokens,
    providerScale,
    checkReported: active.length > 0,
  });
  return {
    tokens: used.tokens,
    tokensSource: used.source,
    window,
    percent: window.tokens > 0 ? (used.tokens / window.tokens) * 100 : 0,
    compactions: inForce.length,
    saved,
    deferredCompactions: deferred,
    deferredSaving,
    scale: scale ?? undefined,
  };
}

/**
 * The tokens the model's context holds now, as the gauge counts them (see the module comment): the
 * one count the gauge, `stats` and the advisor show. `view` is the view of `events` when the
 * caller has projected it already.
 */
export function measureContextTokens(
  events: readonly ConversationEvent[],
  countTokens: TokenCounter,
  view?: readonly TurnEvent[],
): { tokens: number; source: "reported" | "estimated" } {
  return contextUsed(events, {
    turnCount: countTurns(events),
    view: view === undefined ? lazyView(events) : () => view,
    countTokens,
    providerScale: () => measureProviderScale(events, countTokens),
    checkReported: true,
  });
}

/**
 * An upper bound of `measureContextTokens` that costs no tokenizer, from `boundTokens`, a counter
 * that never counts less than the real one (a cached count, else a text's size in UTF-8 bytes).
 * With `B` the bound of the view: `B` without usage; the larger of the reported count and `B`
 * when nothing changed since it (the count is one of the two); else `B` on the largest scale
 * `plausibleScale` accepts.
 */
export function boundContextTokens(
  events: readonly ConversationEvent[],
  boundTokens: TokenCounter,
  view: readonly TurnEvent[],
): number {
  const bound = countView(view, boundTokens);
  const last = lastReportedUsage(events);
  if (last === undefined) return bound;
  if (unchangedSince(events, last.position, countTurns(events))) return Math.max(last.tokens, bound);
  return Math.ceil(bound * MAX_PLAUSIBLE_FACTOR);
}

/**
 * Provider tokens per token `countTokens` counts: the context size the last reported usage gives
 * divided by cxc's count of the view that request sent (everything up to and including its
 * answer, with the compactions then in force). Undefined without usage, and when the ratio is one
 * no tokenizer difference explains (`plausibleScale`).
 */
export function measureProviderScale(
  events: readonly ConversationEvent[],
  countTokens: TokenCounter,
): number | undefined {
  const last = lastReportedUsage(events);
  if (last === undefined) return undefined;
  return plausibleScale(last.tokens, countView(viewEvents(events.slice(0, last.position + 1)), countTokens));
}

/**
 * The gauge as one line, e.g. `48.2k of 200k tokens (24%); 2 compactions save 31.0k; 1 deferred
 * compaction will save 8.4k from the next turn`. Counts that are zero are left out unless
 * `complete` asks for every part (`stats`).
 */
export function describeContextGauge(gauge: ContextGauge, options: { complete?: boolean } = {}): string {
  const used = formatTokenCount(gauge.tokens);
  const window = formatTokenCount(gauge.window.tokens);
  const percent = formatPercent(gauge.percent);
  const parts = [
    gauge.window.source === "assumed"
      ? `${used} tokens (${percent} of an assumed ${window} window: the model's is unknown)`
      : `${used} of ${window} tokens (${percent})`,
  ];
  if (gauge.compactions > 0) {
    const verb = gauge.compactions === 1 ? "saves" : "save";
    parts.push(`${plural(gauge.compactions, "compaction")} ${describeSaving(gauge.saved, verb)}`);
  } else if (options.complete) parts.push("no compactions in force");
  if (gauge.deferredCompactions > 0) {
    const saving = describeSaving(gauge.deferredSaving, "will save");
    parts.push(`${plural(gauge.deferredCompactions, "deferred compaction")} ${saving} from the next turn`);
  } else if (options.complete) parts.push("no deferred compactions");
  return parts.join("; ");
}

function describeSaving(tokens: number, verb: string): string {
  // A summary longer than what it replaced costs tokens; say so rather than print a negative saving.
  if (tokens >= 0) return `${verb} ${formatTokenCount(tokens)}`;
  const adds = verb === "will save" ? "will add" : verb === "saves" ? "adds" : "add";
  return `${adds} ${formatTokenCount(-tokens)}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** `<0.1%`, `0.4%` below 1 %, whole percents above. */
function formatPercent(percent: number): string {
  if (percent > 0 && percent < 0.05) return "<0.1%";
  if (percent > 0 && percent < 1) return `${percent.toFixed(1)}%`;
  return `${Math.round(percent)}%`;
}

/** The turn events the model sees for `events`. */
function viewEvents(events: readonly ConversationEvent[]): TurnEvent[] {
  return projectConversation(events).turns.flatMap((turn) => turn.events);
}

/** The last `chat_response` with usage: where it is and the context size it reports. */
function lastReportedUsage(
  events: readonly ConversationEvent[],
): { position: number; tokens: number } | undefined {
  for (let position = events.length - 1; position >= 0; position--) {
    const event = events[position]!;
    if (event.type !== "chat_response") continue;
    const usage = readResponseUsage(event);
    if (usage !== undefined) return { position, tokens: reportedContextTokens(usage) };
  }
  return undefined;
}

/** What the context holds now: the last reported usage, else the view now on the provider's scale. */
function contextUsed(
  events: readonly ConversationEvent[],
  options: {
    readonly turnCount: number;
    readonly view: () => readonly TurnEvent[];
    readonly countTokens: TokenCounter;
    readonly providerScale: () => number | undefined;
    /** Whether a reported count nothing changed since must have a plausible scale to be used. */
    readonly checkReported: boolean;
  },
): { tokens: number; source: "reported" | "estimated" } {
  const last = lastReportedUsage(events);
  // After an ordinary turn nothing the model sees came after its last answer: no projection.
  const unchanged = last !== undefined && unchangedSince(events, last.position, options.turnCount);
  if (unchanged && (!options.checkReported || options.providerScale() !== undefined))
    return { tokens: last.tokens, source: "reported" };
  const counted = countView(options.view(), options.countTokens);
  const scale = last === undefined ? undefined : options.providerScale();
  if (scale === undefined) return { tokens: counted, source: "estimated" };
  return { tokens: Math.round(counted * scale), source: "reported" };
}

/** The view of `events`, projected the first time it is asked for. */
function lazyView(events: readonly ConversationEvent[]): () => TurnEvent[] {
  let projected: TurnEvent[] | undefined;
  return () => {
    projected ??= viewEvents(events);
    return projected;
  };
}

function countView(view: readonly TurnEvent[], countTokens: TokenCounter): number {
  return view.reduce((sum, event) => sum + countEventTokens(event, countTokens), 0);
}

/**
 * True when nothing after `position` changes the view: no turn event, no reset, no pin, and only
 * compactions that are not in force yet (deferred to a later turn).
 */
function unchangedSince(events: readonly ConversationEvent[], position: number, turnCount: number): boolean {
  for (let later = position + 1; later < events.length; later++) {
    const event = events[later]!;
    if (
      isTurnEvent(event) ||
      event.type === "compaction_reset" ||
      event.type === "pin" ||
      event.type === "pin_reset"
    )
      return false;
    if (event.type === "compaction" && isCompactionInEffect(event, turnCount)) return false;
  }
  return true;
}

/**
 * Tokens of `before` minus tokens of `after`, counting only the events that differ. An event is in
 * both when it is the same object, or has the same id and the same counted text (the summary
 * turns projection builds afresh for each view).
 */
export function tokenDifference(
  before: readonly TurnEvent[],
  after: readonly TurnEvent[],
  countTokens: TokenCounter,
): number {
  const beforeById = new Map(before.map((event) => [event.id, event]));
  const afterById = new Map(after.map((event) => [event.id, event]));
  let difference = 0;
  for (const event of before) {
    if (!sameEvent(event, afterById.get(event.id))) difference += countEventTokens(event, countTokens);
  }
  for (const event of after) {
    if (!sameEvent(event, beforeById.get(event.id))) difference -= countEventTokens(event, countTokens);
  }
  return difference;
}

function sameEvent(event: TurnEvent, other: TurnEvent | undefined): boolean {
  if (other === undefined) return false;
  return event === other || (event.type === other.type && countedText(event) === countedText(other));
}
