/**
 * Recall in `cxc q` (docs/recall.md): whether a turn offers the `recall` tool and sends the recall
 * index, read once per run.
 *
 * `conversation.recall.enabled` (default on) offers `recall` on every request of a conversation,
 * compacted or not, beside the tools `conversation.tools` and `-t` select, so a compaction never
 * changes the tool list. Not offered:
 *
 * - in a compaction review, which keeps exactly one tool, `propose_compaction` (docs/review.md);
 * - to a model that takes no tools: `providers.<name>.models.<model>.tools = false`, or a server
 *   that refused a request for its tools (remembered for the conversation as a `config_delta`
 *   marked `recall_refused`, so it is said once).
 *
 * The `-t`/`-T`/`-u` directives name it like any tool: `-t recall` changes nothing, `-T recall` is
 * refused (one turn without it would change the tool list; the setting turns it off), `-u recall`
 * forces a call.
 */
import type { ConfigTable } from "../core/config.js";
import type { ConversationEvent } from "../core/conversation/events.js";
import type { RecallOptions } from "../core/conversation/recall.js";
import { REVIEW_CONFIG_METADATA_KEY } from "../compaction/core/review/review.js";
import { CxcError, usageError } from "../errors.js";
import {
  createRecallTool,
  RECALL_TOOL_NAME,
  type RecallSettings,
  RecallSettingsError,
  readRecallSettings,
  recallOptions,
} from "../tools/recall.js";
import type { SelectedTool, ToolDirective } from "./tool-selection.js";

/** The `config_delta` metadata naming a model that refused recall (it takes no tools). */
export const RECALL_REFUSED_KEY = "recall_refused";

/** `conversation.recall.*`, or the configuration error naming the value. */
export function querySettingsOfRecall(config: ConfigTable): RecallSettings {
  try {
    return readRecallSettings(config);
  } catch (error) {
    if (error instanceof RecallSettingsError)
      throw new CxcError("invalid-config", error.message, { hint: "check `cxc config show`" });
    throw error;
  }
}

/** True for a compaction review (its fork-time configuration entry is there). */
export function isReviewConversation(events: readonly ConversationEvent[]): boolean {
  return events.some(
    (event) => event.type === "config_delta" && event.metadata?.[REVIEW_CONFIG_METADATA_KEY] === true,
  );
}

/** The models this conversation recorded as taking no tools. */
export function modelsWithoutTools(events: readonly ConversationEvent[]): Set<string> {
  const models = new Set<string>();
  for (const event of events) {
    if (event.type !== "config_delta") continue;
    const model = event.metadata?.[RECALL_REFUSED_KEY];
    if (typeof model === "string") models.add(model);
  }
  return models;
}

/** The record that `modelId` takes no tools, so recall is left out of its requests from now on. */
export function recallRefusedEvent(modelId: string, stamp: { id: string; ts: string }): ConversationEvent {
  return { type: "config_delta", ...stamp, delta: {}, metadata: { [RECALL_REFUSED_KEY]: modelId } };
}

/** The one line said when recall is left out for a model. */
export function recallLeftOutNotice(modelId: string): string {
  return `${modelId} takes no tools: recall is not offered in this conversation while it uses this model, so what a compaction hides stays out of the model's reach.`;
}

/**
 * The `-t`/`-T`/`-u` directives without `recall` (which `selectTools` does not know), and whether
 * `-u recall` forces it; refuses what cannot be.
 */
export function recallDirectives(
  directives: readonly ToolDirective[],
  forced: string | undefined,
  settings: RecallSettings,
  inReview: boolean,
): { directives: ToolDirective[]; forced: string | undefined; forcesRecall: boolean } {
  const named = [...directives.filter((directive) => directive.name === RECALL_TOOL_NAME)];
  const forcesRecall = forced === RECALL_TOOL_NAME;
  if (named.length > 0 || forcesRecall) {
    if (!settings.enabled || inReview)
      throw usageError(
        inReview
          ? "tool 'recall' is not available in a compaction review: it keeps one tool, propose_compaction"
          : "tool 'recall' is not available: conversation.recall.enabled is false",
        inReview ? "leave -t/-u recall out" : "turn it on with -c conversation.recall.enabled=true",
      );
    if (named.some((directive) => !directive.enable))
      throw usageError(
        "recall is offered on every request while conversation.recall.enabled is true (so a compaction never changes the tool list); it cannot be left out of one turn",
        "turn it off with -c conversation.recall.enabled=false",
      );
  }
  return {
    directives: directives.filter((directive) => directive.name !== RECALL_TOOL_NAME),
    forced: forcesRecall ? undefined : forced,
    forcesRecall,
  };
}

/** What a turn does about recall. */
export interface TurnRecall {
  /** The tool to offer, last in the list; absent: not offered. */
  readonly tool?: SelectedTool;
  /** How the index is built (with the tool only). */
  readonly index?: RecallOptions;
  /** Said before the turn (recall left out for a model, once per conversation). */
  readonly notice?: string;
  /** Stored before the turn: the record that says it once. */
  readonly record?: ConversationEvent;
}

/** Whether this turn offers recall; see the module comment. */
export function planTurnRecall(options: {
  readonly settings: RecallSettings;
  readonly history: readonly ConversationEvent[];
  readonly modelId: string;
  /** The model table's (or configuration's) word on tools. */
  readonly takesTools: boolean;
  readonly inReview: boolean;
  readonly stamp: () => { id: string; ts: string };
}): TurnRecall {
  const { settings, history, modelId } = options;
  if (!settings.enabled || options.inReview) return {};
  if (modelsWithoutTools(history).has(modelId)) return {};
  if (!options.takesTools)
    return { notice: recallLeftOutNotice(modelId), record: recallRefusedEvent(modelId, options.stamp()) };
  return {
    tool: { tool: createRecallTool(settings), run: "unattended" },
    index: recallOptions(settings),
  };
}
