/**
 * The context window the gauge (core/advisor/context-gauge.ts) measures against, and the gauge itself as
 * `cxc q` (after a turn), `cxc conversation stats` and the advisor get it: one model, one window,
 * one count.
 *
 * The window is the configured size (`providers.<name>.models.<model>.context_window`), else cxc's
 * model table, else an assumed size, said as such. The model is the one the next turn would use:
 * `cxc q` passes the model it ran; `stats` asks `nextTurnModel`, which picks it as `cxc q` does
 * without `-m`.
 */
import {
  ASSUMED_CONTEXT_WINDOW,
  type ContextGauge,
  type ContextWindow,
  computeContextGauge,
} from "../core/advisor/context-gauge.js";
import type { ConfigTable } from "../core/config.js";
import type { ConversationEvent } from "../core/conversation/events.js";
import { configuredAssistantModel } from "../core/summary/summarizer.js";
import type { TokenCounter } from "../core/conversation/tokens.js";
import { stickyModel } from "./settings.js";

type Env = Readonly<Record<string, string | undefined>>;

/** The window of `modelId` (undefined: no model is known, so the window is assumed). */
export async function resolveContextWindow(
  modelId: string | undefined,
  config: ConfigTable,
  env: Env,
): Promise<ContextWindow> {
  if (modelId !== undefined) {
    // Loaded on demand: the registry is the way to the provider SDKs.
    const { readLlmConfig, resolveModel } = await import("../llm/registry.js");
    try {
      const model = resolveModel(modelId, readLlmConfig(config), env);
      if (model.contextWindow !== undefined && model.contextWindowSource !== undefined) {
        return { tokens: model.contextWindow, source: model.contextWindowSource };
      }
    } catch {
      // A model cxc cannot resolve has no known window either.
    }
  }
  return { tokens: ASSUMED_CONTEXT_WINDOW, source: "assumed" };
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
  const chosen = stickyModel(events) ?? configuredAssistantModel(config);
  if (chosen !== undefined) return chosen;
  const { selectDefaultModel } = await import("../llm/registry.js");
  try {
    return await selectDefaultModel({ config, env, probeOllama: async () => undefined });
  } catch {
    return undefined;
  }
}

/** The gauge of `events` against the window of `modelId`. */
export async function measureContextGauge(
  events: readonly ConversationEvent[],
  options: {
    readonly modelId: string | undefined;
    readonly config: ConfigTable;
    readonly env: Env;
    readonly countTokens: TokenCounter;
  },
): Promise<ContextGauge> {
  const window = await resolveContextWindow(options.modelId, options.config, options.env);
  return computeContextGauge(events, { countTokens: options.countTokens, window });
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
