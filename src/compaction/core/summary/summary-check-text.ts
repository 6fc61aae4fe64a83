/**
 * The summary check's report as text, the same wherever a summary is approved: `compact -s`, a
 * review's `--continue` and its `propose_compaction` results, the `compact` tool's approval prompt
 * and its result to the model. Pure. See docs/compaction.md ("The summary check").
 *
 *   The summary of turns 1..8 (builtin/digest) does not mention 23 items; the 10 that matter most:
 *     identifier  parse_since — named by the user in turn 2; used in tool calls
 *     number      200 ms — the user's, turn 1
 *     … and 13 more (--format json lists them all)
 *
 * Paths and the user's binding sentences are not among them: the facts block after the summary
 * carries them exactly (compaction/core/keeping.ts).
 */
import type { LossKind, LostItem, SummaryLosses } from "./check.js";

/** How many items a report shows before "and N more". */
export const SHOWN_LOSSES = 10;

/** Options of `formatLosses`. */
export interface LossReportOptions {
  /** What was checked, e.g. `Summary of turns 1..8 (builtin/digest)`, `The summary`. */
  readonly title: string;
  /** Most items shown; default `SHOWN_LOSSES`. */
  readonly limit?: number;
  /** Put before every item line; default two spaces. */
  readonly indent?: string;
  /** Said after "and N more", e.g. ` (--format json lists them all)`. */
  readonly moreHint?: string;
}

const KIND_WIDTH = Math.max(...(["identifier", "number"] satisfies LossKind[]).map((kind) => kind.length));
const LONGEST_VALUE = 160;

/** `n item` or `n items`. */
function items(count: number): string {
  return `${count} ${count === 1 ? "item" : "items"}`;
}

/** One item: its kind, its value, why it counts. */
export function formatLostItem(item: LostItem): string {
  const oneLine = item.value.replace(/\s+/g, " ").trim();
  const value = oneLine.length > LONGEST_VALUE ? `${oneLine.slice(0, LONGEST_VALUE - 1)}…` : oneLine;
  return `${item.kind.padEnd(KIND_WIDTH)}  ${value} — ${item.reason}`;
}

/** The report's lines: a heading, the top items, and how many more there are. */
export function formatLosses(losses: SummaryLosses, options: LossReportOptions): string[] {
  const limit = Math.max(1, options.limit ?? SHOWN_LOSSES);
  const indent = options.indent ?? "  ";
  const total = losses.items.length;
  if (total === 0) {
    return [`${options.title} mentions every identifier and number the summary check looks for.`];
  }
  const heading =
    total > limit
      ? `${options.title} does not mention ${items(total)}; the ${limit} that matter most:`
      : `${options.title} does not mention ${total === 1 ? "this item" : `these ${items(total)}`}:`;
  const lines = [heading, ...losses.items.slice(0, limit).map((item) => `${indent}${formatLostItem(item)}`)];
  if (total > limit) lines.push(`${indent}… and ${total - limit} more${options.moreHint ?? ""}`);
  return lines;
}
