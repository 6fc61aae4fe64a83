/**
 * The compaction advisor in `cxc q`, the turn's adapter to the advisor of the compaction slice
 * (src/compaction/advisor.ts, src/compaction/automatic.ts): reads the advisor's and automatic
 * compaction's settings, builds the decision model's client, the advisor and the turn hooks, and
 * registers the advisor's tools (`should_i_compact`, `compact_now`) while it is enabled.
 */
import { type Advisor, type AdvisorStateStore, createAdvisor, utf8ByteBound } from "../compaction/advisor.js";
import {
  CONTEXT_FIGURE_NOTICE,
  CONTEXT_FIGURE_NOTICE_TEXT,
  costOfAutomaticCompaction,
  createCompactionHooks,
} from "../compaction/automatic.js";
import { type RequestOverhead, resolveNextRequestModel } from "../compaction/context-window.js";
import {
  COMPACT_NOW_NAME,
  readAdvisorSettings,
  readAutoSettings,
} from "../compaction/core/advisor/advisor.js";
import { checkNoOpenReview } from "../compaction/core/review/review.js";
import type { CompactionEnvironment } from "../compaction/environment.js";
import type { ConfigTable } from "../core/config.js";
import type { TokenCounter } from "../core/conversation/tokens.js";
import { usageError } from "../errors.js";
import type { LlmClient } from "../llm/types.js";
import type { LockedConversation, Store } from "../store/index.js";
import { createCompactNowTool } from "../tools/compact-now.js";
import type { ToolRegistry } from "../tools/registry.js";
import { createShouldICompactTool, SHOULD_I_COMPACT_NAME } from "../tools/should-i-compact.js";
import type { TurnClock, TurnHooks } from "./turn-loop.js";
import { createLlmClient } from "../llm/registry.js";

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
  /** The process's compaction environment (automatic compaction's summaries, ids and time). */
  readonly compaction: CompactionEnvironment;
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
  const prices = model.prices;
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
      costOfCompacting: (events) =>
        costOfAutomaticCompaction(events, {
          auto: autoRead.settings,
          compaction: options.compaction,
          countTokens,
          requests,
          ...(prices === undefined ? {} : { prices }),
        }),
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
    print: options.info,
    countTokens,
    requests,
    reportFailure: (message) => (advisor === undefined ? warnOnce(message) : advisor.reportFailure(message)),
    refusal: () => openReviewRefusal(options.store, options.conversation.id),
    compaction: options.compaction,
    conversationId: options.conversation.id,
  });
  return { advisor, hooks };
}
