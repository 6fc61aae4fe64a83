/**
 * What a conversation's own `config_delta` events say about continuing it: the model it runs on
 * ("it sticks": the latest model a delta records), its system prompt, and the jp tools it had.
 * Pure. cxc records a model choice as `{assistant: {model: {id}}}` and a review's instructions as
 * `{assistant: {instructions}}`; a conversation imported from jp carries jp's whole configuration
 * (its `base_config.json` and deltas), read as jp reads it (interop/jp-config.ts): the model may be
 * jp's `{provider, name}` table or one of the conversation's own aliases, and the system prompt is
 * jp's `system_prompt` with its sections and instructions. The latest delta that speaks wins.
 */
import type { ConversationEvent } from "./events.js";
import {
  enabledJpTools,
  jpModel,
  mergeJpConfig,
  readModelId,
  renderJpSystemPrompt,
  setsJpSystemPrompt,
} from "../interop/jp-config.js";
import { isRecord } from "../interop/jp-encoding.js";

/** What the conversation's recorded configuration says. */
export interface RecordedSettings {
  /** The model to continue with (`provider/name` or an alias cxc resolves). */
  readonly model?: string;
  /** The system prompt the conversation carries. */
  readonly system?: string;
  /** jp's tools that were enabled when the conversation was recorded (cxc cannot run them). */
  readonly jpTools: readonly string[];
}

/** Folds the conversation's `config_delta` events, in order (see the module comment). */
/**
 * The model recorded in force at each event of `events` (as `recordedSettings` reads it from the
 * `config_delta`s before and at it), in one pass: undefined until one names a model.
 */
export function recordedModels(events: readonly ConversationEvent[]): (string | undefined)[] {
  let merged: Record<string, unknown> = {};
  let model: string | undefined;
  return events.map((event) => {
    if (event.type !== "config_delta") return model;
    merged = mergeJpConfig(merged, event.delta);
    const assistant = isRecord(event.delta) && isRecord(event.delta.assistant) ? event.delta.assistant : {};
    const named = isRecord(assistant.model) ? readModelId(assistant.model.id) : undefined;
    if (named !== undefined) model = jpModel(merged) ?? named;
    return model;
  });
}

export function recordedSettings(events: readonly ConversationEvent[]): RecordedSettings {
  let merged: Record<string, unknown> = {};
  let model: string | undefined;
  let system: string | undefined;
  for (const event of events) {
    if (event.type !== "config_delta") continue;
    const delta = event.delta;
    merged = mergeJpConfig(merged, delta);
    const assistant = isRecord(delta) && isRecord(delta.assistant) ? delta.assistant : {};
    const named = isRecord(assistant.model) ? readModelId(assistant.model.id) : undefined;
    if (named !== undefined) model = jpModel(merged) ?? named;
    if (setsJpSystemPrompt(delta)) system = renderJpSystemPrompt(merged);
    else if (typeof assistant.instructions === "string" && assistant.instructions.trim() !== "") {
      system = assistant.instructions;
    }
  }
  return {
    ...(model === undefined ? {} : { model }),
    ...(system === undefined ? {} : { system }),
    jpTools: enabledJpTools(merged),
  };
}
