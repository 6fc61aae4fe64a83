/**
 * What planning a `compact` tool call produces (compact-tool.ts plans it, compact-tool-preview.ts
 * describes it). Types only, so both modules can name them without importing each other.
 */
import type { CompactToolRule } from "./compact-tool-arguments.js";
import type { Compaction } from "../../../core/conversation/events.js";
import type { ProjectedView } from "../../../core/conversation/projection.js";
import type { SummaryLosses } from "../summary/check.js";

/** One planned rule: its resolved raw range, its event, and what the user needs to judge it. */
export interface PlannedCompactRule {
  /** 0-based position in the call's `rules`. */
  readonly index: number;
  readonly rule: CompactToolRule;
  /** Raw turns, 0-based, inclusive. */
  readonly from: number;
  readonly to: number;
  /** For a range inside the turn in progress (or ending there): its first and last raw cycle. */
  readonly fromCycle?: number;
  readonly toCycle?: number;
  readonly compaction: Compaction;
  /** Tokens the projected view shrinks by once this rule is active (negative: it grows). */
  readonly tokensSaved: number;
  /** The projected view just before and just after this rule, every recorded compaction active. */
  readonly before: ProjectedView;
  readonly after: ProjectedView;
  /** For a summary: what it does not mention of the raw turns it replaces (summary-check.ts). */
  readonly losses?: SummaryLosses;
}

/** A planned call, or the message that tells the model what to fix. */
export type CompactToolPlan =
  | {
      readonly ok: true;
      readonly rules: readonly PlannedCompactRule[];
      /** The turn the compactions activate at (0-based): the next one. */
      readonly activatesAtTurn: number;
    }
  | { readonly ok: false; readonly message: string };
