/**
 * The system prompt and tool definitions `cxc q` sends with a conversation's requests, for the
 * context of the next request outside a turn (`stats`, the dry run, the review): the system prompt
 * the conversation recorded (an imported jp conversation's, a review's), else
 * `assistant.instructions`; the tools the last request offered (their names ride on its usage),
 * else those `cxc q` offers without `-t` (configured local commands and built-ins enabled by
 * configuration). Tools that no longer exist are left out.
 */
import type { ConfigTable } from "../core/config.js";
import { lastUsage } from "../compaction/core/advisor/next-request.js";
import type { ConversationEvent } from "../core/conversation/events.js";
import { recordedSettings } from "../core/conversation/settings.js";
import { applyReviewConfig } from "../compaction/core/review/review.js";
import type { RequestOverhead } from "../compaction/context-window.js";
import { readQuerySettings } from "./settings.js";
import { createBuiltinRegistry } from "../tools/registry.js";
import { gateAdvisorTools, registerAdvisorTools } from "./advisor.js";
import { selectTools, toolDefinitions } from "./tool-selection.js";
import { isReviewConversation, modelsWithoutTools } from "./recall.js";
import {
  RECALL_ARGUMENTS,
  RECALL_DESCRIPTION,
  RECALL_TOOL_NAME,
  readRecallSettings,
} from "../tools/recall.js";

type Env = Readonly<Record<string, string | undefined>>;

/** The overhead of the next request of `events`; see the module comment. */
export async function conversationOverhead(
  events: readonly ConversationEvent[],
  config: ConfigTable,
  env: Env,
): Promise<RequestOverhead> {
  let settings: ReturnType<typeof readQuerySettings> | undefined;
  try {
    settings = readQuerySettings(applyReviewConfig(config, events));
  } catch {
    // A broken setting is reported where it is used; the overhead goes without it.
  }
  const system = recordedSettings(events).system ?? settings?.instructions;
  const base = lastUsage(events);
  const named = base?.usage.reported_by === undefined ? base?.usage.tools : undefined;
  const configured = settings?.tools ?? {};
  // `recall` rides beside the selected tools (src/query/recall.ts): named by the last request, or
  // offered by its setting.
  const recall =
    named !== undefined && named.length > 0 ? named.includes(RECALL_TOOL_NAME) : offersRecall(config, events);
  const recallTools = recall ? [recallDefinition()] : [];
  // Nothing names a tool and none is configured: no tool is offered, and nothing is loaded.
  if ((named === undefined || named.length === 0) && Object.keys(configured).length === 0)
    return system === undefined ? { tools: recallTools } : { system, tools: recallTools };
  const tools = [...(await offeredTools(configured, config, env, named)), ...recallTools];
  return system === undefined ? { tools } : { system, tools };
}

/** Whether `cxc q` offers `recall` to this conversation without knowing the model (its setting). */
function offersRecall(config: ConfigTable, events: readonly ConversationEvent[]): boolean {
  try {
    return (
      readRecallSettings(config).enabled &&
      !isReviewConversation(events) &&
      modelsWithoutTools(events).size === 0
    );
  } catch {
    return false;
  }
}

/** The definition `cxc q` sends for `recall`. */
function recallDefinition(): RequestOverhead["tools"][number] {
  return { name: RECALL_TOOL_NAME, description: RECALL_DESCRIPTION, parameters: RECALL_ARGUMENTS.schema };
}

async function offeredTools(
  configured: ConfigTable,
  config: ConfigTable,
  env: Env,
  named: readonly string[] | undefined,
): Promise<RequestOverhead["tools"]> {
  try {
    const gate = gateAdvisorTools(config, env, configured, []);
    const registry = registerAdvisorTools(createBuiltinRegistry(), {}, { enabled: gate.enabled });
    const base = { registry, configured: gate.tools, env };
    if (named === undefined || named.length === 0) return toolDefinitions(selectTools(base));
    const everything = toolDefinitions(
      selectTools({
        ...base,
        directives: named
          .filter((name) => registry.get(name) !== undefined || Object.hasOwn(gate.tools, name))
          .map((name) => ({ name, enable: true })),
      }),
    );
    return everything.filter((tool) => named.includes(tool.name));
  } catch {
    // A tool configuration that no longer loads: the definitions cannot be known.
    return [];
  }
}
