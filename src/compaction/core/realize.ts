/**
 * A plan as events: the one step from a `CompactionPlan` to the `compaction` events it stands
 * for, once its summaries are written. Pure. `realize` turns a whole preparation into its events
 * (pins, then compactions): the one compaction step (src/compaction/compact.ts) once it wrote the
 * summaries a plan asks for (`summariesToWrite`); `prepare` (prepare.ts) calls `realizePlan` for
 * the estimated events; a plan whose summaries are all supplied (the `compact` tool, an agreed
 * review, an agent's own) needs nothing written.
 */
import type { Compaction, Pin, SummaryPolicy } from "../../core/conversation/events.js";
import { buildPinEvent } from "../../core/conversation/pins.js";
import type { MessagePosition } from "../../core/position/parse.js";
import { AUTO_METADATA_KEY, type AutoRecord } from "./advisor/advisor.js";
import { buildCompactionEvent } from "./event.js";
import type { PlannedCompaction } from "./plan.js";
import type { CompactionRequest } from "./request.js";

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

/** What realizing reads of a planned preparation (`PlannedPreparation`, prepare.ts). */
export interface RealizablePreparation {
  readonly request: CompactionRequest;
  readonly plan: PlannedCompaction;
  /** The turn the compactions activate at (`deferred_until_turn`); absent: in force at once. */
  readonly deferredUntilTurn?: number;
  /** Pins the request adds with its compactions. */
  readonly pins: readonly MessagePosition[];
}

/** The turn loop's or the store's ids and time for new events. */
export interface EventIds {
  newEventId(): string;
  now(): string;
}

/** The events a preparation stands for: the pins it adds, then its compactions. */
export interface RealizedCompaction {
  readonly pins: readonly Pin[];
  readonly compactions: readonly Compaction[];
}

/**
 * A preparation as events, once its summaries are written: `summaries[i]` is the written summary
 * of segment `i` when it has one to write (`needsSummary`). An automatic compaction records its
 * own sizes (`record`); an imported one keeps the agent's time.
 */
export function realize(
  preparation: RealizablePreparation,
  summaries: readonly (SummaryPolicy | undefined)[],
  ids: EventIds,
  record?: AutoRecord,
): RealizedCompaction {
  const { request } = preparation;
  const pins = preparation.pins.map((position) =>
    buildPinEvent(position, { id: ids.newEventId(), ts: ids.now() }),
  );
  const compactions = realizePlan(preparation.plan, summaries, {
    newEventId: ids.newEventId,
    now: request.kind === "imported" ? () => request.ts : ids.now,
    ...(preparation.deferredUntilTurn === undefined
      ? {}
      : { deferredUntilTurn: preparation.deferredUntilTurn }),
    ...(record === undefined ? {} : { metadata: { [AUTO_METADATA_KEY]: record } }),
  });
  return { pins, compactions };
}

/** The indices of the segments whose summaries are to be written (not supplied). */
export function summariesToWrite(preparation: RealizablePreparation): boolean[] {
  return preparation.plan.segments.map((_, index) => needsSummary(preparation.plan, index));
}
