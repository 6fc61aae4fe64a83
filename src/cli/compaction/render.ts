/**
 * Text and JSON for the results of `cxc conversation compact`: the timeline (docs/compaction-model.md, "The timeline"),
 * the dry-run token lines (`turns 2..8 (7 total, reasoning + tools): 48.2k → 3.1k tokens`), and the
 * summary check's list of what a summary lost. Turn and cycle numbers shown to people are 1-based
 * (docs/compaction.md, "Inside a turn").
 */
import { describeRange, describeSizedRange } from "../../core/present/labels.js";
import { sanitizeTerminalText } from "../../core/present/sanitize.js";
import type { SummaryLosses } from "../../compaction/core/summary/check.js";
import { formatLosses as formatLossLines } from "../../compaction/core/summary/summary-check-text.js";
import { compactionCostToJson, describeCompactionCost } from "../../compaction/core/advisor/cache-cost.js";
import { describeContextChange } from "../../compaction/core/advisor/context-gauge.js";
import { formatTokenCount } from "../../core/conversation/tokens.js";
import type { CompactionRunResult, RunSegment } from "./run.js";

/**
 * `turns 2..8 (7 total, reasoning + tools): 48.2k → 3.1k tokens`; inside a turn
 * `turn 4, cycles 1..37 (37 cycles, tool responses): …`.
 */
export function formatTokenLine(segment: RunSegment): string {
  const tokens = segment.tokens;
  const change =
    tokens === undefined
      ? ""
      : `: ${formatTokenCount(tokens.before)} → ${formatTokenCount(tokens.after)} tokens`;
  return `${describeSizedRange(segment.segment, segment.label)}${change}`;
}

/** A 0-based cycle as JSON shows it: 1-based, `null` when the range has no cycle bound there. */
function cycleNumber(cycle: number | undefined): number | null {
  return cycle === undefined ? null : cycle + 1;
}

/** The summary check's lines for a segment's summary (nothing for a segment without one). */
export function formatLosses(segment: RunSegment): string[] {
  const summary = segment.summary;
  if (summary === undefined) return [];
  const title = `The summary of ${describeRange(segment.segment)} (${summary.modelId})`;
  return formatLossLines(summary.losses, { title, moreHint: " (--format json lists them all)" }).map(
    sanitizeTerminalText,
  );
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
    if (result.context !== undefined) {
      lines.push("", describeContextChange(result.context.before, result.context.after));
      if (result.context.cost !== undefined) lines.push(describeCompactionCost(result.context.cost));
    }
  }
  for (const segment of result.segments) {
    const losses = formatLosses(segment);
    if (losses.length > 0) lines.push("", ...losses);
  }
  return lines.join("\n");
}

/** Every lost item, ranked, with its kind and reason (turns 1-based). */
function lossesToJson(losses: SummaryLosses): Record<string, unknown> {
  return {
    total: losses.items.length,
    checked: losses.checked,
    items: losses.items.map((item) => ({
      kind: item.kind,
      value: item.value,
      reason: item.reason,
      score: item.score,
      turns: item.turns.map((turn) => turn + 1),
    })),
  };
}

/** The JSON document of a run (stable keys; turn numbers 1-based). */
export function runToJson(id: string, result: CompactionRunResult): Record<string, unknown> {
  if (result.kind === "nothing") {
    return {
      id,
      dry_run: false,
      compacted: false,
      message: result.message,
      reason: result.reason ?? null,
      compactions: [],
      timeline: [],
    };
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
      from_cycle: cycleNumber(segment.segment.fromCycle),
      to_cycle: cycleNumber(segment.segment.toCycle),
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
    existing: result.existing.map((segment) => ({
      from_turn: segment.from + 1,
      to_turn: segment.to + 1,
      from_cycle: cycleNumber(segment.fromCycle),
      to_cycle: cycleNumber(segment.toCycle),
    })),
    timeline: [...result.timeline],
    tokens: result.totals ?? null,
    context:
      result.context === undefined
        ? null
        : {
            before: result.context.before.tokens,
            after: result.context.after.tokens,
            source_before: result.context.before.source,
            source_after: result.context.after.source,
            cache: result.context.cost === undefined ? null : compactionCostToJson(result.context.cost),
          },
  };
}
