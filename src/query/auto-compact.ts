/**
 * Automatic compaction (`conversation.compaction.auto`) and the turn-loop hooks that tie it to the
 * advisor.
 *
 * - At the end of a turn: a `compact_now` call made in the turn, or the trigger (a fraction of the
 *   model's window or a token count), plans a compaction with the advisor's cut point and records
 *   it with `source: auto`, deferred until the next turn starts; when the next request would
 *   overflow the window it is recorded in force at once. Otherwise the advisor gives its advice.
 * - At the end of a cycle (the loop goes on): when the next request would overflow, compact at
 *   once (the live turn is always kept); otherwise the advisor may steer the agent.
 * - On a context-overflow error: compact at once; the loop then retries the request once.
 *
 * The plan (compaction/core/advisor/advisor.ts `buildAutoRules`): strip reasoning and tool calls, then a summary of
 * everything before the live work (the range ends at the advisor's cut), as two events, applied by
 * the compaction pipeline (compaction/apply.ts: the one summarizer choice and fallback setting; the
 * events record their own sizes); the turn loop stores them. A compaction that
 * saved less than 10% is not repeated on the next turn (the no-loop guard reads the sizes each
 * automatic compaction records in its metadata). Every automatic compaction prints what it did and
 * how to undo it. Failures are swallowed through the advisor's warn-once reporting.
 */
import { cutNote } from "../compaction/core/tool/compact-tool.js";
import { keepingFor } from "../compaction/keeping.js";
import {
  AUTO_METADATA_KEY,
  type AutoRecord,
  type AutoSettings,
  autoTriggerTokens,
  buildAutoRules,
  type CutPoint,
  cutPointCandidates,
  findSucceededCalls,
  isHeldByNoLoopGuard,
  moveCutEarlier,
  planAutoRange,
  readAdvisorSettings,
  readAutoSettings,
  savedFraction,
} from "../compaction/core/advisor/advisor.js";
import type { ConfigTable } from "../core/config.js";
import { activeCompactions } from "../core/conversation/compactions.js";
import type { Compaction, ConversationEvent } from "../core/conversation/events.js";
import { planCompaction } from "../compaction/core/plan.js";
import type { Bound } from "../core/position/bound.js";
import { compactionPolicies, layoutCycles } from "../core/conversation/cycles.js";
import { describeCompactionRange, describePolicies } from "../core/present/labels.js";
import { formatTokenCount, type TokenCounter } from "../core/conversation/tokens.js";
import { countTurns } from "../core/conversation/turns.js";
import type { LlmClient } from "../llm/types.js";
import { checkNoOpenReview } from "../compaction/core/review/review.js";
import { usageError } from "../errors.js";
import type { LockedConversation, Store } from "../store/index.js";
import { COMPACT_NOW_NAME, createCompactNowTool } from "../tools/compact-now.js";
import type { ToolRegistry } from "../tools/registry.js";
import { createShouldICompactTool, SHOULD_I_COMPACT_NAME } from "../tools/should-i-compact.js";
import { contextOfNextRequest } from "../compaction/core/advisor/next-request.js";
import { type Advisor, type AdvisorStateStore, createAdvisor, utf8ByteBound } from "../compaction/advisor.js";
import { applyCompaction, collectingTarget, type SummaryEnvironment } from "../compaction/apply.js";
import {
  overheadCounter,
  type RequestOverhead,
  resolveNextRequestModel,
} from "../compaction/context-window.js";
import type { TurnClock, TurnHooks } from "./turn-loop.js";

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
  readonly clock: TurnClock;
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
  /**
   * How summaries are made (the compaction pipeline's summarizer choice and fallback setting);
   * the signal is the turn's.
   */
  readonly summaries: Omit<SummaryEnvironment, "signal">;
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
export function createCompactionHooks(options: CompactionHooksOptions): TurnHooks {
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
): Promise<Compaction[]> {
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
  const recorded = await applyCut(events, cut, request, options, turnCount - 1);
  if (recorded.length === 0) return [];
  const record = recorded[0]!.metadata?.[AUTO_METADATA_KEY] as AutoRecord;
  const cutMoved = cut.to !== planned.to || cut.toCycle !== planned.toCycle;
  options.print(describeAutoCompaction(recorded, active.length, record, request, cutMoved));
  options.advisor?.clearAnnouncements();
  return recorded;
}

/**
 * Where an automatic compaction's range ends: turn `to` (0-based), or, when the advisor cut inside
 * a turn, its cycle `toCycle` (the last compacted cycle). It starts at the beginning.
 */
function cutBound(cut: CutPoint): Bound {
  return cut.toCycle === undefined
    ? { kind: "turn", turn: cut.to }
    : { kind: "turn", turn: cut.to, cycle: cut.toCycle };
}

/** Plans and applies the compaction ending at `cut`; its events, each recording the sizes. */
async function applyCut(
  events: readonly ConversationEvent[],
  cut: CutPoint,
  request: CompactRequest,
  options: CompactionHooksOptions,
  turn: number,
): Promise<Compaction[]> {
  const now = options.clock.now();
  // compact_now's note, cut as the `compact` tool cuts one (the call's arguments keep it whole).
  const focus = request.note === undefined ? undefined : cutNote(request.note);
  const note = focus ?? WHY_TEXT[request.why];
  const rules = buildAutoRules(focus, options.auto.rules).map((rule) => ({
    ...rule,
    keep_last: cutBound(cut),
  }));
  const target = collectingTarget(events);
  await applyCompaction(target, {
    plan: (snapshot, meta) => {
      const keeping = keepingFor(options.summaries.config, meta);
      const plan = planCompaction(snapshot, { rules, now, source: "auto", note, keeping });
      return plan.kind === "planned" ? plan : { kind: "nothing-to-compact", message: "Nothing to compact." };
    },
    // Nobody is there to decide: a failed model leaves the digest, and says so.
    summaries: { ...options.summaries, signal: request.signal, unattended: true },
    newEventId: () => options.clock.newEventId(),
    now: () => now,
    ...(request.atOnce ? {} : { deferredUntilTurn: countTurns(events) }),
    metadata: {
      countTokens: options.countTokens,
      of: (preview) => ({
        [AUTO_METADATA_KEY]: {
          tokens_before: preview.totals.before,
          tokens_after: preview.totals.after,
          turn,
        } satisfies AutoRecord,
      }),
    },
  });
  return target.applied;
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

/** Holds the run's advisor for the `should_i_compact` tool, which is built before the model is known. */
export interface AdvisorHolder {
  current?: Advisor;
}

/** The advisor's tools: registered only while the advisor is enabled. */
export const ADVISOR_TOOL_NAMES: readonly string[] = [SHOULD_I_COMPACT_NAME, COMPACT_NOW_NAME];

/**
 * Adds `should_i_compact` and `compact_now` to a registry (unless it already has them). A disabled
 * advisor (`conversation.compaction.advisor.enabled = false`) registers neither: no tool, no hook,
 * no decision call.
 */
export function registerAdvisorTools(
  registry: ToolRegistry,
  holder: AdvisorHolder,
  options: { readonly enabled: boolean } = { enabled: true },
): ToolRegistry {
  if (!options.enabled) return registry;
  if (registry.get(SHOULD_I_COMPACT_NAME) === undefined) {
    registry.register(createShouldICompactTool(() => holder.current));
  }
  if (registry.get(COMPACT_NOW_NAME) === undefined) registry.register(createCompactNowTool());
  return registry;
}

/**
 * The tool configuration of a turn with the advisor disabled: its tools do not exist, so their
 * entries (`conversation.tools.should_i_compact`, …) are set aside, and a turn that names one
 * (`-t should_i_compact`, `-u compact_now`) is a usage error that says why. Enabled, nothing
 * changes.
 */
export function gateAdvisorTools(
  config: ConfigTable,
  env: Readonly<Record<string, string | undefined>>,
  tools: ConfigTable,
  named: readonly string[],
): { readonly enabled: boolean; readonly tools: ConfigTable } {
  if (readAdvisorSettings(config, env).settings.enabled) return { enabled: true, tools };
  const refused = named.find((name) => ADVISOR_TOOL_NAMES.includes(name));
  if (refused !== undefined) {
    throw usageError(
      `tool '${refused}' is not available: the compaction advisor is disabled (conversation.compaction.advisor.enabled = false)`,
      "enable it with -c conversation.compaction.advisor.enabled=true (or unset CXC_ADVISOR_ENABLED)",
    );
  }
  const kept = Object.entries(tools).filter(([name]) => !ADVISOR_TOOL_NAMES.includes(name));
  return { enabled: false, tools: Object.fromEntries(kept) };
}

/** Inputs of `prepareTurnCompaction`. */
export interface PrepareOptions {
  readonly config: ConfigTable;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly assistant: LlmClient;
  /** The assistant model the user chose (not one picked for an API key); summaries may use it. */
  readonly chosenModel?: string;
  /** The store, and the conversation of the turn under its lock (the advisor's record is kept there). */
  readonly store: Store;
  readonly conversation: LockedConversation;
  readonly compactNowEnabled: boolean;
  readonly maxOutputTokens?: number;
  /** The turn's system prompt and tool definitions (compaction/core/advisor/next-request.ts). */
  readonly overhead?: RequestOverhead;
  readonly clock: TurnClock;
  readonly info: (text: string) => void;
  /** A `hint:` line on stderr (the command that acts on the advisor's advice). */
  readonly hint: (text: string) => void;
  readonly warn: (text: string) => void;
}

/** The open review of conversation `id`, if any. */
function openReviewRefusal(store: Store, id: string): string | undefined {
  return checkNoOpenReview(store.openReviews(), id, "compact")?.message;
}

/** The same texts are counted at every cycle boundary of a run; count each once. */
function memoizeCounter(countTokens: TokenCounter): TokenCounter {
  const counted = new Map<string, number>();
  return (text) => {
    let tokens = counted.get(text);
    if (tokens === undefined) {
      tokens = countTokens(text);
      counted.set(text, tokens);
    }
    return tokens;
  };
}

/** The advisor state: the conversation's advisor record in the store. */
function storedAdvisorState(store: Store, conversation: LockedConversation): AdvisorStateStore {
  return {
    load: () => store.advisorState(conversation.id),
    save: (state) => conversation.saveAdvisorState(state),
  };
}

/** Reads the settings and builds the advisor and the hooks of one `cxc q` turn. */
export async function prepareTurnCompaction(
  options: PrepareOptions,
): Promise<{ advisor: Advisor | undefined; hooks: TurnHooks }> {
  const advisorRead = readAdvisorSettings(options.config, options.env);
  const autoRead = readAutoSettings(options.config, options.env);
  for (const warning of [...advisorRead.warnings, ...autoRead.warnings]) options.warn(warning);
  // Counts persist with the conversation (tokens.cache.json), so each turn counts only its own
  // texts, and the advisor bounds the context from cached counts without loading the tokenizer.
  const counter = await options.store.tokenCounter(options.conversation.id);
  const countTokens = memoizeCounter(counter);
  const boundTokens = (text: string): number => counter.known(text) ?? utf8ByteBound(text);
  const model = await resolveNextRequestModel(options.assistant.modelId, options.config, options.env);
  const contextWindow = model.window.source === "assumed" ? undefined : model.window.tokens;
  const requests = {
    ...(options.overhead === undefined ? {} : { overhead: options.overhead }),
    dropsEarlierReasoning: model.dropsEarlierReasoning,
  };
  const state = storedAdvisorState(options.store, options.conversation);
  let advisor: Advisor | undefined;
  // A compaction review is a discussion about compacting another conversation: no advice in it.
  const inReview = options.store.reviewSource(options.conversation.id) !== undefined;
  if (advisorRead.settings.enabled && !inReview) {
    let decisionClient: LlmClient | undefined = options.assistant;
    let decisionUnavailable: string | undefined;
    const model = advisorRead.settings.model;
    if (model !== undefined && model !== options.assistant.modelId) {
      try {
        const { createLlmClient } = await import("../llm/registry.js");
        decisionClient = createLlmClient(model, { config: options.config, env: options.env, retry: false });
      } catch (error) {
        decisionClient = undefined;
        decisionUnavailable = `the decision model ${model} is not reachable (${(error as Error).message})`;
      }
    }
    advisor = createAdvisor({
      settings: advisorRead.settings,
      decisionClient,
      ...(decisionUnavailable === undefined ? {} : { decisionUnavailable }),
      contextWindow,
      countTokens,
      boundTokens,
      requests,
      clock: options.clock,
      state,
      print: options.info,
      hint: options.hint,
      warn: options.warn,
      compactNowEnabled: options.compactNowEnabled,
      conversationId: options.conversation.id,
      // Once per store, with the first advice given (never in a review: no advisor runs there).
      onAdvice: () => {
        if (options.store.claimNotice(CONTEXT_FIGURE_NOTICE)) options.info(CONTEXT_FIGURE_NOTICE_TEXT);
      },
    });
  }
  const warnOnce = (message: string): void => {
    const current = state.load();
    if (current.warned) return;
    state.save({ ...current, warned: true });
    options.warn(`${message}; further failures in this conversation are not reported.`);
  };
  const hooks = createCompactionHooks({
    advisor,
    auto: autoRead.settings,
    contextWindow,
    ...(options.maxOutputTokens === undefined ? {} : { reserveTokens: options.maxOutputTokens }),
    clock: options.clock,
    print: options.info,
    countTokens,
    requests,
    reportFailure: (message) => (advisor === undefined ? warnOnce(message) : advisor.reportFailure(message)),
    refusal: () => openReviewRefusal(options.store, options.conversation.id),
    summaries: {
      config: options.config,
      env: options.env,
      ...(options.chosenModel === undefined ? {} : { assistantModel: options.chosenModel }),
      report: { info: options.info, warn: options.warn },
      countTokens,
    },
  });
  return { advisor, hooks };
}
