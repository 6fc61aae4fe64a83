/**
 * Text and JSON for the results of `cxc conversation compact`: the timeline (docs/compaction-model.md, "The timeline"),
 * the dry-run token lines (`turns 2..8 (7 total, reasoning + tools): 48.2k → 3.1k tokens`), and the
 * summary check's list of what a summary lost. Turn numbers shown to people are 1-based.
 */
import { describeTurnRange } from "../../core/labels.js";
import { sanitizeTerminalText } from "../../core/sanitize.js";
import type { LossKind, SummaryLosses } from "../../core/summary-check.js";
import { formatTokenCount } from "../../core/tokens.js";
import type { CompactionRunResult, RunSegment } from "./run.js";

const LOSS_KINDS: readonly LossKind[] = ["paths", "identifiers", "numbers", "constraints"];

/** How many lost items of each kind the text output names. */
const LOSSES_SHOWN = 8;

function rangeText(from: number, to: number): string {
  return describeTurnRange(from + 1, to + 1);
}

/** `turns 2..8 (7 total, reasoning + tools): 48.2k → 3.1k tokens`. */
export function formatTokenLine(segment: RunSegment): string {
  const { from, to } = segment.segment;
  const label = segment.label === undefined ? "" : `, ${segment.label}`;
  const tokens = segment.tokens;
  const change =
    tokens === undefined
      ? ""
      : `: ${formatTokenCount(tokens.before)} → ${formatTokenCount(tokens.after)} tokens`;
  return `${rangeText(from, to)} (${to - from + 1} total${label})${change}`;
}

/** The lines saying what a summary lost (or that it lost nothing the check looks for). */
export function formatLosses(segment: RunSegment): string[] {
  const summary = segment.summary;
  if (summary === undefined) return [];
  const title = `Summary of ${rangeText(segment.segment.from, segment.segment.to)} (${summary.modelId})`;
  const lines: string[] = [];
  for (const kind of LOSS_KINDS) {
    const items = summary.losses[kind];
    if (items.length === 0) continue;
    // The check lists the most important first; the display keeps the first few (JSON has them all).
    const shown = items.slice(0, LOSSES_SHOWN);
    const omitted = summary.losses.omitted[kind] + items.length - shown.length;
    const more = omitted > 0 ? ` (and ${omitted} more)` : "";
    const values = shown.map((item) => (kind === "constraints" ? `"${item.value}"` : item.value));
    lines.push(`  ${kind}: ${sanitizeTerminalText(values.join(", "))}${more}`);
  }
  if (lines.length === 0) {
    return [`${title} keeps every path, identifier, number and constraint the summary check looks for.`];
  }
  return [`${title} does not mention:`, ...lines];
}

/** The whole text output of a run. */
export function renderRunText(result: CompactionRunResult): string {
  if (result.kind === "nothing") return result.message;
  const lines = [...result.timeline];
  if (result.dryRun) {
    lines.push("", "Estimated tokens (o200k; summaries estimated with builtin/digest):");
    for (const segment of result.segments) lines.push(`  ${formatTokenLine(segment)}`);
    if (result.totals !== undefined) {
      lines.push(
        `  whole conversation: ${formatTokenCount(result.totals.before)} → ${formatTokenCount(result.totals.after)} tokens`,
      );
    }
  }
  for (const segment of result.segments) {
    const losses = formatLosses(segment);
    if (losses.length > 0) lines.push("", ...losses);
  }
  return lines.join("\n");
}

function lossesToJson(losses: SummaryLosses): Record<string, unknown> {
  const json: Record<string, unknown> = {};
  for (const kind of LOSS_KINDS) json[kind] = losses[kind].map((item) => item.value);
  json.omitted = { ...losses.omitted };
  return json;
}

/** The JSON document of a run (stable keys; turn numbers 1-based). */
export function runToJson(id: string, result: CompactionRunResult): Record<string, unknown> {
  if (result.kind === "nothing") {
    return { id, dry_run: false, compacted: false, message: result.message, compactions: [], timeline: [] };
  }
  return {
    id,
    dry_run: result.dryRun,
    compacted: !result.dryRun,
    turn_count: result.turnCount,
    compactions: result.segments.map((segment) => ({
      id: segment.compaction?.id ?? null,
      from_turn: segment.segment.from + 1,
      to_turn: segment.segment.to + 1,
      total: segment.segment.to - segment.segment.from + 1,
      label: segment.label ?? null,
      reasoning: segment.segment.reasoning !== undefined,
      tool_calls: segment.segment.toolCalls ?? null,
      summary:
        segment.summary === undefined
          ? segment.segment.summary === undefined
            ? null
            : { recipe: null, path: null, lost: null }
          : {
              recipe: segment.summary.modelId,
              path: segment.summary.path ?? null,
              lost: lossesToJson(segment.summary.losses),
            },
      source: segment.compaction?.source ?? "user",
      note: segment.compaction?.note ?? null,
      tokens: segment.tokens ?? null,
    })),
    existing: result.existing.map((segment) => ({ from_turn: segment.from + 1, to_turn: segment.to + 1 })),
    timeline: [...result.timeline],
    tokens: result.totals ?? null,
  };
}
