/**
 * A plan as events: the one step from a `CompactionPlan` to the `compaction` events it stands
 * for, once its summaries are written. Pure. `realize` (prepare.ts) calls it for a preparation:
 * the one compaction step (src/compaction/compact.ts) once it wrote the summaries a plan asks
 * for, `prepare` itself for the estimated events; a plan whose summaries are all supplied (the
 * `compact` tool, an agreed review, an agent's own) needs nothing written.
 */
import type { Compaction, SummaryPolicy } from "../../core/conversation/events.js";
import { buildCompactionEvent } from "./event.js";
import type { PlannedCompaction } from "./plan.js";

/** What every event of a plan gets besides its range and policies. */
export interface RealizeOptions {
  readonly newEventId: () => string;
  /** RFC 3339 time of each event. */
  readonly now: () => string;
  /** The turn the compactions activate at (`deferred_until_turn`); absent: in force at once. */
  readonly deferredUntilTurn?: number;
  /** Metadata every event carries (automatic compaction's record of itself). */
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** True when the plan's segment `index` has a summary to be written (not supplied). */
export function needsSummary(plan: PlannedCompaction, index: number): boolean {
  const segment = plan.segments[index]!;
  return segment.summary !== undefined && segment.supplied === undefined;
}

/**
 * The events of `plan`, in order; `summaries[i]` is the written summary of segment `i` when it
 * has one to write (see `needsSummary`).
 */
export function realizePlan(
  plan: PlannedCompaction,
  summaries: readonly (SummaryPolicy | undefined)[],
  options: RealizeOptions,
): Compaction[] {
  return plan.segments.map((segment, index) => {
    const summary = summaries[index];
    return buildCompactionEvent(segment, {
      id: options.newEventId(),
      ts: options.now(),
      source: plan.source,
      ...((segment.note ?? plan.note) === undefined ? {} : { note: segment.note ?? plan.note }),
      ...(summary === undefined ? {} : { summary }),
      ...(options.deferredUntilTurn === undefined ? {} : { deferredUntilTurn: options.deferredUntilTurn }),
      ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
      ...(plan.origin === undefined ? {} : { origin: plan.origin }),
    });
  });
}
