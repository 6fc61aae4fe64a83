/**
 * The context window the gauge (core/advisor/context-gauge.ts) measures against: the configured size
 * (`providers.<name>.models.<model>.context_window`), else cxc's model table, else an assumed
 * size, said as such.
 */
import { ASSUMED_CONTEXT_WINDOW, type ContextWindow } from "../core/advisor/context-gauge.js";
import type { ConfigTable } from "../core/config.js";

/** The window of `modelId` (undefined: no model is known, so the window is assumed). */
export async function resolveContextWindow(
  modelId: string | undefined,
  config: ConfigTable,
  env: Readonly<Record<string, string | undefined>>,
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
 * The window of `modelId` when cxc knows it (configured or in its table), else undefined: for the
 * decisions that must not act on an assumed size (whether a summary's turns fit, when to compact).
 */
export async function knownContextWindow(
  modelId: string | undefined,
  config: ConfigTable,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number | undefined> {
  const window = await resolveContextWindow(modelId, config, env);
  return window.source === "assumed" ? undefined : window.tokens;
}
