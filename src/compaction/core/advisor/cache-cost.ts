/**
 * What a compaction costs with the prompt cache (docs/context.md, "What a compaction costs"). Pure.
 *
 * Providers cache a request's prefix: the next request reads what it shares with the last one at
 * a fraction of the input price. A compaction changes the messages from the first one it covers
 * on, so the next request writes the cache again from there (a change to the tools or the system
 * prompt would rewrite it all; a compaction changes neither); after that, reads are cheap again and
 * every request is smaller by the saving. Against not compacting, with the cache warm:
 *
 * - per request: the saving, read from the cache: `saved × cacheRead`;
 * - once, the next request: `rewrite × cacheWrite + unchanged × cacheRead − before × cacheRead`
 *   (the rewrite is the next request less its unchanged prefix);
 * - it pays back within `1 + ⌈once ÷ per request⌉` turns (every turn makes at least one request).
 *
 * Without prices the tokens are given alone: a read and a write cannot be weighed against each
 * other without them. With a cold cache (idle past its lifetime) the next request writes it all
 * anyway, and the compaction only saves.
 */
import { formatTokenCount } from "../../../core/conversation/tokens.js";
import { formatDollars, type PriceSource, tokenDollars } from "../../../core/prices.js";
import type { NextRequestContext, UnchangedPrefix } from "./next-request.js";

/** A compaction's cost and saving with the prompt cache. */
export interface CompactionCost {
  /** Tokens each request after it saves (negative: adds). */
  readonly saved: number;
  /** Tokens the next request writes to the cache again (from the first changed message on). */
  readonly rewrite: number;
  /** Tokens of the next request that stay cached (system prompt, tools, messages before the change). */
  readonly unchanged: number;
  /** The raw turn (0-based) the first changed message stands for. */
  readonly firstChangedTurn?: number;
  /** In dollars, where the model's prices are known. */
  readonly dollars?: {
    readonly perRequest: number;
    /** What the next request costs more than it would have without the compaction (negative: less). */
    readonly once: number;
    /** Turns until the saving has paid for the rewrite (the next one included); undefined: never. */
    readonly paybackTurns?: number;
    readonly prices: PriceSource;
  };
}

/** The cost of going from `before` to `after` (the next request's context without and with the change). */
export function compactionCost(
  before: NextRequestContext,
  after: NextRequestContext,
  prefix: UnchangedPrefix,
  prices?: PriceSource,
): CompactionCost {
  const saved = before.tokens - after.tokens;
  const unchanged = Math.min(prefix.tokens, after.tokens);
  const rewrite = Math.max(0, after.tokens - unchanged);
  const base = {
    saved,
    rewrite,
    unchanged,
    ...(prefix.firstChangedTurn === undefined ? {} : { firstChangedTurn: prefix.firstChangedTurn }),
  };
  if (prices === undefined) return base;
  const { cacheRead, cacheWrite } = prices.prices;
  const perRequest = tokenDollars(saved, cacheRead);
  const once =
    tokenDollars(rewrite, cacheWrite) +
    tokenDollars(unchanged, cacheRead) -
    tokenDollars(before.tokens, cacheRead);
  const paybackTurns = once <= 0 ? 1 : perRequest > 0 ? 1 + Math.ceil(once / perRequest) : undefined;
  return {
    ...base,
    dollars: { perRequest, once, prices, ...(paybackTurns === undefined ? {} : { paybackTurns }) },
  };
}

/**
 * `With the prompt cache: saves 8.2k tokens a request ($0.0025); the next request writes 10.1k
 * tokens to the cache again from turn 3 on ($0.035 more, once); pays back within 15 turns
 * (anthropic/claude-sonnet-4-6, prices of 2026-12-03)`; tokens alone without prices.
 */
export function describeCompactionCost(cost: CompactionCost): string {
  const dollars = cost.dollars;
  const per =
    cost.saved >= 0
      ? `saves ${formatTokenCount(cost.saved)} tokens a request`
      : `adds ${formatTokenCount(-cost.saved)} tokens a request`;
  const perMoney = dollars === undefined ? "" : ` (${formatDollars(Math.abs(dollars.perRequest))})`;
  const from = cost.firstChangedTurn === undefined ? "" : ` from turn ${cost.firstChangedTurn + 1} on`;
  const rewrite = `the next request writes ${formatTokenCount(cost.rewrite)} tokens to the cache again${from}`;
  if (dollars === undefined) {
    return `With the prompt cache: ${per}; ${rewrite}, once (no prices known for this model to weigh the two: docs/context.md)`;
  }
  const once =
    dollars.once >= 0
      ? ` (${formatDollars(dollars.once)} more, once)`
      : ` (still ${formatDollars(-dollars.once)} less than without compacting)`;
  const payback = paybackWords(dollars.paybackTurns, "on the next request");
  const { prices } = dollars;
  const whose =
    prices.source === "configured"
      ? `${prices.modelId}, configured prices`
      : `${prices.modelId}, prices of ${prices.asOf ?? "cxc's table"}`;
  return `With the prompt cache: ${per}${perMoney}; ${rewrite}${once}; ${payback} (${whose})`;
}

/** When the saving pays back the cache's rewrite (`soon`: the words for one turn or less). */
function paybackWords(turns: number | undefined, soon: string): string {
  if (turns === undefined) return "never pays back";
  return turns <= 1 ? `pays back ${soon}` : `pays back within ${turns} turns`;
}

/**
 * The advisor's clause: `compacting now saves 8.2k tokens a request ($0.0025) and rewrites 10.1k of
 * the cache once ($0.035); pays back within 15 turns` (tokens alone without prices).
 */
export function describeCostBriefly(cost: CompactionCost): string {
  const dollars = cost.dollars;
  const money = (value: number) => (dollars === undefined ? "" : ` (${formatDollars(value)})`);
  const per =
    cost.saved >= 0
      ? `saves ${formatTokenCount(cost.saved)} tokens a request${money(dollars?.perRequest ?? 0)}`
      : `adds ${formatTokenCount(-cost.saved)} tokens a request`;
  const rewrite = `rewrites ${formatTokenCount(cost.rewrite)} of the prompt cache once${
    dollars === undefined ? "" : money(Math.max(0, dollars.once))
  }`;
  if (dollars === undefined) return `compacting now ${per} and ${rewrite}`;
  const payback = paybackWords(dollars.paybackTurns, "at once");
  return `compacting now ${per} and ${rewrite}; ${payback}`;
}

/** The cost as JSON (`compact --dry-run --format json`, the tool's approval in tests). */
export function compactionCostToJson(cost: CompactionCost): Record<string, unknown> {
  return {
    saved_per_request: cost.saved,
    cache_rewrite_tokens: cost.rewrite,
    cache_unchanged_tokens: cost.unchanged,
    first_changed_turn: cost.firstChangedTurn === undefined ? null : cost.firstChangedTurn + 1,
    dollars:
      cost.dollars === undefined
        ? null
        : {
            per_request: cost.dollars.perRequest,
            once: cost.dollars.once,
            payback_turns: cost.dollars.paybackTurns ?? null,
            model: cost.dollars.prices.modelId,
            prices_source: cost.dollars.prices.source,
            prices_as_of: cost.dollars.prices.asOf ?? null,
          },
  };
}
