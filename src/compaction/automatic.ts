/**
 * Automatic compaction (`conversation.compaction.auto`) and the turn-loop hooks that tie it to the
 * advisor; the surface of the compaction slice that asks for a `cut` (core/request.ts).
 *
 * - At the end of a turn: a `compact_now` call made in the turn, or the trigger (a fraction of the
 *   model's window or a token count), plans a compaction with the advisor's cut point and records
 *   it with `source: auto`, deferred until the next turn starts; when the next request would
 *   overflow the window it is recorded in force at once. Otherwise the advisor gives its advice.
 * - At the end of a cycle (the loop goes on): when the next request would overflow, compact at
 *   once (the live turn is always kept); otherwise the advisor may steer the agent.
 * - On a context-overflow error: compact at once; the loop then retries the request once.
 *
 * The plan (core/advisor/advisor.ts `buildAutoRules`): strip reasoning and tool calls, then a
 * summary of everything before the live work (the range ends at the advisor's cut), as two events,
 * prepared (core/prepare.ts) and carried out by the one compaction step (compact.ts: the one
 * summarizer choice and fallback setting, unattended; the events record their own sizes); the turn
 * loop stores them. A compaction that saved less than 10% is not repeated on the next turn (the
 * no-loop guard reads the sizes each automatic compaction records in its metadata). Every
 * automatic compaction prints what it did and how to undo it. Failures are swallowed through the
 * advisor's warn-once reporting.
 */
import { activeCompactions } from "../core/conversation/compactions.js";
import { compactionPolicies, layoutCycles } from "../core/conversation/cycles.js";
import type { Compaction, ConversationEvent } from "../core/conversation/events.js";
import { formatTokenCount, type TokenCounter } from "../core/conversation/tokens.js";
import { countTurns } from "../core/conversation/turns.js";
import type { PriceSource } from "../core/prices.js";
import { describeCompactionRange, describePolicies } from "../core/present/labels.js";
import type { Advisor } from "./advisor.js";
import { compact } from "./compact.js";
import { overheadCounter, type RequestOverhead } from "./context-window.js";
import {
  type AutoRecord,
  type AutoSettings,
  autoTriggerTokens,
  COMPACT_NOW_NAME,
  cutPointCandidates,
  findSucceededCalls,
  isHeldByNoLoopGuard,
  moveCutEarlier,
  planAutoRange,
  savedFraction,
} from "./core/advisor/advisor.js";
import { type CompactionCost, compactionCost } from "./core/advisor/cache-cost.js";
import { contextOfNextRequest, unchangedPrefix } from "./core/advisor/next-request.js";
import { prepare } from "./core/prepare.js";
import { cutNote } from "./core/tool/compact-tool.js";
import type { CompactionEnvironment } from "./environment.js";

/**
 * Where automatic compaction and the advisor join the turn loop (the loop's `TurnHooks`,
 * src/query/turn-loop.ts): each returns events for the loop to store; failures are swallowed.
 */
export interface CompactionHooks {
  afterCycle(
    events: readonly ConversationEvent[],
    signal: AbortSignal,
  ): Promise<readonly ConversationEvent[]>;
  afterTurn(events: readonly ConversationEvent[], signal: AbortSignal): Promise<readonly ConversationEvent[]>;
  onContextOverflow(
    events: readonly ConversationEvent[],
    signal: AbortSignal,
  ): Promise<readonly ConversationEvent[]>;
}

/** The one-time notice of the context figure's change (docs/context.md), by name and words. */
export const CONTEXT_FIGURE_NOTICE = "context-figure-counts-system-prompt-and-tools";
export const CONTEXT_FIGURE_NOTICE_TEXT =
  "the context figure now counts the system prompt and tools; token lines set for the old figure fire earlier (see the CHANGELOG)";

/** Tokens kept free for the answer when judging whether the next request would overflow. */
export const DEFAULT_OVERFLOW_RESERVE_TOKENS = 16_384;

/** Inputs of `createCompactionHooks`. */
export interface CompactionHooksOptions {
  readonly advisor: Advisor | undefined;
  readonly auto: AutoSettings;
  /** The assistant model's window, when known. */
  readonly contextWindow: number | undefined;
  readonly reserveTokens?: number;
  /** One line on stderr. */
  readonly print: (text: string) => void;
  /** Counts tokens: the projected context and the sizes an automatic compaction records. */
  readonly countTokens: TokenCounter;
  /** The requests' system prompt and tools, and the provider's reasoning rule (compaction/core/advisor/next-request.ts). */
  readonly requests?: {
    readonly overhead?: RequestOverhead;
    readonly dropsEarlierReasoning?: boolean;
  };
  /** Swallowed failures go here (the advisor's warn-once reporting). */
  readonly reportFailure: (message: string) => void;
  /**
   * Why the conversation may not be compacted now (a compaction review of it is open, docs/review.md),
   * or undefined. Absent: never refused.
   */
  readonly refusal?: () => string | undefined;
  /** The process's compaction environment: summaries, ids and time, notices. */
  readonly compaction: CompactionEnvironment;
  /** The conversation of the turn (its token counts). */
  readonly conversationId?: string;
}

type Why = "trigger" | "compact_now" | "overflow-soon" | "overflow-error";

const WHY_TEXT: Readonly<Record<Why, string>> = {
  trigger: "the context passed the automatic compaction trigger",
  compact_now: "the assistant called compact_now",
  "overflow-soon": "the next request would overflow the context window",
  "overflow-error": "the provider said the context window overflowed",
};

/** The events of the current (last) turn. */
function currentTurnEvents(events: readonly ConversationEvent[]): readonly ConversationEvent[] {
  for (let position = events.length - 1; position >= 0; position--) {
    if (events[position]!.type === "turn_start") return events.slice(position);
  }
  return events;
}

/** The turn-loop hooks; see the module comment. */
export function createCompactionHooks(options: CompactionHooksOptions): CompactionHooks {
  const reserve = options.reserveTokens ?? DEFAULT_OVERFLOW_RESERVE_TOKENS;
  const overhead = overheadCounter(options.requests?.overhead, options.countTokens);
  const drops = options.requests?.dropsEarlierReasoning;
  // The context of the next request: the turn's next cycle, or the first request of the next turn.
  const measureTokens = (events: readonly ConversationEvent[], next: "same-turn" | "next-turn"): number =>
    contextOfNextRequest(events, {
      countTokens: options.countTokens,
      overhead,
      next,
      ...(drops === undefined ? {} : { dropsEarlierReasoning: drops }),
    }).tokens;
  const wouldOverflow = (tokens: number): boolean =>
    options.contextWindow !== undefined && tokens + reserve >= options.contextWindow;
  const guarded = async (
    work: () => Promise<readonly ConversationEvent[]>,
  ): Promise<readonly ConversationEvent[]> => {
    try {
      return await work();
    } catch (error) {
      options.reportFailure(`automatic compaction failed: ${(error as Error).message}`);
      return [];
    }
  };

  return {
    afterCycle: (events, signal) =>
      guarded(async () => {
        if (options.auto.enabled && wouldOverflow(measureTokens(events, "same-turn"))) {
          return compactAutomatically(events, { why: "overflow-soon", atOnce: true, signal }, options);
        }
        return options.advisor?.adviseAtBoundary(events, { midTurn: true, signal }) ?? [];
      }),

    afterTurn: (events, signal) =>
      guarded(async () => {
        const scheduled = findSucceededCalls(currentTurnEvents(events), COMPACT_NOW_NAME);
        // Counting tokens loads the tokenizer: only when automatic compaction or compact_now can
        // use the count (the advisor bounds its own need below).
        const tokens = options.auto.enabled || scheduled.length > 0 ? measureTokens(events, "next-turn") : 0;
        const overflowSoon = wouldOverflow(tokens);
        const threshold = autoTriggerTokens(options.auto.trigger, options.contextWindow);
        const triggered =
          options.auto.enabled && (overflowSoon || (threshold !== undefined && tokens >= threshold));
        if (scheduled.length > 0 || triggered) {
          const note = scheduled
            .map((call) => call.argumentsObject.note)
            .find((value) => typeof value === "string");
          const why: Why = scheduled.length > 0 ? "compact_now" : overflowSoon ? "overflow-soon" : "trigger";
          const compacted = await compactAutomatically(
            events,
            { why, atOnce: overflowSoon, signal, ...(typeof note === "string" ? { note } : {}) },
            options,
          );
          if (compacted.length > 0 || why !== "trigger") return compacted;
        }
        return options.advisor?.adviseAtBoundary(events, { midTurn: false, signal }) ?? [];
      }),

    // Off means off: without `auto.enabled` an overflow stays an error that says how to compact.
    onContextOverflow: (events, signal) =>
      options.auto.enabled
        ? guarded(() =>
            compactAutomatically(events, { why: "overflow-error", atOnce: true, signal }, options),
          )
        : Promise.resolve([]),
  };
}

interface CompactRequest {
  readonly why: Why;
  readonly atOnce: boolean;
  readonly signal: AbortSignal;
  readonly note?: string;
}

/** Plans, builds and describes one automatic compaction; returns its events (none when held or empty). */
export async function compactAutomatically(
  events: readonly ConversationEvent[],
  request: CompactRequest,
  options: CompactionHooksOptions,
): Promise<readonly Compaction[]> {
  const refused = options.refusal?.();
  if (refused !== undefined) {
    options.print(`auto-compact: skipped — ${refused}`);
    return [];
  }
  const turnCount = countTurns(events);
  const active = activeCompactions(events);
  // Only a provider's overflow error bypasses the guard: its single retry needs the space.
  if (
    request.why !== "overflow-error" &&
    isHeldByNoLoopGuard(
      active.map((entry) => entry.compaction),
      turnCount - 1,
    )
  ) {
    options.print(
      "auto-compact: held — the last automatic compaction saved less than 10%, so it is not repeated on this turn.",
    );
    return [];
  }
  const planned = planAutoRange(
    turnCount,
    options.auto.keepLast,
    layoutCycles(events).cycleCounts,
    options.auto.keepLastCycles,
  );
  if (planned === undefined) {
    if (request.why !== "trigger")
      options.print(`auto-compact: nothing to compact yet (${WHY_TEXT[request.why]}).`);
    return [];
  }
  // When space is needed now, the cut stays where planned: moving it earlier would free less.
  const pick =
    request.atOnce || options.advisor === undefined
      ? undefined
      : await options.advisor.pickLiveFrom(
          events,
          cutPointCandidates(planned, options.advisor.settings.maxTurns),
          request.signal,
        );
  const cut = moveCutEarlier(planned, pick);
  const { compactions: recorded, record } = await applyCut(events, cut, request, options);
  if (recorded.length === 0 || record === undefined) return [];
  const cutMoved = cut.to !== planned.to || cut.toCycle !== planned.toCycle;
  options.print(describeAutoCompaction(recorded, active.length, record, request, cutMoved));
  options.advisor?.clearAnnouncements();
  return recorded;
}

/** Prepares and carries out the compaction ending at `cut`; its events, each recording the sizes. */
async function applyCut(
  events: readonly ConversationEvent[],
  cut: ReturnType<typeof moveCutEarlier>,
  request: CompactRequest,
  options: CompactionHooksOptions,
): Promise<{ compactions: readonly Compaction[]; record?: AutoRecord }> {
  const environment = options.compaction;
  // compact_now's note, cut as the `compact` tool cuts one (the call's arguments keep it whole).
  const focus = request.note === undefined ? undefined : cutNote(request.note);
  const preparation = prepare(
    events,
    {
      kind: "cut",
      cut,
      ...(options.auto.rules === undefined ? {} : { rules: options.auto.rules }),
      ...(options.auto.native === true ? { native: true } : {}),
      note: focus ?? WHY_TEXT[request.why],
      ...(focus === undefined ? {} : { focus }),
      atOnce: request.atOnce,
    },
    environment.settings(),
  );
  const report = await compact(preparation, environment, {
    signal: request.signal,
    ...(options.conversationId === undefined ? {} : { conversationId: options.conversationId }),
  });
  return report.kind === "compacted" ? report : { compactions: [] };
}

/** What was done and how to undo it, in one or two lines. */
export function describeAutoCompaction(
  compactions: readonly Compaction[],
  activeBefore: number,
  record: AutoRecord,
  request: CompactRequest,
  cutMoved: boolean,
): string {
  const parts = compactions.map((compaction) => {
    const policies = compactionPolicies(compaction);
    const what = policies.summary !== undefined ? "summary" : (describePolicies(policies) ?? "compaction");
    return `${what} of ${describeCompactionRange(compaction)}`;
  });
  const saved = Math.round(savedFraction(record) * 100);
  const when = request.atOnce ? "in force now" : "takes effect at the next turn";
  // One reset retires them all: one step to undo, and one `--undo-reset` to bring them back.
  const first = activeBefore + 1;
  const last = activeBefore + compactions.length;
  const undo = `\`cxc conversation compact --reset=${first === last ? first : `${first}..${last}`}\``;
  return (
    `auto-compact: ${WHY_TEXT[request.why]}; recorded ${parts.join(" and ")} ` +
    `(${formatTokenCount(record.tokens_before)} → ${formatTokenCount(record.tokens_after)} tokens, saved ${saved}%; ` +
    `${when}${cutMoved ? "; the advisor kept the live work verbatim" : ""}).\n` +
    `auto-compact: to undo it run ${undo}.`
  );
}

/**
 * What compacting `events` now would cost with the prompt cache (core/advisor/cache-cost.ts): the
 * automatic plan at its planned cut (no decision call), its summary estimated by the digest as a
 * dry run estimates it. Undefined when there is nothing to compact. For the advisor's reason.
 */
export function costOfAutomaticCompaction(
  events: readonly ConversationEvent[],
  options: {
    readonly auto: AutoSettings;
    readonly compaction: CompactionEnvironment;
    readonly countTokens: TokenCounter;
    readonly requests?: CompactionHooksOptions["requests"];
    readonly prices?: PriceSource;
  },
): CompactionCost | undefined {
  const planned = planAutoRange(
    countTurns(events),
    options.auto.keepLast,
    layoutCycles(events).cycleCounts,
    options.auto.keepLastCycles,
  );
  if (planned === undefined) return undefined;
  const preparation = prepare(
    events,
    {
      kind: "cut",
      cut: planned,
      ...(options.auto.rules === undefined ? {} : { rules: options.auto.rules }),
      ...(options.auto.native === true ? { native: true } : {}),
      note: "the advisor's estimate",
      atOnce: true,
    },
    options.compaction.settings(undefined, options.countTokens),
  );
  if (preparation.kind !== "planned" || preparation.estimated.length === 0) return undefined;
  const drops = options.requests?.dropsEarlierReasoning;
  const measure = {
    countTokens: options.countTokens,
    overhead: overheadCounter(options.requests?.overhead, options.countTokens),
    ...(drops === undefined ? {} : { dropsEarlierReasoning: drops }),
  };
  const changed = [...events, ...preparation.estimated];
  const before = contextOfNextRequest(events, measure);
  const after = contextOfNextRequest(changed, measure);
  return compactionCost(before, after, unchangedPrefix(events, changed, before, measure), options.prices);
}
