/**
 * What tokens cost: a model's prices and the dollars of a request's reported usage. Pure.
 *
 * Prices are US dollars per million tokens, as providers publish them: `input` for input written
 * neither from nor to the prompt cache, `cacheRead` for input served from it, `cacheWrite` for
 * input written to it (Anthropic's five-minute cache; providers that cache implicitly charge a
 * write as ordinary input), `output` for the answer, its reasoning included. cxc's table of them
 * is src/llm/models.ts (`KNOWN_PRICES`), overridden by `providers.<name>.models.<model>.prices`.
 */
import type { ProviderUsage } from "./conversation/tokens.js";

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
