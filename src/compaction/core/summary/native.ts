/**
 * Where a provider's own summary (Anthropic's on-demand compaction block) can stand
 * (docs/native-compaction.md). Pure.
 *
 * The API wants the block first in `messages`, in place of everything it summarizes, and one per
 * request. So a native summary must cover whole turns from turn 1, and be the only summary in force
 * once it is applied: a summary of later turns (already in force, or planned beside it) would stand
 * after it and be a second summary the block knows nothing of. Compacting again is fine: the new
 * block covers the old one's turns and replaces it, as the API does.
 */
import { activeCompactions, isCompactionInEffect } from "../../../core/conversation/compactions.js";
import { type CycleRange, compactionPolicies } from "../../../core/conversation/cycles.js";
import type { ConversationEvent } from "../../../core/conversation/events.js";
import { countTurns } from "../../../core/conversation/turns.js";
import { describeRange } from "../../../core/present/labels.js";

/**
 * Why a native summary of `range` cannot stand, in words, or undefined when it can. `alongside`
 * are the other summaries planned with it.
 */
export function nativeSummaryObstacle(
  events: readonly ConversationEvent[],
  range: CycleRange,
  alongside: readonly CycleRange[] = [],
): string | undefined {
  if (range.fromCycle !== undefined || range.toCycle !== undefined) {
    return "a native summary stands for whole turns, and this range starts or ends inside a turn";
  }
  if (range.from > 0) {
    const kept = range.from === 1 ? "turn 1 is" : `turns 1..${range.from} are`;
    return `${kept} kept before the range, and a native summary must start at turn 1 (the provider wants it first); compact from turn 1 (--keep-first 0 or --from 1) to move ${range.from === 1 ? "it" : "them"} into the summary`;
  }
  const later = alongside.find((other) => other.from > range.to);
  if (later !== undefined) {
    return `another summary is planned with it (${describeRange(later)}), and a native summary must be the only one`;
  }
  const turns = countTurns(events);
  for (const { compaction } of activeCompactions(events)) {
    if (!isCompactionInEffect(compaction, turns)) continue;
    if (compactionPolicies(compaction).summary === undefined) continue;
    if (compaction.to_turn > range.to) {
      return `a summary of turns ${compaction.from_turn + 1}..${compaction.to_turn + 1} stays in force after it, and a native summary must be the only one (reset it first, or compact through turn ${compaction.to_turn + 1})`;
    }
  }
  return undefined;
}
