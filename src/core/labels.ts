/**
 * Labels of compactions, as jp prints them in `show` and the timeline, and the two spellings every
 * message shares: turn ranges (`turns A..B`) and counts (`1 turn`, `2 turns`, never with an `(s)`
 * suffix). Pure, and free of schema code so the commands that only display conversations stay
 * light.
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

/**
 * A turn range as people read it: jp's 1-based, inclusive `turns A..B`, a single turn too
 * (`turns 3..3`). Takes 1-based numbers.
 */
export function describeTurnRange(first: number, last: number): string {
  return `turns ${first}..${last}`;
}

/** `1 compaction`, `2 compactions`; `plural` for the irregular ones (`entry`, `entries`). */
export function formatCount(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}

/** The `show` line of a compaction: `turns A..B (N total, LABEL)` (1-based). */
export function describeCompaction(compaction: Compaction): string {
  const label = compaction.summary !== undefined ? "summary" : describePolicies(compaction);
  const total = compaction.to_turn - compaction.from_turn + 1;
  const suffix = label === undefined ? "" : `, ${label}`;
  return `${describeTurnRange(compaction.from_turn + 1, compaction.to_turn + 1)} (${total} total${suffix})`;
}
