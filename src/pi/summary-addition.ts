/**
 * What cxc adds to pi's summary after pi compacts: the same summary check `cxc conversation
 * compact -s` shows (src/core/summary/check.ts), over the raw turns the summary replaces, kept to
 * the two kinds that must survive (the paths the tool calls touched, the user's binding
 * sentences). pi's own file lists are part of the summary it checks, so a path pi listed is not
 * reported again. Pure.
 */
import type { CycleRange } from "../core/conversation/cycles.js";
import { checkSummary } from "../core/summary/check.js";
import { formatLosses } from "../core/present/summary-check-text.js";
import type { Turn } from "../core/conversation/turns.js";

/** The section to append to pi's summary, or undefined when it mentions everything that matters. */
export function summaryCheckAddition(
  turns: readonly Turn[],
  range: CycleRange,
  summary: string,
): string | undefined {
  const losses = checkSummary(turns, range, summary);
  const items = losses.items.filter((item) => item.kind === "path" || item.kind === "constraint");
  if (items.length === 0) return undefined;
  const lines = formatLosses({ items, checked: losses.checked }, { title: "The summary above", limit: 15 });
  return ["", "", "## cxc's summary check: also in the compacted turns", "", ...lines].join("\n");
}
