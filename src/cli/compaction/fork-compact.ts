/**
 * `cxc conversation fork -k[=SPEC]`: compacts the events of a new fork before it is created, with
 * the same rules, planner and summarizers as `compact -k`, but silently (no timeline, no progress).
 * A summary that fails stops the fork, so a fork is never created half-compacted.
 */
import type { Compaction, ConversationEvent } from "../../core/events.js";
import { newEventId, timestampNow } from "../../store/index.js";
import { loadConfig } from "../config.js";
import type { CliContext } from "../context.js";
import { buildEffectiveRules } from "./config-rules.js";
import { parseExplicitRules } from "./options.js";
import { executePlan, planRun } from "./run.js";

/** The compaction events to append to the fork's events (empty when nothing is selected). */
export async function compactForkEvents(
  context: CliContext,
  sourceId: string,
  events: readonly ConversationEvent[],
  specs: readonly string[],
): Promise<Compaction[]> {
  const explicit = parseExplicitRules({ compact: specs });
  const config = loadConfig({ cwd: context.cwd, env: context.env, overlays: context.options.cfg });
  const rules = buildEffectiveRules(config.values, explicit);
  const plan = planRun(events, { rules, overrides: {}, now: timestampNow() });
  if (plan.kind !== "planned") return [];
  const result = await executePlan(events, plan, {
    config: config.values,
    env: context.env,
    conversationId: `${sourceId}-fork`,
    newEventId: () => newEventId(),
    timestamp: () => timestampNow(),
  });
  if (result.kind !== "planned") return [];
  return result.segments.flatMap((segment) => (segment.compaction === undefined ? [] : [segment.compaction]));
}
