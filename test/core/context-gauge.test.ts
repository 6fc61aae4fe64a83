/** The context gauge: context used, savings now and from the next turn, and its one line. */
import { beforeEach, describe, expect, it } from "vitest";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import {
  type ContextWindow,
  computeContextGauge,
  describeContextGauge,
  tokenDifference,
} from "../../src/compaction/core/advisor/context-gauge.js";
import { measureProviderScale } from "../../src/compaction/core/advisor/next-request.js";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import { projectConversation } from "../../src/core/conversation/projection.js";
import type { TokenCounter } from "../../src/core/conversation/tokens.js";
import { createEventBuilder, type EventBuilder } from "../helpers/builders.js";
import { loadSample } from "../helpers/sample.js";

const WINDOW: ContextWindow = { tokens: 1000, source: "known" };

let build: EventBuilder;
let counted: string[];
/** One token per character, remembering what it was asked to count. */
const countCharacters: TokenCounter = (text) => {
  counted.push(text);
  return text.length;
};

beforeEach(() => {
  build = createEventBuilder();
  counted = [];
});

function withUsage(events: ConversationEvent[], usage: Record<string, number>): ConversationEvent[] {
  const last = events.at(-1)!;
  return [...events.slice(0, -1), { ...last, metadata: { usage } } as ConversationEvent];
}

describe("computeContextGauge", () => {
  it("shows the context of the next request and counts nothing when no compaction exists", () => {
    const events = withUsage(build.turns(3), { input_tokens: 200, output_tokens: 40 });
    const gauge = computeContextGauge(events, { countTokens: countCharacters, window: WINDOW });
    expect(gauge).toEqual({
      tokens: 240,
      tokensSource: "reported",
      derivation: { reported: 240, reasoningDropped: 0, netSaving: 0 },
      window: WINDOW,
      percent: 24,
      compactions: 0,
      saved: 0,
      deferredCompactions: 0,
      deferredSaving: 0,
      scale: undefined,
    });
    expect(counted).toEqual([]);
  });

  it("estimates the system prompt and tools, and the view, when no usage was reported", () => {
    const events = build.turns(2); // q0 a:q0 q1 a:q1 → 2 + 4 + 2 + 4
    const gauge = computeContextGauge(events, {
      countTokens: countCharacters,
      window: WINDOW,
      overhead: () => 100,
    });
    expect(gauge).toMatchObject({ tokens: 112, tokensSource: "estimated" });
    expect(gauge.percent).toBeCloseTo(11.2);
  });

  it("counts what compactions in force save, and a deferred one's saving from the next turn", () => {
    // Turns of 2 + 50 + 4 and 2 + 50 + 4 + … : 224 counted, and the provider's count is the same.
    const history = withUsage(build.turns(4, { reasoning: "r".repeat(50) }), {
      input_tokens: 220,
      output_tokens: 4,
    });
    const inForce = build.compaction({ from: 0, to: 1, reasoning: true });
    const deferred = build.compaction({ from: 2, to: 2, summary: "S", deferredUntilTurn: 4 });
    const events = [...history, inForce, deferred];
    const gauge = computeContextGauge(events, {
      countTokens: countCharacters,
      window: WINDOW,
      overhead: () => 0,
      dropsEarlierReasoning: false,
    });
    expect(gauge.compactions).toBe(1);
    expect(gauge.saved).toBe(100);
    expect(gauge.deferredCompactions).toBe(1);
    // Turn 3 (q2, 50 of reasoning, a:q2) becomes the summary turn (its request text and "S").
    const summaryTurn = "[Summary of previous conversation]".length + 1;
    expect(gauge.deferredSaving).toBe(2 + 50 + 4 - summaryTurn);
    // The next request has both in force: the reported figure less both savings.
    expect(gauge).toMatchObject({
      tokensSource: "reported-adjusted",
      tokens: 224 - 100 - gauge.deferredSaving,
    });
    expect(gauge.scale).toBe(1);
    // Every text is counted once.
    expect(counted.filter((text) => text === "a:q3")).toHaveLength(1);
  });

  it("puts a compaction applied after the usage on the provider's scale", () => {
    // cxc counts 72 (q0, 30 of reasoning, a:q0, q1, 30, a:q1); the provider reported 90: ×1.25.
    const history = withUsage(build.turns(2, { reasoning: "r".repeat(30) }), {
      input_tokens: 80,
      output_tokens: 10,
    });
    const events = [...history, build.compaction({ from: 0, to: 0, reasoning: true })];
    const gauge = computeContextGauge(events, {
      countTokens: countCharacters,
      window: WINDOW,
      overhead: () => 0,
      dropsEarlierReasoning: false,
    });
    // The compaction saves 30: ×1.25.
    expect(gauge).toMatchObject({
      tokens: 90 - 38,
      tokensSource: "reported-adjusted",
      saved: 38,
      compactions: 1,
      scale: 1.25,
    });
  });

  it("never says 0 when a compaction saves more of cxc's count than the provider reported", () => {
    // The provider counts less than cxc (×0.5 here): on one scale 60 - 0.5 × 108 = 6.
    const history = withUsage(build.turns(2, { reasoning: "r".repeat(54) }), {
      input_tokens: 55,
      output_tokens: 5,
    });
    const events = [...history, build.compaction({ from: 0, to: 1, reasoning: true })];
    const gauge = computeContextGauge(events, {
      countTokens: countCharacters,
      window: WINDOW,
      overhead: () => 0,
      dropsEarlierReasoning: false,
    });
    expect(gauge).toMatchObject({ tokens: 6, saved: 54, scale: 0.5 });
    expect(gauge.tokens + gauge.saved).toBe(60);
  });

  it("falls back to cxc's count when the usage describes another context", () => {
    // A fork that dropped turns keeps the usage of the original: 5000 for 72 counted tokens.
    const history = withUsage(build.turns(2, { reasoning: "r".repeat(30) }), {
      input_tokens: 4990,
      output_tokens: 10,
    });
    const events = [...history, build.compaction({ from: 0, to: 0, reasoning: true })];
    const gauge = computeContextGauge(events, {
      countTokens: countCharacters,
      window: WINDOW,
      overhead: () => 0,
      dropsEarlierReasoning: false,
    });
    expect(gauge).toMatchObject({ tokens: 42, tokensSource: "estimated", saved: 30, scale: undefined });
    // Nothing changed since: the provider's count as it is, with nothing counted.
    counted = [];
    const unchanged = { countTokens: countCharacters, window: WINDOW, dropsEarlierReasoning: false };
    expect(computeContextGauge(history, unchanged).tokens).toBe(5000);
    expect(counted).toEqual([]);
  });

  it("measures the provider's scale on the sample: its reported usage against o200k, close to 1", () => {
    const scale = measureProviderScale(loadSample().events, { countTokens });
    expect(scale).toBeGreaterThan(0.7);
    expect(scale).toBeLessThan(1.4);
  });

  it("treats a summary turn rebuilt by projection as the same events in both views", () => {
    const history = build.turns(3);
    const events = [...history, build.compaction({ from: 0, to: 1, summary: "short" })];
    const view = projectConversation(events).turns.flatMap((turn) => turn.events);
    const again = projectConversation(events).turns.flatMap((turn) => turn.events);
    expect(view[1]).not.toBe(again[1]);
    expect(tokenDifference(view, again, countCharacters)).toBe(0);
    expect(counted).toEqual([]);
  });
});

describe("describeContextGauge", () => {
  const gauge = {
    tokens: 48_200,
    tokensSource: "reported" as const,
    window: { tokens: 200_000, source: "known" as const },
    percent: 24.1,
    compactions: 0,
    saved: 0,
    deferredCompactions: 0,
    deferredSaving: 0,
    scale: undefined,
  };

  it("says the context and the window, and nothing about compactions when there are none", () => {
    expect(describeContextGauge(gauge)).toBe("48.2k of 200k tokens (24%, reported)");
    expect(describeContextGauge(gauge, { complete: true })).toBe(
      "48.2k of 200k tokens (24%, reported); no compactions in force; no deferred compactions",
    );
  });

  it("adds the savings now and from the next turn, singular and plural", () => {
    expect(
      describeContextGauge({
        ...gauge,
        compactions: 2,
        saved: 31_000,
        deferredCompactions: 1,
        deferredSaving: 8400,
      }),
    ).toBe(
      "48.2k of 200k tokens (24%, reported); 2 compactions save 31.0k; 1 compaction deferred to the next turn saves 8.4k",
    );
    expect(describeContextGauge({ ...gauge, compactions: 1, saved: -300 })).toBe(
      "48.2k of 200k tokens (24%, reported); 1 compaction adds 300",
    );
  });

  it("says when the window is assumed", () => {
    expect(
      describeContextGauge({ ...gauge, percent: 0.4, window: { tokens: 128_000, source: "assumed" } }),
    ).toBe("48.2k tokens (0.4% of an assumed 128k window: the model's is unknown; reported)");
  });

  it("says where the figure comes from: the agent's count, adjusted, estimated", () => {
    expect(describeContextGauge({ ...gauge, reportedBy: "claude-code" })).toBe(
      "48.2k of 200k tokens (24%, as Claude Code counts it)",
    );
    expect(describeContextGauge({ ...gauge, tokensSource: "reported-adjusted" })).toBe(
      "48.2k of 200k tokens (24%, reported, adjusted for what changed since)",
    );
    expect(describeContextGauge({ ...gauge, tokensSource: "estimated" })).toBe(
      "48.2k of 200k tokens (24%, estimated)",
    );
  });
});
