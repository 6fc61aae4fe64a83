/**
 * `cxc conversation stats [ID]`: where a conversation's tokens go, per kind (user, assistant,
 * reasoning, tool arguments, tool output, summaries) and per turn, for the raw history and for the
 * projected view the model sees. Counts are o200k BPE estimates; when a turn carries usage a
 * provider reported, each is also put on the provider's scale (`measureProviderScale`, the one the
 * context gauge uses), so the gauge's numbers and these agree.
 *
 * Text is a compact bar chart; `--format json` gives the numbers with stable keys. A projected
 * turn whose older tool results are masked (replaced by placeholders, docs/compaction.md) says how
 * many.
 *
 * The first line is the context gauge (compaction/core/advisor/context-gauge.ts): the context of the next
 * request (compaction/core/advisor/next-request.ts) against the model's window, where the figure comes from,
 * what the compactions in force save and what the deferred ones save from the next turn; then
 * cxc's own estimate beside it while the two differ, or why the figure is an estimate. After
 * the per-turn bars: what the conversation's requests cost from their reported usage (cache reads
 * and writes included) and, apart from them, what cxc spent (its summaries, the advisor's
 * decision calls), in dollars where the models' prices are known (core/prices.ts).
 * A conversation imported from an agent or jp ends with where it came from.
 */
import type { Command } from "commander";
import type { DecisionUsage } from "../../../compaction/core/advisor/advisor.js";
import type { ContextGauge } from "../../../compaction/core/advisor/context-gauge.js";
import type { KeptCost } from "../../../compaction/core/keeping.js";
import type { ConversationEvent } from "../../../core/conversation/events.js";
import type { ProjectedTurn } from "../../../core/conversation/projection.js";
import type { TokenSummary } from "../../../core/conversation/tokens.js";
import { conversationSource } from "../../../core/interop/agents.js";
import { describeOwnTurnRange, formatCount } from "../../../core/present/labels.js";
import type { CliContext } from "../../context.js";
import { projectConversation } from "../../../core/conversation/projection.js";
import {
  summarizeTokens,
  formatTokenCount,
  renderTokenBars,
  tokenKindRows,
} from "../../../core/conversation/tokens.js";
import { groupTurns } from "../../../core/conversation/turns.js";
import { defineOnLoadedConversation } from "../../targets.js";
import { keptCost } from "../../../compaction/core/keeping.js";
import { describeContextGauge } from "../../../compaction/core/advisor/context-gauge.js";
import { sanitizeLine } from "../../../core/present/sanitize.js";
import { measureContextGauge, modelPrices, nextTurnModel } from "../../../compaction/context-window.js";
import { readAdvisorSettings } from "../../../compaction/core/advisor/advisor.js";
import type { ConfigTable } from "../../../core/config.js";
import {
  type ConversationSpend,
  conversationSpend,
  formatDollars,
  type PriceSource,
  type SpendTotals,
  usageDollars,
} from "../../../core/prices.js";
import { conversationOverhead } from "../../../query/request-overhead.js";
import { loadConfig } from "../../config.js";
import { sourceName } from "../../../core/interop/agents.js";
import * as agents from "../../../core/interop/agents.js";

const BAR_WIDTH = 28;

/** Defines the command on its entry in the registry (index.ts): flags, help and handler. */
export function define(entry: Command): void {
  defineOnLoadedConversation(
    entry,
    "tokens per kind and per turn, raw and as the model sees it (default: the active one)",
    async (context, format, { id, conversation }) => {
      // The conversation's cached counts (tokens.cache.json): a second `stats` of an unchanged
      // conversation counts nothing and never loads the tokenizer.
      const countTokens = await context.store.tokenCounter(id);
      const raw = summarizeTokens(groupTurns(conversation.events), countTokens);
      const view = projectConversation(conversation.events);
      const projected = summarizeTokens(
        view.turns.map((turn, index) => ({ index, events: turn.events })),
        countTokens,
      );
      const config = loadConfig({ cwd: context.cwd, env: context.env, overlays: context.options.cfg });
      for (const warning of config.warnings) context.warn(warning);
      const modelId = await nextTurnModel(conversation.events, config.values, context.env);
      const gauge = await contextGauge(context, conversation.events, countTokens, config.values, modelId);
      const scale = gauge.scale;
      const kept = keptCost(conversation.events, view, countTokens);
      const labels = view.turns.map((turn) => {
        if (turn.origin.kind !== "kept")
          return `${describeOwnTurnRange(turn.origin.from + 1, turn.origin.to + 1)} (summary)`;
        const masked = turn.strippedResults ?? 0;
        const note = masked === 0 ? "" : ` (${formatCount(masked, "result")} masked)`;
        return `turn ${turn.origin.turn + 1}${note}`;
      });
      // The advisor's decision calls are spent beside the conversation, not in it.
      const decisions = context.store.advisorState(id).decision_usage;
      const spend = spending(conversation.events, decisions, config.values, context.env, modelId);
      const source = agents.conversationSource(conversation.meta);
      const sourceFile = agents.originFile(conversation.meta);
      if (format === "json") {
        context.outJson({
          ...statsToJson(id, raw, projected, view.turns, scale),
          source,
          source_file: sourceFile ?? null,
          context: gaugeToJson(gauge, conversation.meta),
          kept: {
            pinned_messages: kept.pinned.messages,
            pinned_tokens: kept.pinned.tokens,
            facts_blocks: kept.facts.blocks,
            facts_tokens: kept.facts.tokens,
          },
          advisor_decisions: decisions ?? null,
          spent: spendToJson(spend),
        });
        return;
      }
      context.out(`Context: ${describeContextGauge(gauge, { complete: true })}`);
      const aside = await describeFigure(gauge, conversation.meta);
      if (aside !== undefined) context.out(aside);
      const text = await renderStatsText(raw, projected, labels, scale, kept);
      const spent = describeSpend(spend);
      context.out([text, ...(spent.length === 0 ? [] : ["", ...spent])].join("\n"));
      if (source !== "cxc") {
        const from = sourceFile === undefined ? "" : ` (${sanitizeLine(sourceFile)})`;
        context.out(`\nImported from ${agents.sourceName(source)}${from}.`);
      }
    },
  );
}

/**
 * The gauge against the window of the model the next turn would use (as `cxc q` picks it), with
 * the system prompt and tools `cxc q` sends, cxc's own estimate and the provider's scale.
 */
async function contextGauge(
  context: CliContext,
  events: readonly ConversationEvent[],
  countTokens: (text: string) => number,
  config: ConfigTable,
  modelId: string | undefined,
): Promise<ContextGauge> {
  const overhead = await conversationOverhead(events, config, context.env);
  return measureContextGauge(events, {
    modelId,
    config,
    env: context.env,
    countTokens,
    overhead,
    withEstimate: true,
    withScale: true,
  });
}

/**
 * Beside the gauge: while the figure is an agent's own count (an imported session cxc has not taken
 * a turn on), cxc's own estimate when it differs; or why the figure is an estimate.
 */
async function describeFigure(
  gauge: ContextGauge,
  meta: Readonly<Record<string, unknown>>,
): Promise<string | undefined> {
  const why = await estimateExplanation(gauge, meta);
  if (why !== undefined) return `  ${why}`;
  const derivation = describeDerivation(gauge, formatTokenCount);
  if (derivation !== undefined) return `  ${derivation}`;
  const estimate = gauge.estimate;
  if (gauge.reportedBy === undefined || estimate === undefined || !differs(estimate, gauge.tokens))
    return undefined;
  return (
    `  cxc's own estimate: ${formatTokenCount(estimate)} tokens ` +
    "(the conversation alone: the agent's system prompt and tools are not in its session file)"
  );
}

/**
 * `= 34.6k reported by the last request − 1.1k of reasoning the provider does not send again −
 * 31.3k saved by what changed since (×0.90)`: where a figure from usage that is not the reported
 * one as it is came from (undefined for one that is).
 */
function describeDerivation(gauge: ContextGauge, format: (count: number) => string): string | undefined {
  const derivation = gauge.derivation;
  if (derivation === undefined || (derivation.reasoningDropped === 0 && derivation.netSaving === 0))
    return undefined;
  const parts = [`= ${format(derivation.reported)} reported by the last request`];
  if (derivation.reasoningDropped !== 0)
    parts.push(
      `${format(derivation.reasoningDropped)} of its turn's reasoning the provider does not send again`,
    );
  if (derivation.netSaving > 0) parts.push(`${format(derivation.netSaving)} saved by what changed since`);
  const scale = gauge.scale === undefined ? "" : ` (on the provider's scale, ×${gauge.scale.toFixed(2)})`;
  const added = derivation.netSaving < 0 ? ` + ${format(-derivation.netSaving)} added since${scale}` : "";
  return `${parts.join(" − ")}${derivation.netSaving > 0 ? scale : ""}${added}`;
}

/** Whether two figures differ by more than rounding and tokenizers explain away (5 %). */
function differs(estimate: number, figure: number): boolean {
  return Math.abs(estimate - figure) > Math.max(1, figure * 0.05);
}

/** Why the figure is an estimate, for people (undefined when it is not one). */
async function estimateExplanation(
  gauge: ContextGauge,
  meta: Readonly<Record<string, unknown>>,
): Promise<string | undefined> {
  if (gauge.tokensSource !== "estimated") return undefined;
  if (gauge.estimateReason === "other-context")
    return "estimated: the last usage reported describes another context (a fork keeps its original's), so cxc counted the system prompt, tools and conversation itself";
  const source = conversationSource(meta);
  if (source !== "cxc" && source !== "jp") {
    const file = agents.originFile(meta) ?? "FILE";
    return (
      `estimated: this session was imported before cxc kept each request's usage, so ${sourceName(source)}'s own count is not here; ` +
      `\`cxc conversation import ${file} --update\` brings it`
    );
  }
  return "estimated: no request of this conversation has reported usage yet, so cxc counted the system prompt, tools and conversation itself";
}

function gaugeToJson(gauge: ContextGauge, meta: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return {
    tokens: gauge.tokens,
    tokens_source: gauge.tokensSource,
    reported_by: gauge.reportedBy ?? null,
    estimate: gauge.estimate ?? null,
    estimate_reason: gauge.estimateReason ?? null,
    reported: gauge.derivation?.reported ?? null,
    reasoning_dropped: gauge.derivation?.reasoningDropped ?? null,
    net_saving: gauge.derivation?.netSaving ?? null,
    factor: gauge.scale ?? null,
    imported_without_usage:
      gauge.tokensSource === "estimated" && gauge.estimateReason === "no-usage" && isAgentImport(meta),
    window: gauge.window.tokens,
    window_source: gauge.window.source,
    percent: Math.round(gauge.percent * 10) / 10,
    compactions: gauge.compactions,
    saved: gauge.saved,
    deferred_compactions: gauge.deferredCompactions,
    deferred_saving: gauge.deferredSaving,
  };
}

function isAgentImport(meta: Readonly<Record<string, unknown>>): boolean {
  const source = conversationSource(meta);
  return source !== "cxc" && source !== "jp";
}

function corrected(tokens: number, factor: number | undefined): number {
  return factor === undefined ? tokens : Math.round(tokens * factor);
}

function statsToJson(
  id: string,
  raw: TokenSummary,
  projected: TokenSummary,
  projectedTurns: readonly ProjectedTurn[],
  factor: number | undefined,
): Record<string, unknown> {
  return {
    id,
    tokenizer: "o200k_base",
    correction_factor: factor ?? null,
    raw: {
      total: raw.total,
      corrected_total: corrected(raw.total, factor),
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
      corrected_total: corrected(projected.total, factor),
      by_kind: { ...projected.byKind },
      turns: projected.turns.map((turn, position) => {
        const { origin, strippedResults } = projectedTurns[position]!;
        return {
          kind: origin.kind,
          from_turn: (origin.kind === "kept" ? origin.turn : origin.from) + 1,
          to_turn: (origin.kind === "kept" ? origin.turn : origin.to) + 1,
          total: turn.total,
          by_kind: { ...turn.byKind },
          masked_results: strippedResults ?? 0,
        };
      }),
    },
    saved: raw.total - projected.total,
    corrected_saved: corrected(raw.total - projected.total, factor),
  };
}

async function renderStatsText(
  raw: TokenSummary,
  projected: TokenSummary,
  projectedLabels: readonly string[],
  factor: number | undefined,
  kept: KeptCost,
): Promise<string> {
  const total = (summary: TokenSummary): string => {
    const estimate = formatTokenCount(summary.total);
    return factor === undefined
      ? `${estimate} tokens`
      : `${estimate} tokens (≈${formatTokenCount(corrected(summary.total, factor))} by reported usage, ×${factor.toFixed(2)})`;
  };
  const saved = raw.total - projected.total;
  const percent = raw.total === 0 ? 0 : Math.round((saved / raw.total) * 100);
  const savedText =
    factor === undefined
      ? `${formatTokenCount(saved)} saved (${percent}%)`
      : `${formatTokenCount(saved)} saved (≈${formatTokenCount(corrected(saved, factor))} by reported usage, ${percent}%)`;
  const lines = [
    `Raw history: ${total(raw)}`,
    renderTokenBars(tokenKindRows(raw.byKind), BAR_WIDTH),
    "",
    `Projected view (what the model sees): ${total(projected)}; ${savedText}`,
    renderTokenBars(tokenKindRows(projected.byKind), BAR_WIDTH),
    ...describeKept(kept, formatTokenCount),
    "",
    "Per turn (projected):",
    renderTokenBars(
      projected.turns.map((turn, position) => ({ label: projectedLabels[position]!, value: turn.total })),
      BAR_WIDTH,
    ),
  ];
  return lines.filter((line, position) => line !== "" || lines[position - 1] !== "").join("\n");
}

/**
 * `Kept by construction: 3 pinned messages, 1.2k tokens; facts blocks after 2 summaries, 310 tokens`:
 * what keeping costs in the view (nothing when there is none).
 */
function describeKept(kept: KeptCost, format: (count: number) => string): string[] {
  const parts: string[] = [];
  if (kept.pinned.messages > 0)
    parts.push(
      `${formatCount(kept.pinned.messages, "pinned message")}, ${format(kept.pinned.tokens)} tokens`,
    );
  if (kept.facts.blocks > 0)
    parts.push(
      `facts blocks after ${formatCount(kept.facts.blocks, "summary", "summaries")}, ${format(kept.facts.tokens)} tokens`,
    );
  return parts.length === 0 ? [] : [`Kept by construction: ${parts.join("; ")}`];
}

/** What the conversation's requests and cxc itself spent, from reported usage (docs/context.md). */
interface Spend extends ConversationSpend {
  readonly decisions?: { readonly usage: DecisionUsage; readonly prices?: PriceSource };
}

function spending(
  events: readonly ConversationEvent[],
  decisions: DecisionUsage | undefined,
  config: ConfigTable,
  env: Readonly<Record<string, string | undefined>>,
  nextModel: string | undefined,
): Spend {
  // A request with no model recorded was made with the one the conversation continues with.
  const spend = conversationSpend(events, (model) => modelPrices(model ?? nextModel, config, env));
  if (decisions === undefined) return spend;
  // The decision model: `advisor.model`, else the conversation's (the advisor's default).
  const decisionModel = readAdvisorSettings(config, env).settings.model ?? nextModel;
  const prices = modelPrices(decisionModel, config, env);
  return { ...spend, decisions: { usage: decisions, ...(prices === undefined ? {} : { prices }) } };
}

function decisionDollars(decisions: NonNullable<Spend["decisions"]>): number | undefined {
  const { usage, prices } = decisions;
  if (prices === undefined) return undefined;
  return usageDollars(
    { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens },
    prices.prices,
  );
}

/**
 * `Spent, from reported usage (cache reads and writes included):` then the conversation's requests,
 * and apart from them cxc's own: its summaries and the advisor's decision calls; the prices named.
 */
function describeSpend(spend: Spend): string[] {
  const { requests, summaries, decisions } = spend;
  if (requests.count === 0 && summaries.count === 0 && decisions === undefined) return [];
  const money = (totals: SpendTotals): string =>
    totals.unpriced === totals.count
      ? "no prices known"
      : `${formatDollars(totals.dollars)}${totals.unpriced === 0 ? "" : ` (${totals.unpriced} without prices not in it)`}`;
  const tokens = (totals: SpendTotals): string =>
    [
      `${formatTokenCount(totals.input)} input`,
      `${formatTokenCount(totals.cacheRead)} cache reads`,
      `${formatTokenCount(totals.cacheWrite)} cache writes`,
      `${formatTokenCount(totals.output)} output`,
    ].join(", ");
  const lines = ["Spent, from reported usage (cache reads and writes included):"];
  lines.push(
    requests.count === 0
      ? "  the conversation's requests: none reported usage"
      : `  the conversation's requests: ${formatCount(requests.count, "request")}, ${money(requests)}; ${tokens(requests)}`,
  );
  const own: string[] = [];
  if (summaries.count > 0)
    own.push(
      `${formatCount(summaries.count, "summary", "summaries")}, ${money(summaries)}; ${tokens(summaries)}`,
    );
  if (decisions !== undefined) {
    const dollars = decisionDollars(decisions);
    own.push(
      `advisor decisions: ${formatCount(decisions.usage.calls, "call")}, ` +
        `${dollars === undefined ? "no prices known" : formatDollars(dollars)}; ` +
        `${formatTokenCount(decisions.usage.input_tokens)} input + ${formatTokenCount(decisions.usage.output_tokens)} output tokens`,
    );
  }
  if (own.length > 0) lines.push(`  cxc's own, apart from the conversation: ${own.join("; ")}`);
  const used = new Map<string, PriceSource>();
  for (const prices of [
    ...requests.prices,
    ...summaries.prices,
    ...(decisions?.prices ? [decisions.prices] : []),
  ])
    used.set(prices.modelId, prices);
  if (used.size > 0)
    lines.push(
      `  prices: ${[...used.values()]
        .map((prices) =>
          prices.source === "configured"
            ? `${prices.modelId} (configured)`
            : `${prices.modelId} (of ${prices.asOf})`,
        )
        .join(", ")}`,
    );
  return lines;
}

function totalsToJson(totals: SpendTotals): Record<string, unknown> {
  return {
    count: totals.count,
    input_tokens: totals.input,
    cache_read_input_tokens: totals.cacheRead,
    cache_creation_input_tokens: totals.cacheWrite,
    output_tokens: totals.output,
    dollars: totals.unpriced === totals.count ? null : totals.dollars,
    unpriced: totals.unpriced,
    models: totals.prices.map((prices) => prices.modelId),
  };
}

function spendToJson(spend: Spend): Record<string, unknown> {
  return {
    requests: totalsToJson(spend.requests),
    summaries: totalsToJson(spend.summaries),
    advisor_decisions:
      spend.decisions === undefined
        ? null
        : {
            calls: spend.decisions.usage.calls,
            input_tokens: spend.decisions.usage.input_tokens,
            output_tokens: spend.decisions.usage.output_tokens,
            dollars: decisionDollars(spend.decisions) ?? null,
            model: spend.decisions.prices?.modelId ?? null,
          },
  };
}
