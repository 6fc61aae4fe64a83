/**
 * The types of compaction planning, shared by the planner (plan-compaction.ts), its cycle-precise
 * half (plan-cycles.ts) and their callers; a leaf module so the two planners import no cycle.
 */
import type { BoundResolution, RuleBound, TurnRange } from "../position/bounds.js";
import type { CliBound } from "../position/cli-bounds.js";
import type {
  CompactionOrigin,
  CompactionSource,
  ReasoningPolicy,
  SummaryPolicy,
  ToolCallsPolicy,
} from "../conversation/events.js";
import type { CompactionRule, SummaryRule } from "./rules.js";

/** Range flags of `compact` that narrow every rule (docs/compaction-model.md, "Range bounds": precedence). Turn numbers are 1-based. */
export interface CompactionOverrides {
  from?: CliBound;
  to?: CliBound;
  first?: number;
  last?: number;
  /** `--turn A..B`; an absent end is open. */
  turn?: { from?: number; to?: number };
  keepFirst?: RuleBound;
  keepLast?: RuleBound;
}

/** Inputs of `planCompaction`. */
export interface PlanCompactionOptions {
  rules: readonly CompactionRule[];
  overrides?: CompactionOverrides;
  /** RFC 3339 time of the run, for duration bounds. */
  now: string;
  source?: CompactionSource;
  note?: string;
  /** `supplied` when the summary text is given rather than generated (never widened). */
  summarySource?: SummaryPolicy["source"];
}

/** One planned compaction: a rule's resolved range and policies. Turns are 0-based. */
export interface CompactionSegment extends CompactionShape {
  ruleIndex: number;
  from: number;
  to: number;
  fromCycle?: number;
  toCycle?: number;
  /** The range before summary-overlap extension. */
  requested: TurnRange;
  reasoning?: "strip";
  toolCalls?: ToolCallsPolicy;
  summary?: SummaryRule;
}

/** A plan that compacts something. */
export type PlannedCompaction = Extract<CompactionPlan, { kind: "planned" }>;

/** A summary a supplied range would split. */
export interface SummaryConflict {
  message: string;
  /** The existing summaries involved (0-based turns). */
  conflicts: { from: number; to: number; compactionId: string }[];
}

/** The outcome of planning. */
export type CompactionPlan =
  | { kind: "planned"; segments: CompactionSegment[]; source: CompactionSource; note?: string }
  | { kind: "nothing-to-compact"; message: "Nothing to compact." }
  | { kind: "invalid"; message: string }
  | ({ kind: "conflict" } & SummaryConflict);

/** What the overrides impose on a side: a turn-level bound, or a cycle bound (`--keep-last "5 calls"`). */
export interface ImposedBounds {
  from?: BoundResolution;
  to?: BoundResolution;
  /** Set when the side's winning override is a cycle bound (then `from`/`to` select nothing). */
  cycleFrom?: RuleBound;
  cycleTo?: RuleBound;
}

/** A summary whose text is given (typed by a person, written by the assistant), not generated. */
export interface SuppliedSummary {
  readonly text: string;
  readonly author: "user" | "assistant";
}

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
}

/** What the shell adds to a segment to make it an event. */
export interface CompactionEventOptions {
  id: string;
  ts: string;
  source: CompactionSource;
  note?: string;
  /** The generated summary; required when the shape has a `summary` rule. */
  summary?: SummaryPolicy;
  deferredUntilTurn?: number;
  metadata?: Record<string, unknown>;
  /** Set when the overlay is another agent's own compaction, read from its session file. */
  origin?: CompactionOrigin;
}
