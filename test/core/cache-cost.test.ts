import { describe, expect, it } from "vitest";
import {
  compactionCost,
  describeCompactionCost,
  describeCostBriefly,
} from "../../src/compaction/core/advisor/cache-cost.js";
import type { NextRequestContext } from "../../src/compaction/core/advisor/next-request.js";
import { formatDollars, type PriceSource, usageDollars } from "../../src/core/prices.js";
import { lookupModelPrices } from "../../src/llm/models.js";

const context = (tokens: number): NextRequestContext => ({
  tokens,
  source: "reported",
  reasoningDropped: 0,
  netSaving: 0,
});

const SONNET: PriceSource = {
  modelId: "anthropic/claude-sonnet-4-6",
  source: "known",
  asOf: "2026-12-03",
  prices: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
};

describe("compactionCost", () => {
  it("weighs the saving a request against the one-time rewrite from the first changed message", () => {
    // 100k → 60k; the system prompt and turns before the change (20k) stay cached.
    const cost = compactionCost(
      context(100_000),
      context(60_000),
      { tokens: 20_000, firstChangedTurn: 2 },
      SONNET,
    );
    expect(cost).toMatchObject({ saved: 40_000, rewrite: 40_000, unchanged: 20_000, firstChangedTurn: 2 });
    // Per request: 40k cache reads at $0.30 a million.
    expect(cost.dollars!.perRequest).toBeCloseTo(0.012, 10);
    // Once: 40k written at $3.75 + 20k read, against 100k read.
    expect(cost.dollars!.once).toBeCloseTo(0.15 + 0.006 - 0.03, 10);
    // 0.126 / 0.012 = 10.5 → 11 more requests, the next one included: 12 turns at most.
    expect(cost.dollars!.paybackTurns).toBe(12);
    expect(describeCompactionCost(cost)).toBe(
      "With the prompt cache: saves 40.0k tokens a request ($0.012); the next request writes 40.0k tokens " +
        "to the cache again from turn 3 on ($0.13 more, once); pays back within 12 turns " +
        "(anthropic/claude-sonnet-4-6, prices of 2026-12-03)",
    );
    expect(describeCostBriefly(cost)).toBe(
      "compacting now saves 40.0k tokens a request ($0.012) and rewrites 40.0k of the prompt cache once ($0.13); pays back within 12 turns",
    );
  });

  it("never pays back what adds tokens, and pays back at once when the rewrite costs less than the reads it spares", () => {
    const grows = compactionCost(context(10_000), context(11_000), { tokens: 5_000 }, SONNET);
    expect(grows.saved).toBe(-1_000);
    expect(grows.dollars!.paybackTurns).toBeUndefined();
    expect(describeCompactionCost(grows)).toContain("adds 1.0k tokens a request");
    expect(describeCompactionCost(grows)).toContain("never pays back");
    // Writes at the input price (implicit caching): a large saving pays on the next request.
    const implicit: PriceSource = {
      ...SONNET,
      prices: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 },
    };
    const large = compactionCost(context(200_000), context(10_000), { tokens: 9_000 }, implicit);
    expect(large.dollars!.once).toBeLessThan(0);
    expect(large.dollars!.paybackTurns).toBe(1);
    expect(describeCompactionCost(large)).toContain("pays back on the next request");
  });

  it("gives tokens alone without prices", () => {
    const cost = compactionCost(context(50_000), context(30_000), { tokens: 10_000, firstChangedTurn: 0 });
    expect(cost.dollars).toBeUndefined();
    expect(describeCompactionCost(cost)).toBe(
      "With the prompt cache: saves 20.0k tokens a request; the next request writes 20.0k tokens to the cache " +
        "again from turn 1 on, once (no prices known for this model to weigh the two: docs/context.md)",
    );
  });
});

describe("prices", () => {
  it("finds a model's prices by name or dated snapshot, and none for a model cxc lacks", () => {
    expect(lookupModelPrices({ provider: "anthropic", model: "claude-sonnet-4-5-20250929" })).toEqual({
      input: 3,
      output: 15,
      cacheRead: 0.3,
      cacheWrite: 3.75,
    });
    expect(lookupModelPrices({ provider: "ollama", model: "qwen3:8b" })).toBeUndefined();
  });

  it("costs a reported usage with its cache reads and writes", () => {
    const usage = {
      input_tokens: 1_000,
      cache_read_input_tokens: 100_000,
      cache_creation_input_tokens: 10_000,
      output_tokens: 2_000,
    };
    expect(usageDollars(usage, SONNET.prices)).toBeCloseTo(
      (1_000 * 3 + 100_000 * 0.3 + 10_000 * 3.75 + 2_000 * 15) / 1e6,
      12,
    );
  });

  it("formats dollars to two significant digits below a dollar", () => {
    expect(formatDollars(0)).toBe("$0");
    expect(formatDollars(0.00004)).toBe("<$0.0001");
    expect(formatDollars(0.00123)).toBe("$0.0012");
    expect(formatDollars(0.038)).toBe("$0.038");
    expect(formatDollars(0.5)).toBe("$0.50");
    expect(formatDollars(12.345)).toBe("$12.35");
  });
});
