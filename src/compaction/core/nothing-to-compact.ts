/**
 * Why a compaction run compacted nothing, in one sentence after jp's `Nothing to compact.`: what
 * each rule keeps and how many turns there are (`the conversation has 2 turns, and the default
 * rule keeps the first turn and the last turn`), or that what a rule would compact is pinned. Pure.
 */
import type { NothingWhy } from "./plan.js";
import type { CompactionRule } from "./rules.js";
import { ruleRange } from "./plan.js";
import type { Bound } from "../../core/position/bound.js";
import { formatDuration } from "../../core/position/duration.js";
import { describeTurnRange, formatCount } from "../../core/present/labels.js";

/** What a bound keeps on its side, or undefined when it keeps nothing (`..-3` starts at the start). */
function describeKeep(bound: Bound, side: "start" | "end"): string | undefined {
  const edge = side === "start" ? "first" : "last";
  switch (bound.kind) {
    case "count": {
      if (bound.count === 0) return undefined;
      const unit = bound.unit === "calls" ? "tool call" : bound.unit === "cycles" ? "cycle" : "turn";
      return bound.count === 1 ? `the ${edge} ${unit}` : `the ${edge} ${formatCount(bound.count, unit)}`;
    }
    case "turn": {
      const at = `turn ${bound.turn + 1}${bound.cycle === undefined ? "" : `, cycle ${bound.cycle + 1}`}`;
      return side === "start" ? `everything before ${at}` : `everything after ${at}`;
    }
    case "time":
    case "started": {
      const time = bound.time;
      const when =
        "at" in time
          ? time.at
          : "afterFirstTurn" in time
            ? `${formatDuration(time.afterFirstTurn)} after the first turn`
            : `${formatDuration(time.beforeNow)} ago`;
      return side === "start" ? `the turns started before ${when}` : `the turns started after ${when}`;
    }
    case "after-last-compaction":
      return "everything up to the last compaction";
  }
}

/** What one rule keeps: `keeps the first turn and the last turn`. */
function describeRuleKeeps(rule: CompactionRule): string {
  const range = ruleRange(rule);
  const kept = [
    range.start === undefined ? undefined : describeKeep(range.start, "start"),
    range.end === undefined ? undefined : describeKeep(range.end, "end"),
  ].filter((part) => part !== undefined);
  return kept.length === 0 ? "selects no turn" : `keeps ${kept.join(" and ")}`;
}

/**
 * The reason a run compacted nothing. `rules` are the rules the plan saw (ranges applied);
 * `defaultRule`: they are the built-in rule, not the user's.
 */
export function describeNothingToCompact(options: {
  readonly rules: readonly CompactionRule[];
  readonly why: readonly NothingWhy[] | undefined;
  readonly turnCount: number;
  readonly defaultRule: boolean;
}): string {
  const { rules, turnCount } = options;
  if (turnCount === 0) return "the conversation has no turns";
  const name = (index: number): string =>
    options.defaultRule ? "the default rule" : rules.length === 1 ? "the rule" : `rule ${index + 1}`;
  const reasons = (options.why ?? []).map((why) =>
    why.kind === "outside"
      ? `${name(why.ruleIndex)} ${describeRuleKeeps(rules[why.ruleIndex]!)}`
      : `what ${name(why.ruleIndex)} would compact (${describeTurnRange(why.from + 1, why.to + 1)}) is pinned`,
  );
  const turns = `the conversation has ${formatCount(turnCount, "turn")}`;
  return reasons.length === 0 ? turns : `${turns}, and ${reasons.join("; ")}`;
}
