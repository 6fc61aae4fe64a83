/**
 * Labels of compactions, as jp prints them in `show` and the timeline. Pure, and free of schema
 * code so the commands that only display conversations stay light.
 */
import type { Compaction, ToolCallsPolicy } from "./events.js";

/**
 * The label of mechanical policies (docs/compaction-model.md, "The timeline"): `reasoning`, then `tools` / `tool requests` /
 * `tool responses` / `tools omitted`, joined with ` + `; undefined when there is nothing to say.
 */
export function describePolicies(policies: {
  reasoning?: "strip" | undefined;
  tool_calls?: ToolCallsPolicy | undefined;
}): string | undefined {
  const parts: string[] = [];
  if (policies.reasoning !== undefined) parts.push("reasoning");
  const tools = policies.tool_calls;
  if (tools?.policy === "omit") parts.push("tools omitted");
  else if (tools?.request && tools.response) parts.push("tools");
  else if (tools?.request) parts.push("tool requests");
  else if (tools?.response) parts.push("tool responses");
  return parts.length === 0 ? undefined : parts.join(" + ");
}

/** jp's label of a compaction: `summary` when it has one, else the policy label, else undefined. */
export function compactionLabel(compaction: {
  summary?: unknown;
  reasoning?: "strip" | undefined;
  tool_calls?: ToolCallsPolicy | undefined;
}): string | undefined {
  return compaction.summary !== undefined ? "summary" : describePolicies(compaction);
}

/**
 * jp's text of a compaction item: `turns A..B (N total[, LABEL])`, from 0-based turns (jp's
 * `turns 1..5 (5 total, summary)`, `turns 3..3 (1 total, reasoning + tools)`, `turns 1..2 (2 total)`).
 */
export function formatCompactionItem(fromTurn: number, toTurn: number, label: string | undefined): string {
  const suffix = label === undefined ? "" : `, ${label}`;
  return `turns ${fromTurn + 1}..${toTurn + 1} (${toTurn - fromTurn + 1} total${suffix})`;
}

/** The `show` line of a compaction: `turns A..B (N total, LABEL)` (1-based). */
export function describeCompaction(compaction: Compaction): string {
  return formatCompactionItem(compaction.from_turn, compaction.to_turn, compactionLabel(compaction));
}
