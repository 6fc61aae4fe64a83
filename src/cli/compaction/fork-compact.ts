/**
 * `cxc conversation fork -k[=SPEC]`: compacts the events of a new fork before it is created, with
 * the same rules, planner and pipeline as `compact -k` (src/compaction/apply.ts), but quietly:
 * no timeline, no progress, no notices, no summary copies; a model that failed is still said on
 * stderr.
 * A summary that fails under `fallback = "abort"` stops the fork, so a fork is never created
 * half-compacted.
 */
import type { Compaction, ConversationEvent } from "../../core/conversation/events.js";
import { applyCompaction, collectingTarget } from "../../compaction/apply.js";
import { keepingFor } from "../../compaction/keeping.js";
import { newEventId, timestampNow } from "../../store/index.js";
import { loadConfig } from "../config.js";
import type { CliContext } from "../context.js";
import { buildEffectiveRules } from "./config-rules.js";
import { parseExplicitRules } from "./options.js";
import { planRun } from "./run.js";

/** The compaction events to append to the fork's events (empty when nothing is selected). */
export async function compactForkEvents(
  context: CliContext,
  events: readonly ConversationEvent[],
  specs: readonly string[],
  meta: Readonly<Record<string, unknown>> = {},
): Promise<Compaction[]> {
  const explicit = parseExplicitRules({ compact: specs });
  const config = loadConfig({ cwd: context.cwd, env: context.env, overlays: context.options.cfg });
  const rules = buildEffectiveRules(config.values, explicit);
  const target = collectingTarget(events);
  const now = timestampNow();
  await applyCompaction(target, {
    plan: (snapshot) =>
      planRun(snapshot, { rules, range: {}, now, keeping: keepingFor(config.values, meta) }),
    summaries: {
      config: config.values,
      env: context.env,
      // Quiet as jp's: no notice that the digest wrote a summary, but a failed model is still said.
      report: { info: () => undefined, warn: (text) => context.warn(text) },
      countTokens: await context.store.tokenCounter(),
    },
    newEventId: () => newEventId(),
    now: () => timestampNow(),
  });
  return target.applied;
}
