/**
 * What tokens cost: a model's prices and the dollars of a request's reported usage. Pure.
 *
 * Prices are US dollars per million tokens, as providers publish them: `input` for input written
 * neither from nor to the prompt cache, `cacheRead` for input served from it, `cacheWrite` for
 * input written to it (Anthropic's five-minute cache; providers that cache implicitly charge a
 * write as ordinary input), `output` for the answer, its reasoning included. cxc's table of them
 * is src/llm/models.ts (`KNOWN_PRICES`), overridden by `providers.<name>.models.<model>.prices`.
 */
import { type ConversationEvent, isTurnEvent } from "./conversation/events.js";
import { recordedModels } from "./conversation/settings.js";
import { type ProviderUsage, readEventUsage, usageReader } from "./conversation/tokens.js";

/** A model's prices, US dollars per million tokens. */
export interface TokenPrices {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
}

/** Prices and where they came from: cxc's table (dated) or the configuration. */
export interface PriceSource {
  readonly prices: TokenPrices;
  readonly modelId: string;
  readonly source: "known" | "configured";
  /** The day cxc's table was checked (`known`). */
  readonly asOf?: string;
}

const PER_TOKEN = 1 / 1_000_000;

/**
 * The metadata key of a compaction whose summary a model wrote: the usage its request reported
 * (`ProviderUsage`), cxc's own spending, which `stats` shows apart from the conversation's.
 */
export const SUMMARY_USAGE_KEY = "cxc_summary_usage";

/** The dollars of one request's reported usage: input, cache reads, cache writes and output. */
export function usageDollars(usage: ProviderUsage, prices: TokenPrices): number {
  return (
    (usage.input_tokens * prices.input +
      (usage.cache_read_input_tokens ?? 0) * prices.cacheRead +
      (usage.cache_creation_input_tokens ?? 0) * prices.cacheWrite +
      usage.output_tokens * prices.output) *
    PER_TOKEN
  );
}

/** The dollars of `tokens` at `pricePerMillion`. */
export function tokenDollars(tokens: number, pricePerMillion: number): number {
  return tokens * pricePerMillion * PER_TOKEN;
}

/**
 * `$1.24`, `$0.038`, `$0.0042`: two significant digits below a dollar (never fewer than two
 * decimals), cents above; `$0` for nothing, `<$0.0001` for a crumb.
 */
export function formatDollars(value: number): string {
  if (value < 0) return `−${formatDollars(-value)}`;
  if (value === 0) return "$0";
  if (value < 0.0001) return "<$0.0001";
  if (value >= 1) return `$${value.toFixed(2)}`;
  const decimals = Math.max(2, 1 - Math.floor(Math.log10(value)));
  return `$${value.toFixed(decimals)}`;
}

/** Requests (or summaries) summed: their reported tokens and, where prices are known, their dollars. */
export interface SpendTotals {
  readonly count: number;
  readonly input: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly output: number;
  /** Dollars of those with known prices. */
  readonly dollars: number;
  /** How many had no known prices (their tokens are in the sums, not in the dollars). */
  readonly unpriced: number;
  /** The prices used, one per model. */
  readonly prices: readonly PriceSource[];
}

/** What a conversation spent: its own requests, and apart from them the summaries cxc wrote. */
export interface ConversationSpend {
  readonly requests: SpendTotals;
  readonly summaries: SpendTotals;
}

/**
 * The spending of `events` from reported usage: each request the conversation made (its usage, on
 * the event it belongs to or learnt later; one request recorded on several events counts once),
 * priced at the model recorded for it (the last `config_delta` naming one before it; `undefined`
 * when none did), and each model-written summary of a compaction (`SUMMARY_USAGE_KEY`, priced at
 * its recipe), whether in force or not: what was spent stays spent.
 */
export function conversationSpend(
  events: readonly ConversationEvent[],
  pricesOf: (modelId: string | undefined) => PriceSource | undefined,
): ConversationSpend {
  const requests = new SpendSum(pricesOf);
  const summaries = new SpendSum(pricesOf);
  const readUsage = usageReader(events);
  const seen = new Set<string>();
  // Which model made each request: read only when some request reported usage (merging every
  // configuration change of a long jp conversation costs more than the rest of this).
  let models: (string | undefined)[] | undefined;
  const modelAt = (position: number) => (models ??= recordedModels(events))[position];
  for (const [position, event] of events.entries()) {
    if (event.type === "compaction") {
      const usage = readEventUsage({ metadata: { usage: event.metadata?.[SUMMARY_USAGE_KEY] } });
      if (usage !== undefined) summaries.add(usage, (event.summary ?? event.cycles?.summary)?.recipe);
      continue;
    }
    if (!isTurnEvent(event)) continue;
    const usage = readUsage(event);
    if (usage === undefined) continue;
    if (usage.request !== undefined) {
      if (seen.has(usage.request)) continue;
      seen.add(usage.request);
    }
    requests.add(usage, modelAt(position));
  }
  return { requests: requests.totals(), summaries: summaries.totals() };
}

class SpendSum {
  #count = 0;
  #input = 0;
  #cacheRead = 0;
  #cacheWrite = 0;
  #output = 0;
  #dollars = 0;
  #unpriced = 0;
  readonly #prices = new Map<string, PriceSource | undefined>();
  readonly #pricesOf: (modelId: string | undefined) => PriceSource | undefined;

  constructor(pricesOf: (modelId: string | undefined) => PriceSource | undefined) {
    this.#pricesOf = pricesOf;
  }

  add(usage: ProviderUsage, modelId: string | undefined): void {
    this.#count += 1;
    this.#input += usage.input_tokens;
    this.#cacheRead += usage.cache_read_input_tokens ?? 0;
    this.#cacheWrite += usage.cache_creation_input_tokens ?? 0;
    this.#output += usage.output_tokens;
    const key = modelId ?? "";
    if (!this.#prices.has(key)) this.#prices.set(key, this.#pricesOf(modelId));
    const prices = this.#prices.get(key);
    if (prices === undefined) this.#unpriced += 1;
    else this.#dollars += usageDollars(usage, prices.prices);
  }

  totals(): SpendTotals {
    const used = new Map<string, PriceSource>();
    for (const prices of this.#prices.values()) if (prices !== undefined) used.set(prices.modelId, prices);
    return {
      count: this.#count,
      input: this.#input,
      cacheRead: this.#cacheRead,
      cacheWrite: this.#cacheWrite,
      output: this.#output,
      dollars: this.#dollars,
      unpriced: this.#unpriced,
      prices: [...used.values()],
    };
  }
}
