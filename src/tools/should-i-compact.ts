/**
 * The built-in `should_i_compact` tool: the advisor's four questions and tiers, on demand. It
 * returns the verdict (should_compact, tier, reason, the context tokens and percent, the
 * configured lines, the four raw signals, next_step) as JSON.
 *
 * The advisor is built per run by `cxc q` (it needs the decision model's client), so the tool
 * reads it through a getter. A failure (no advisor, a decision model that fails or times out) is
 * thrown, which the turn loop turns into a tool error.
 */
import type { Verdict } from "../compaction/core/advisor/advisor.js";
import type { ConversationEvent } from "../core/conversation/events.js";
import { NO_ARGUMENTS } from "./arguments.js";
import { builtinTool, type Tool, type ToolOutcome } from "./tool.js";

/** The tool's name. */
export const SHOULD_I_COMPACT_NAME = "should_i_compact";

const DESCRIPTION = [
  "Ask whether now is a good time to compact this conversation. Returns a verdict: should_compact,",
  "a tier (silent, notice, recommend, request), the reason, the context size, the configured token",
  "lines, the four signals it was based on, and the next step.",
].join("\n");

/** What the tool needs of the run's advisor (src/compaction/advisor.ts). */
export interface VerdictSource {
  /** The verdict on `events`; throws when the decision model fails. */
  verdict(events: readonly ConversationEvent[], signal: AbortSignal): Promise<Verdict>;
}

/** Builds the tool; `getAdvisor` returns the run's advisor, or undefined when it is disabled. */
export function createShouldICompactTool(
  getAdvisor: () => VerdictSource | undefined,
): Tool<Readonly<Record<string, never>>> {
  return builtinTool({
    name: SHOULD_I_COMPACT_NAME,
    description: DESCRIPTION,
    arguments: NO_ARGUMENTS,
    // Read-only, but it spends a decision-model call, so it is offered only when named.
    defaults: { enable: "explicit", run: "unattended" },
    async run(_argumentsObject, context): Promise<ToolOutcome> {
      const advisor = getAdvisor();
      if (advisor === undefined) {
        throw new Error(
          "the compaction advisor is disabled (conversation.compaction.advisor.enabled = false)",
        );
      }
      const verdict = await advisor.verdict(context.events, context.signal);
      return { content: JSON.stringify(verdict, null, 2), isError: false };
    },
  });
}
