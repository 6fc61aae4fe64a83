/**
 * The context gauge: how much of the model's context window the conversation fills now, what the
 * compactions in force save, and what the deferred ones will save once they take effect (from
 * the next turn). Pure. `cxc q` prints it as one line after each turn and `cxc conversation stats`
 * shows it (docs/query.md, "The context gauge").
 *
 * The context used is the provider's own count of the last request (its usage, prompt plus
 * answer), corrected by whatever changed what the model sees since then (a compaction applied at
 * once, a message sent after it). Without reported usage it is the local estimate of the
 * projected view.
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
  // Views are projected only when a number needs them (a long conversation costs a pass each).
  let projected: TurnEvent[] | undefined;
  const now = (): TurnEvent[] => {
    projected ??= viewEvents(events);
    return projected;
  };
  const saved = inForce.length === 0 ? 0 : tokenDifference(events.filter(isTurnEvent), now(), countTokens);
  const deferredSaving =
    deferred === 0
      ? 0
      : tokenDifference(
          now(),
          viewEvents(events.map((event) => (event.type === "compaction" ? withoutDeferral(event) : event))),
          countTokens,
        );
  const used = contextUsed(events, turnCount, now, countTokens);
  return {
    tokens: used.tokens,
    tokensSource: used.source,
    window,
    percent: window.tokens > 0 ? (used.tokens / window.tokens) * 100 : 0,
    compactions: inForce.length,
    saved,
    deferredCompactions: deferred,
    deferredSaving,
  };
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

/** What the context holds now: the last reported usage, corrected by what changed since. */
function contextUsed(
  events: readonly ConversationEvent[],
  turnCount: number,
  now: () => readonly TurnEvent[],
  countTokens: TokenCounter,
): { tokens: number; source: "reported" | "estimated" } {
  for (let position = events.length - 1; position >= 0; position--) {
    const event = events[position]!;
    if (event.type !== "chat_response") continue;
    const usage = readResponseUsage(event);
    if (usage === undefined) continue;
    const reported = reportedContextTokens(usage);
    // After an ordinary turn nothing the model sees came after its last answer: no projection.
    if (unchangedSince(events, position, turnCount)) return { tokens: reported, source: "reported" };
    const then = viewEvents(events.slice(0, position + 1));
    return { tokens: Math.max(0, reported - tokenDifference(then, now(), countTokens)), source: "reported" };
  }
  const tokens = now().reduce((sum, event) => sum + countEventTokens(event, countTokens), 0);
  return { tokens, source: "estimated" };
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
