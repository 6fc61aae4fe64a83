/**
 * `compact --reset[=N]` and `compact --undo-reset` over a snapshot (docs/compaction-model.md, "Reset and undo", with cxc's
 * recorded resets). Nothing is deleted: a reset appends a `compaction_reset` that retires
 * compactions, and undoing appends one that retires the latest reset in force. The caller appends
 * the returned event under the lock; a dry run returns the same text with `Would …` and no event.
 */
import {
  buildResetEvent,
  describeReset,
  planReset,
  planUndoReset,
} from "../../core/conversation/compactions.js";
import type { Compaction, CompactionReset, ConversationEvent } from "../../core/conversation/events.js";
import { describeCompactionRanges } from "../../core/present/labels.js";
import { formatRelativeTime } from "../../core/present/relative-time.js";
import { CxcError } from "../../errors.js";

/** What a reset or an undo does. */
export interface ResetOutcome {
  /** The line for stdout. */
  readonly message: string;
  /** The event to append; absent for a dry run or when there is nothing to do. */
  readonly event?: CompactionReset;
  /** Ids of the compactions retired (reset) or brought back (undo). */
  readonly compactionIds: readonly string[];
  /** Ids of the compactions this retires (a reset, or an undo that re-applies one). */
  readonly retiredIds: readonly string[];
  /** Ids of the compactions this brings back (an undo). */
  readonly restoredIds: readonly string[];
}

/** Plans `--reset` / `--reset=N`; an index past the active compactions is a usage error. */
export function resetCompactions(
  events: readonly ConversationEvent[],
  options: { index?: number; last?: number; dryRun: boolean; id: string; ts: string },
): ResetOutcome {
  const plan = planReset(events, {
    ...(options.index === undefined ? {} : { index: options.index }),
    ...(options.last === undefined ? {} : { last: options.last }),
  });
  if (!plan.ok) {
    if (plan.kind === "nothing-to-remove") return { message: plan.message, ...NOTHING };
    throw new CxcError("invalid-range", plan.message, {
      hint: "`cxc conversation show` numbers the compactions in force from 1",
    });
  }
  const message = describeReset(plan.removed, {
    ...(options.index === undefined ? {} : { index: options.index }),
    ...(options.last === undefined ? {} : { last: options.last }),
    dryRun: options.dryRun,
  });
  const compactionIds = plan.removed.map((compaction) => compaction.id);
  const outcome = { message, compactionIds, retiredIds: compactionIds, restoredIds: [] };
  if (options.dryRun) return outcome;
  return { ...outcome, event: buildResetEvent(plan.retires, { id: options.id, ts: options.ts }) };
}

const NOTHING = { compactionIds: [], retiredIds: [], restoredIds: [] } as const;

/**
 * `2 compactions come back (turns 2..19, 1..17)`, with the verb for one or several; cycle ranges
 * as `turn 4, cycles 1..37`.
 */
function countedChange(compactions: readonly Compaction[], one: string, several: string): string {
  const noun =
    compactions.length === 1 ? `1 compaction ${one}` : `${compactions.length} compactions ${several}`;
  return `${noun} (${describeCompactionRanges(compactions)})`;
}

/**
 * Plans `--undo-reset`: retire the latest reset in force. Undoing a plain reset brings back what it
 * retired; undoing an undo re-applies what that undo cancelled (a redo). The line says exactly
 * which compactions come back and which are retired again, as it will be once the event is appended.
 */
export function undoLatestReset(
  events: readonly ConversationEvent[],
  options: { dryRun: boolean; id: string; ts: string },
): ResetOutcome {
  const plan = planUndoReset(events);
  if (!plan.ok) return { message: plan.message, ...NOTHING };
  const changes: string[] = [];
  if (plan.restored.length > 0) changes.push(countedChange(plan.restored, "comes back", "come back"));
  // Only a reset it re-applies can retire a compaction, so each was retired before.
  if (plan.retired.length > 0)
    changes.push(countedChange(plan.retired, "is retired again", "are retired again"));
  if (changes.length === 0) {
    changes.push("no compaction in force changes (what it covers was retired or restored by later resets)");
  }
  const what = `the ${plan.redo ? "undo" : "reset"} made ${formatRelativeTime(plan.reset.ts, Date.now())}`;
  const message = `${options.dryRun ? "Would undo" : "Undid"} ${what}: ${changes.join("; ")}.`;
  const restoredIds = plan.restored.map((compaction) => compaction.id);
  const retiredIds = plan.retired.map((compaction) => compaction.id);
  const outcome = { message, compactionIds: restoredIds, retiredIds, restoredIds };
  if (options.dryRun) return outcome;
  return { ...outcome, event: buildResetEvent(plan.retires, { id: options.id, ts: options.ts }) };
}
