/**
 * `cxc conversation stats [ID]`: where a conversation's tokens go, per kind (user, assistant,
 * reasoning, tool arguments, tool output, summaries) and per turn, for the raw history and for the
 * projected view the model sees. Counts are o200k BPE estimates; when a turn carries usage a
 * provider reported, the estimate is corrected by the factor that usage implies (core/tokens.ts),
 * and the projected view is corrected by the same factor.
 *
 * The first line is the context gauge (core/context-gauge.ts): the context used against the
 * model's window, what the compactions in force save and what the deferred ones will save.
 *
 * Text is a compact bar chart; `--format json` gives the numbers with stable keys.
 */
import type { Command } from "commander";
import type { ContextGauge } from "../../../core/context-gauge.js";
import type { ConversationEvent } from "../../../core/events.js";
import type { TokenSummary } from "../../../core/tokens.js";
import { CliContext } from "../../context.js";

const BAR_WIDTH = 28;

export function registerStats(conversation: Command): void {
  conversation
    .command("stats")
    .description("tokens per kind and per turn, raw and as the model sees it (default: the active one)")
    .argument("[ID]", "conversation id or unique prefix")
    .action(async (idArgument: string | undefined, _options: unknown, command: Command) => {
      const context = CliContext.from(command);
      const format = context.format();
      const { projectConversation } = await import("../../../core/projection.js");
      const { summarizeTokens } = await import("../../../core/tokens.js");
      const { groupTurns } = await import("../../../core/turns.js");
      const id = context.store.resolveTarget(idArgument);
      const conversation = context.store.load(id);
      for (const warning of conversation.warnings) context.warn(warning);
      const countTokens = await context.store.tokenCounter();
      const raw = summarizeTokens(groupTurns(conversation.events), countTokens);
      const view = projectConversation(conversation.events);
      const projected = summarizeTokens(
        view.turns.map((turn, index) => ({ index, events: turn.events })),
        countTokens,
      );
      const gauge = await contextGauge(context, conversation.events, countTokens);
      const labels = view.turns.map((turn) =>
        turn.origin.kind === "kept"
          ? `turn ${turn.origin.turn + 1}`
          : `turns ${turn.origin.from + 1}–${turn.origin.to + 1} (summary)`,
      );
      if (format === "json") {
        context.outJson({
          ...statsToJson(
            id,
            raw,
            projected,
            view.turns.map((turn) => turn.origin),
          ),
          context: gaugeToJson(gauge),
        });
        return;
      }
      const { describeContextGauge } = await import("../../../core/context-gauge.js");
      context.out(`Context: ${describeContextGauge(gauge, { complete: true })}`);
      context.out(await renderStatsText(raw, projected, labels));
    });
}

/** The gauge against the window of the model the next turn would use. */
async function contextGauge(
  context: CliContext,
  events: readonly ConversationEvent[],
  countTokens: (text: string) => number,
): Promise<ContextGauge> {
  const { computeContextGauge } = await import("../../../core/context-gauge.js");
  const { configuredAssistantModel } = await import("../../../core/summarizer.js");
  const { stickyModel } = await import("../../../query/settings.js");
  const { resolveContextWindow } = await import("../../../query/context-window.js");
  const { loadConfig } = await import("../../config.js");
  const config = loadConfig({ cwd: context.cwd, env: context.env, overlays: context.options.cfg });
  for (const warning of config.warnings) context.warn(warning);
  const model = stickyModel(events) ?? configuredAssistantModel(config.values);
  const window = await resolveContextWindow(model, config.values, context.env);
  return computeContextGauge(events, { countTokens, window });
}

function gaugeToJson(gauge: ContextGauge): Record<string, unknown> {
  return {
    tokens: gauge.tokens,
    tokens_source: gauge.tokensSource,
    window: gauge.window.tokens,
    window_source: gauge.window.source,
    percent: Math.round(gauge.percent * 10) / 10,
    compactions: gauge.compactions,
    saved: gauge.saved,
    deferred_compactions: gauge.deferredCompactions,
    deferred_saving: gauge.deferredSaving,
  };
}

function corrected(summary: TokenSummary, factor: number | undefined): number {
  return factor === undefined ? summary.total : Math.round(summary.total * factor);
}

type Origin = { kind: "kept"; turn: number } | { kind: "summary"; from: number; to: number };

function statsToJson(
  id: string,
  raw: TokenSummary,
  projected: TokenSummary,
  origins: readonly Origin[],
): Record<string, unknown> {
  const factor = raw.correctionFactor;
  return {
    id,
    tokenizer: "o200k_base",
    correction_factor: factor ?? null,
    raw: {
      total: raw.total,
      corrected_total: corrected(raw, factor),
      by_kind: { ...raw.byKind },
      turns: raw.turns.map((turn) => ({
        turn: turn.index + 1,
        total: turn.total,
        by_kind: { ...turn.byKind },
        reported_usage: turn.usage ?? null,
      })),
    },
    projected: {
      total: projected.total,
      corrected_total: corrected(projected, factor),
      by_kind: { ...projected.byKind },
      turns: projected.turns.map((turn, position) => {
        const origin = origins[position]!;
        return {
          kind: origin.kind,
          from_turn: (origin.kind === "kept" ? origin.turn : origin.from) + 1,
          to_turn: (origin.kind === "kept" ? origin.turn : origin.to) + 1,
          total: turn.total,
          by_kind: { ...turn.byKind },
        };
      }),
    },
    saved: raw.total - projected.total,
  };
}

async function renderStatsText(
  raw: TokenSummary,
  projected: TokenSummary,
  projectedLabels: readonly string[],
): Promise<string> {
  const { formatTokenCount, renderTokenBars, tokenKindRows } = await import("../../../core/tokens.js");
  const factor = raw.correctionFactor;
  const total = (summary: TokenSummary): string => {
    const estimate = formatTokenCount(summary.total);
    return factor === undefined
      ? `${estimate} tokens`
      : `${estimate} tokens (≈${formatTokenCount(corrected(summary, factor))} by reported usage, ×${factor.toFixed(2)})`;
  };
  const saved = raw.total - projected.total;
  const percent = raw.total === 0 ? 0 : Math.round((saved / raw.total) * 100);
  const lines = [
    `Raw history: ${total(raw)}`,
    renderTokenBars(tokenKindRows(raw.byKind), BAR_WIDTH),
    "",
    `Projected view (what the model sees): ${total(projected)}; ${formatTokenCount(saved)} saved (${percent}%)`,
    renderTokenBars(tokenKindRows(projected.byKind), BAR_WIDTH),
    "",
    "Per turn (projected):",
    renderTokenBars(
      projected.turns.map((turn, position) => ({ label: projectedLabels[position]!, value: turn.total })),
      BAR_WIDTH,
    ),
  ];
  return lines.filter((line, position) => line !== "" || lines[position - 1] !== "").join("\n");
}
