/**
 * The configuration a turn reads, checked once, with the conversation's sticky choices applied.
 *
 * Keys (see docs/query.md): `assistant.model.id`, `assistant.instructions` (the system prompt),
 * `assistant.max_output_tokens`, `conversation.max_cycles` (tool cycles per turn, default 25),
 * `conversation.reasoning.display` (`auto` | `show` | `hide`), `conversation.context_gauge`
 * (`auto` | `show` | `hide`: the line after each turn), and `conversation.tools.<name>` (read by
 * tool-selection.ts).
 *
 * "It sticks": a `-m` choice is recorded in the conversation as a `config_delta`
 * (`{assistant: {model: {id}}}`), and a later turn without `-m` uses the latest recorded model
 * before falling back to the configured one.
 */
import { type ConfigTable, isConfigTable, lookupConfig } from "../core/config.js";
import { recordedSettings } from "../core/conversation/settings.js";
import type { ConversationEvent } from "../core/conversation/events.js";
import { CxcError } from "../errors.js";

/** Tool cycles allowed per turn when configuration says nothing. */
export const DEFAULT_MAX_CYCLES = 25;

/** When reasoning is shown: `auto` shows it at a terminal only. */
export type ReasoningDisplay = "auto" | "show" | "hide";

/** When the context gauge line is printed after a turn: `auto` when stderr is a terminal. */
export type GaugeDisplay = "auto" | "show" | "hide";

/** The checked settings of one turn. */
export interface QuerySettings {
  readonly instructions?: string;
  readonly maxOutputTokens?: number;
  readonly maxCycles: number;
  readonly reasoningDisplay: ReasoningDisplay;
  readonly gaugeDisplay: GaugeDisplay;
  /** `conversation.tools` as configured (may be empty). */
  readonly tools: ConfigTable;
}

/** Reads the settings from the effective configuration values. */
export function readQuerySettings(values: ConfigTable): QuerySettings {
  const instructions = lookupConfig(values, "assistant.instructions");
  if (instructions !== undefined && typeof instructions !== "string") {
    throw invalid("assistant.instructions", "must be a string");
  }
  const maxOutputTokens = positiveInteger(values, "assistant.max_output_tokens");
  const maxCycles = positiveInteger(values, "conversation.max_cycles") ?? DEFAULT_MAX_CYCLES;
  const display = lookupConfig(values, "conversation.reasoning.display") ?? "auto";
  if (display !== "auto" && display !== "show" && display !== "hide") {
    throw invalid("conversation.reasoning.display", "must be auto, show or hide");
  }
  const gauge = lookupConfig(values, "conversation.context_gauge") ?? "auto";
  if (gauge !== "auto" && gauge !== "show" && gauge !== "hide") {
    throw invalid("conversation.context_gauge", "must be auto, show or hide");
  }
  const tools = lookupConfig(values, "conversation.tools") ?? {};
  if (!isConfigTable(tools)) throw invalid("conversation.tools", "must be a table of tools");
  return {
    ...(instructions ? { instructions } : {}),
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    maxCycles,
    reasoningDisplay: display,
    gaugeDisplay: gauge,
    tools,
  };
}

function positiveInteger(values: ConfigTable, key: string): number | undefined {
  const value = lookupConfig(values, key);
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw invalid(key, "must be a positive integer");
  }
  return value;
}

function invalid(key: string, problem: string): CxcError {
  return new CxcError("invalid-config", `${key} ${problem}`, { hint: "check `cxc config show`" });
}

/**
 * The model recorded by the latest `config_delta` that sets one, if any: cxc's `-m` choices and an
 * imported jp conversation's model (jp's `{provider, name}`, or an alias its own configuration
 * resolves); see core/conversation/settings.ts.
 */
export function stickyModel(events: readonly ConversationEvent[]): string | undefined {
  return recordedSettings(events).model;
}

/** The delta recording a model choice. */
export function modelDelta(modelId: string): Record<string, unknown> {
  return { assistant: { model: { id: modelId } } };
}
