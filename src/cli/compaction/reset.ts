/**
 * `compact --reset[=N]` and `compact --undo-reset` over a snapshot (docs/compaction-model.md, "Reset and undo", with cxc's
 * recorded resets). Nothing is deleted: a reset appends a `compaction_reset` that retires
 * compactions, and undoing appends one that retires the latest reset in force. The caller appends
 * the returned event under the lock; a dry run returns the same text with `Would …` and no event.
 */
import { buildResetEvent, describeReset, planReset, planUndoReset } from "../../core/compactions.js";
import type { CompactionReset, ConversationEvent } from "../../core/events.js";
import { describeCompactionRanges } from "../../core/labels.js";
import { formatRelativeTime } from "../../core/relative-time.js";
import { CxcError } from "../../errors.js";

/** What a reset or an undo does. */
export interface ResetOutcome {
  /** The line for stdout. */
  readonly message: string;
  /** The event to append; absent for a dry run or when there is nothing to do. */
  readonly event?: CompactionReset;
  /** Ids of the compactions retired (reset) or brought back (undo). */
  readonly compactionIds: readonly string[];
}

/** Plans `--reset` / `--reset=N`; an index past the active compactions is a usage error. */
export function resetCompactions(
  events: readonly ConversationEvent[],
  options: { index?: number; dryRun: boolean; id: string; ts: string },
): ResetOutcome {
  const plan = planReset(events, options.index === undefined ? {} : { index: options.index });
  if (!plan.ok) {
    if (plan.kind === "nothing-to-remove") return { message: plan.message, compactionIds: [] };
    throw new CxcError("invalid-range", plan.message, {
      hint: "`cxc conversation show` numbers the compactions in force from 1",
    });
  }
  const message = describeReset(plan.removed, {
    ...(options.index === undefined ? {} : { index: options.index }),
    dryRun: options.dryRun,
  });
  const compactionIds = plan.removed.map((compaction) => compaction.id);
  if (options.dryRun) return { message, compactionIds };
  return { message, compactionIds, event: buildResetEvent(plan.retires, { id: options.id, ts: options.ts }) };
}

/** Plans `--undo-reset`: retire the latest reset in force, bringing back what it retired. */
export function undoLatestReset(
  events: readonly ConversationEvent[],
  options: { dryRun: boolean; id: string; ts: string },
): ResetOutcome {
  const plan = planUndoReset(events);
  if (!plan.ok) return { message: plan.message, compactionIds: [] };
  const ranges = describeCompactionRanges(plan.restored);
  const count = plan.restored.length;
  const what =
    count === 0
      ? "no compaction comes back (the ones it retired were retired again later)"
      : `${count} ${count === 1 ? "compaction comes" : "compactions come"} back (${ranges})`;
  const verb = options.dryRun ? "Would undo" : "Undid";
  const message = `${verb} the reset made ${formatRelativeTime(plan.reset.ts, Date.now())}: ${what}.`;
  const compactionIds = plan.restored.map((compaction) => compaction.id);
  if (options.dryRun) return { message, compactionIds };
  return { message, compactionIds, event: buildResetEvent(plan.retires, { id: options.id, ts: options.ts }) };
}
