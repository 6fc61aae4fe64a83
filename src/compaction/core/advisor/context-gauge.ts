/**
 * The context gauge: the context of the next request (next-request.ts, the one figure every
 * surface shows) against the model's window, what the compactions in force save, and what the
 * deferred ones save from the next turn. Pure. `cxc q` prints it as one line after each turn and
 * `cxc conversation stats` as its first line (docs/context.md).
 *
 * Savings are differences between views (raw history, the view now, the view of the next turn
 * with every deferred compaction in force), counted by cxc and put on the provider's scale where
 * usage gives one. Most events are the same objects in both views, so only the events a
 * compaction removed, replaced or rewrote are counted: after an ordinary turn with no
 * compaction, nothing is counted at all, and the caller's counter (which may load a tokenizer on
 * its first uncached text) is never called.
 */
import { activeCompactions, isCompactionInEffect } from "../../../core/conversation/compactions.js";
import type { ConversationEvent, TurnEvent } from "../../../core/conversation/events.js";
import {
  countedText,
  countEventTokens,
  formatTokenCount,
  type TokenCounter,
} from "../../../core/conversation/tokens.js";
import { countTurns } from "../../../core/conversation/turns.js";
import { AGENT_NAMES, type AgentFormat } from "../../../core/interop/agents.js";
import {
  type ContextSource,
  contextOfNextRequest,
  type EstimateReason,
  eventsForNextRequest,
  measureProviderScale,
  type NextRequestContext,
  type NextRequestOptions,
  sentForNextTurn,
} from "./next-request.js";

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
  /** The context of the next request (next-request.ts). */
  readonly tokens: number;
  readonly tokensSource: ContextSource;
  /** The agent whose count it is, when the last usage is an agent's (an imported session). */
  readonly reportedBy?: string;
  /** Why it is an estimate. */
  readonly estimateReason?: EstimateReason;
  /** cxc's own count of the next request, when asked for (`stats`). */
  readonly estimate?: number;
  /**
   * How a figure from usage was reached: the reported figure, less the reasoning the provider will
   * not send again, less the net saving of what changed since (next-request.ts).
   */
  readonly derivation?: {
    readonly reported: number;
    readonly reasoningDropped: number;
    readonly netSaving: number;
  };
  readonly window: ContextWindow;
  /** `tokens` as a percentage of the window. */
  readonly percent: number;
  /** Compactions in force now. */
  readonly compactions: number;
  /** Tokens the compactions in force save now (raw history minus the view the model sees). */
  readonly saved: number;
  /** Compactions recorded but deferred: they take effect when the next turn starts. */
  readonly deferredCompactions: number;
  /** Tokens the deferred compactions save from the next turn on (already out of `tokens`). */
  readonly deferredSaving: number;
  /**
   * Provider tokens per token cxc counts, when usage gives one (next-request.ts); undefined when
   * every number is cxc's own count.
   */
  readonly scale: number | undefined;
}

/** Options of `computeContextGauge`: the window, and how the figure is measured (next-request.ts). */
export type GaugeOptions = Omit<NextRequestOptions, "next" | "pending"> & {
  readonly window: ContextWindow;
  /** Measure the provider's scale even when no number needs it (`stats` shows it). */
  readonly withScale?: boolean;
};

/** Computes the gauge of `events` against `window`; see the module comment. */
export function computeContextGauge(
  events: readonly ConversationEvent[],
  options: GaugeOptions,
): ContextGauge {
  const { countTokens, window } = options;
  const figure = contextOfNextRequest(events, options);
  const turnCount = countTurns(events);
  const active = activeCompactions(events).map((entry) => entry.compaction);
  const inForce = active.filter((compaction) => isCompactionInEffect(compaction, turnCount));
  const deferred = active.length - inForce.length;
  let scale: number | undefined | null = figure.source === "estimated" ? undefined : (figure.factor ?? null);
  const scaled = (tokens: number): number => {
    // Measured only when a saving needs it (it counts the view the last request sent).
    if (scale === null) scale = measureProviderScale(events, options);
    return scale === undefined ? tokens : Math.round(tokens * scale);
  };
  // Savings count what the next request sends: the reasoning a provider drops is in no view.
  const drops = options.dropsEarlierReasoning ?? true;
  let viewNow: TurnEvent[] | undefined;
  const now = (): TurnEvent[] => {
    viewNow ??= sentForNextTurn(events, drops);
    return viewNow;
  };
  const raw = (): TurnEvent[] =>
    sentForNextTurn(
      events.filter((event) => event.type !== "compaction"),
      drops,
    );
  const saved = inForce.length === 0 ? 0 : scaled(tokenDifference(raw(), now(), countTokens));
  const deferredSaving =
    deferred === 0
      ? 0
      : scaled(tokenDifference(now(), sentForNextTurn(eventsForNextRequest(events), drops), countTokens));
  if (options.withScale && scale === null) scaled(0);
  const reportedBy = figure.source === "estimated" ? undefined : figure.base?.usage.reported_by;
  return {
    tokens: figure.tokens,
    tokensSource: figure.source,
    ...(reportedBy === undefined ? {} : { reportedBy }),
    ...(figure.estimateReason === undefined ? {} : { estimateReason: figure.estimateReason }),
    ...(figure.estimate === undefined ? {} : { estimate: figure.estimate }),
    ...(figure.source === "estimated" || figure.base === undefined
      ? {}
      : {
          derivation: {
            reported: figure.base.tokens,
            reasoningDropped: figure.reasoningDropped,
            netSaving: figure.netSaving,
          },
        }),
    window,
    percent: window.tokens > 0 ? (figure.tokens / window.tokens) * 100 : 0,
    compactions: inForce.length,
    saved,
    deferredCompactions: deferred,
    deferredSaving,
    scale: scale ?? undefined,
  };
}

/**
 * The gauge as one line, e.g. `48.2k of 200k tokens (24%, reported); 2 compactions save 31.0k;
 * 1 compaction deferred to the next turn saves 8.4k`. Counts that are zero are left out unless
 * `complete` asks for every part (`stats`).
 */
export function describeContextGauge(gauge: ContextGauge, options: { complete?: boolean } = {}): string {
  const used = formatTokenCount(gauge.tokens);
  const window = formatTokenCount(gauge.window.tokens);
  const percent = formatPercent(gauge.percent);
  const source = describeContextSource(gauge.tokensSource, gauge.reportedBy);
  const parts = [
    gauge.window.source === "assumed"
      ? `${used} tokens (${percent} of an assumed ${window} window: the model's is unknown; ${source})`
      : `${used} of ${window} tokens (${percent}, ${source})`,
  ];
  if (gauge.compactions > 0) {
    const verb = gauge.compactions === 1 ? "saves" : "save";
    parts.push(`${plural(gauge.compactions, "compaction")} ${describeSaving(gauge.saved, verb)}`);
  } else if (options.complete) parts.push("no compactions in force");
  if (gauge.deferredCompactions > 0) {
    const verb = gauge.deferredCompactions === 1 ? "saves" : "save";
    const what =
      gauge.deferredCompactions === 1 ? "1 compaction" : `${gauge.deferredCompactions} compactions`;
    parts.push(`${what} deferred to the next turn ${describeSaving(gauge.deferredSaving, verb)}`);
  } else if (options.complete) parts.push("no deferred compactions");
  return parts.join("; ");
}

/**
 * Where the figure comes from, in words: `reported`, `as Claude Code counts it`, `reported,
 * adjusted for what changed since`, `estimated`.
 */
export function describeContextSource(source: ContextSource, reportedBy?: string): string {
  if (source === "estimated") return "estimated";
  const name = reportedBy === undefined ? undefined : (agentName(reportedBy) ?? reportedBy);
  const reported = name === undefined ? "reported" : `as ${name} counts it`;
  return source === "reported" ? reported : `${reported}, adjusted for what changed since`;
}

/**
 * What compactions do to the context of the next request, in one line:
 * `Context of the next request: 34.6k → 2.3k tokens (from the reported usage; the saving on the
 * provider's scale, ×0.90)`.
 */
export function describeContextChange(before: NextRequestContext, after: NextRequestContext): string {
  const change = `${formatTokenCount(before.tokens)} → ${formatTokenCount(after.tokens)} tokens`;
  if (before.source === "estimated" || after.source === "estimated") {
    const why =
      before.estimateReason === "other-context"
        ? "the usage reported describes another context"
        : "no usage reported yet";
    return `Context of the next request: ${change} (estimated: ${why})`;
  }
  const agent = before.base?.usage.reported_by;
  const from = agent === undefined ? "from the reported usage" : `from ${agentName(agent) ?? agent}'s count`;
  const scale =
    after.factor === undefined ? "" : `; the saving on the provider's scale, ×${after.factor.toFixed(2)}`;
  return `Context of the next request: ${change} (${from}${scale})`;
}

function agentName(agent: string): string | undefined {
  return Object.hasOwn(AGENT_NAMES, agent) ? AGENT_NAMES[agent as AgentFormat] : undefined;
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
