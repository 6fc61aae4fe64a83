/**
 * The one constructor of `compaction` events, and what it is built from. Pure.
 *
 * Every compaction cxc writes (by `compact`, `fork -k`, `q -k`, automatic compaction, the
 * `compact` tool, an agreed review, and the agents' own compactions read on import) is built by
 * `buildCompactionEvent` (test/compaction-constructor.test.ts holds every other file to it). Keys
 * come in jp's order followed by cxc's additions, so the written JSON reads like jp's.
 */
import {
  type Compaction,
  type CompactionOrigin,
  type CompactionSource,
  NATIVE_SUMMARY_FEATURE,
  type ReasoningPolicy,
  type SummaryPolicy,
  type ToolCallsPolicy,
} from "../../core/conversation/events.js";
import { describeRange } from "../../core/present/labels.js";
import type { SuppliedSummary, SummaryRule } from "./rules.js";

/** What a compaction event is made of: a raw range and its policies (0-based turns). */
export interface CompactionShape {
  readonly from: number;
  readonly to: number;
  /**
   * Cycle-precise shapes (docs/decisions/006-tool-cycle-bounds.md): `toCycle` is the last covered
   * cycle of `to`, and `fromCycle`, when set, the first covered cycle of `from`. Absent: whole
   * turns. The event then carries its range ends and policies in its `cycles` object.
   */
  readonly fromCycle?: number;
  readonly toCycle?: number;
  readonly reasoning?: ReasoningPolicy;
  readonly toolCalls?: ToolCallsPolicy;
  /** A summary to generate: the event needs its text (`CompactionEventOptions.summary`). */
  readonly summary?: SummaryRule;
  /** A summary whose text is given; never together with `summary`. */
  readonly supplied?: SuppliedSummary;
  /** A summary's facts block (keeping.ts), stored with its text and shown after it. */
  readonly facts?: string;
  /** The messages of the range the keep rules matched (`pinned_events`). */
  readonly pinnedEvents?: readonly string[];
}

/** What the shell adds to a shape to make it an event. */
export interface CompactionEventOptions {
  readonly id: string;
  readonly ts: string;
  readonly source: CompactionSource;
  readonly note?: string;
  /** The generated summary; required when the shape has a `summary` rule. */
  readonly summary?: SummaryPolicy;
  readonly deferredUntilTurn?: number;
  readonly metadata?: Readonly<Record<string, unknown>>;
  /** Set when the overlay is another agent's own compaction, read from its session file. */
  readonly origin?: CompactionOrigin;
}

function summaryPolicyOf(shape: CompactionShape, options: CompactionEventOptions): SummaryPolicy | undefined {
  const facts = shape.facts === undefined || shape.facts === "" ? {} : { facts: shape.facts };
  if (shape.supplied !== undefined) {
    const { native } = shape.supplied;
    return {
      summary: shape.supplied.text,
      source: "supplied",
      author: shape.supplied.author,
      ...facts,
      ...(native === undefined ? {} : { native: { ...native } }),
    };
  }
  if (shape.summary === undefined) return undefined;
  if (options.summary === undefined) {
    throw new Error(`the summary of ${describeRange(shape)} needs its text before it becomes an event`);
  }
  return { ...options.summary, ...facts };
}

/** Builds a `compaction` event; see the module comment. */
export function buildCompactionEvent(shape: CompactionShape, options: CompactionEventOptions): Compaction {
  if (shape.fromCycle !== undefined && shape.toCycle === undefined) {
    throw new Error(`the compaction of ${describeRange(shape)} starts at a cycle but names no last cycle`);
  }
  const summary = summaryPolicyOf(shape, options);
  const policies = {
    ...(summary === undefined ? {} : { summary }),
    ...(shape.reasoning === undefined ? {} : { reasoning: shape.reasoning }),
    ...(shape.toolCalls === undefined ? {} : { tool_calls: { ...shape.toolCalls } }),
  };
  const range =
    shape.toCycle === undefined
      ? policies
      : {
          cycles: {
            ...(shape.fromCycle === undefined ? {} : { from: shape.fromCycle }),
            to: shape.toCycle,
            ...policies,
          },
        };
  return {
    type: "compaction",
    id: options.id,
    ts: options.ts,
    from_turn: shape.from,
    to_turn: shape.to,
    ...range,
    source: options.source,
    ...(options.note === undefined ? {} : { note: options.note }),
    ...(options.deferredUntilTurn === undefined ? {} : { deferred_until_turn: options.deferredUntilTurn }),
    ...(options.metadata === undefined ? {} : { metadata: { ...options.metadata } }),
    ...(options.origin === undefined ? {} : { origin: { ...options.origin } }),
    ...(shape.pinnedEvents === undefined || shape.pinnedEvents.length === 0
      ? {}
      : { pinned_events: [...shape.pinnedEvents] }),
    // A provider's own summary must go back as written: a cxc that cannot honour it refuses the log.
    ...(summary?.native === undefined ? {} : { requires: [NATIVE_SUMMARY_FEATURE] }),
  };
}

/** The same compaction in force at once: what the view is once a deferred compaction activates. */
export function withoutDeferral(compaction: Compaction): Compaction {
  if (compaction.deferred_until_turn === undefined) return compaction;
  const active: Compaction = { ...compaction };
  delete active.deferred_until_turn;
  return active;
}
