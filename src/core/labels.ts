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

/** The `show` line of a compaction: `turns A..B (N total, LABEL)` (1-based). */
export function describeCompaction(compaction: Compaction): string {
  const label = compaction.summary !== undefined ? "summary" : describePolicies(compaction);
  const total = compaction.to_turn - compaction.from_turn + 1;
  const suffix = label === undefined ? "" : `, ${label}`;
  return `turns ${compaction.from_turn + 1}..${compaction.to_turn + 1} (${total} total${suffix})`;
}
