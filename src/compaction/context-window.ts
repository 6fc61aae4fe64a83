/**
 * What the shell knows about the next request, for the context of the next request
 * (compaction/core/advisor/next-request.ts) and the gauge (compaction/core/advisor/context-gauge.ts) as `cxc q` (after a
 * turn), `cxc conversation stats`, the dry run, the review and the advisor get them: one model,
 * one window, one count.
 *
 * The window is the configured size (`providers.<name>.models.<model>.context_window`), else cxc's
 * model table, else an assumed size, said as such. The model is the one the next turn would use:
 * `cxc q` passes the model it ran; `stats` asks `nextTurnModel`, which picks it as `cxc q` does
 * without `-m`. The model's wire says whether the provider drops earlier turns' reasoning. The
 * overhead (system prompt and tool definitions) is the one `cxc q` sends (request-overhead.ts).
 */
import {
  ASSUMED_CONTEXT_WINDOW,
  type ContextGauge,
  type ContextWindow,
  computeContextGauge,
} from "./core/advisor/context-gauge.js";
import type { ConfigTable } from "../core/config.js";
import type { ConversationEvent } from "../core/conversation/events.js";
import type { ToolDefinition } from "../core/conversation/request.js";
import type { TokenCounter } from "../core/conversation/tokens.js";
import type { PriceSource } from "../core/prices.js";
import { configuredAssistantModel } from "./core/summary/summarizer.js";
import { recordedSettings } from "../core/conversation/settings.js";
import { readLlmConfig, resolveModel, selectDefaultModel } from "../llm/registry.js";
import { dropsEarlierReasoning } from "../llm/models.js";

type Env = Readonly<Record<string, string | undefined>>;

/** The window of the next request's model, and whether its provider drops earlier turns' reasoning. */
export interface NextRequestModel {
  readonly modelId: string | undefined;
  readonly window: ContextWindow;
  readonly dropsEarlierReasoning: boolean;
  /** Its prices (configured, else cxc's dated table), when known. */
  readonly prices?: PriceSource;
}

/** The system prompt and tool definitions a request sends. */
export interface RequestOverhead {
  readonly system?: string;
  readonly tools: readonly ToolDefinition[];
}

/** The model of `modelId`: its window (undefined model: assumed) and its provider's reasoning rule. */
export async function resolveNextRequestModel(
  modelId: string | undefined,
  config: ConfigTable,
  env: Env,
): Promise<NextRequestModel> {
  if (modelId !== undefined) {
    try {
      const model = resolveModel(modelId, readLlmConfig(config), env);
      const drops = dropsEarlierReasoning(model.model, model.settings.api);
      const prices = model.prices === undefined ? {} : { prices: model.prices };
      if (model.contextWindow !== undefined && model.contextWindowSource !== undefined) {
        return {
          modelId,
          window: { tokens: model.contextWindow, source: model.contextWindowSource },
          dropsEarlierReasoning: drops,
          ...prices,
        };
      }
      return { modelId, window: assumed(), dropsEarlierReasoning: drops, ...prices };
    } catch {
      // A model cxc cannot resolve has no known window either.
    }
  }
  return { modelId, window: assumed(), dropsEarlierReasoning: true };
}

function assumed(): ContextWindow {
  return { tokens: ASSUMED_CONTEXT_WINDOW, source: "assumed" };
}

/** The window of `modelId` (undefined: no model is known, so the window is assumed). */
export async function resolveContextWindow(
  modelId: string | undefined,
  config: ConfigTable,
  env: Env,
): Promise<ContextWindow> {
  return (await resolveNextRequestModel(modelId, config, env)).window;
}

/**
 * The model `cxc q` would run the next turn of `events` on without `-m`: the one the conversation
 * recorded, else `assistant.model.id`, else the default an API key in the environment selects.
 * Undefined when none of them names one. Asks no server (a running Ollama is not probed).
 */
export async function nextTurnModel(
  events: readonly ConversationEvent[],
  config: ConfigTable,
  env: Env,
): Promise<string | undefined> {
  const chosen = recordedSettings(events).model ?? configuredAssistantModel(config);
  if (chosen !== undefined) return chosen;
  try {
    return await selectDefaultModel({ config, env, probeOllama: async () => undefined });
  } catch {
    return undefined;
  }
}

/**
 * cxc's count of an overhead, computed the first time it is asked for (the next request's figure
 * asks only when it needs it): the system prompt and the tool definitions as JSON.
 */
export function overheadCounter(
  overhead: RequestOverhead | undefined,
  countTokens: TokenCounter,
): () => number | undefined {
  let counted: number | undefined | null = null;
  return () => {
    if (counted !== null) return counted;
    if (overhead === undefined) counted = undefined;
    else {
      const system = overhead.system === undefined ? 0 : countTokens(overhead.system);
      counted = system + (overhead.tools.length === 0 ? 0 : countTokens(JSON.stringify(overhead.tools)));
    }
    return counted;
  };
}

/** The gauge of `events` against the window of `modelId`, with the next request's overhead. */
export async function measureContextGauge(
  events: readonly ConversationEvent[],
  options: {
    readonly modelId: string | undefined;
    readonly config: ConfigTable;
    readonly env: Env;
    readonly countTokens: TokenCounter;
    readonly overhead?: RequestOverhead;
    readonly withEstimate?: boolean;
    readonly withScale?: boolean;
  },
): Promise<ContextGauge> {
  const model = await resolveNextRequestModel(options.modelId, options.config, options.env);
  return computeContextGauge(events, {
    countTokens: options.countTokens,
    window: model.window,
    overhead: overheadCounter(options.overhead, options.countTokens),
    dropsEarlierReasoning: model.dropsEarlierReasoning,
    ...(options.withEstimate ? { withEstimate: true } : {}),
    ...(options.withScale ? { withScale: true } : {}),
  });
}

/**
 * The window of `modelId` when cxc knows it (configured or in its table), else undefined: for the
 * decisions that must not act on an assumed size (whether a summary's turns fit, when to compact).
 */
export async function knownContextWindow(
  modelId: string | undefined,
  config: ConfigTable,
  env: Env,
): Promise<number | undefined> {
  const window = await resolveContextWindow(modelId, config, env);
  return window.source === "assumed" ? undefined : window.tokens;
}

/**
 * The prices of `modelId` (configured, else cxc's dated table), or undefined when unknown or the
 * model cannot be resolved: for what `stats` says the conversation and cxc spent.
 */
export function modelPrices(
  modelId: string | undefined,
  config: ConfigTable,
  env: Env,
): PriceSource | undefined {
  if (modelId === undefined) return undefined;
  try {
    return resolveModel(modelId, readLlmConfig(config), env).prices;
  } catch {
    return undefined;
  }
}
