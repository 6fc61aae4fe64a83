/**
 * The context of the next request (compaction/core/advisor/next-request.ts): reported, reported-adjusted and
 * estimated, by the rules of docs/context.md. Counts are one token per character, so every number
 * can be worked out by hand.
 */
import { beforeEach, describe, expect, it } from "vitest";
import {
  boundContextOfNextRequest,
  contextOfNextRequest,
  measureProviderScale,
} from "../../src/compaction/core/advisor/next-request.js";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import type { TokenCounter } from "../../src/core/conversation/tokens.js";
import { createEventBuilder, type EventBuilder } from "../helpers/builders.js";

let build: EventBuilder;
let counted: string[];
const countCharacters: TokenCounter = (text) => {
  counted.push(text);
  return text.length;
};

beforeEach(() => {
  build = createEventBuilder();
  counted = [];
});

/** `events` with `usage` on the last event (the answer of the last request). */
function withUsage(events: ConversationEvent[], usage: Record<string, unknown>): ConversationEvent[] {
  const last = events.at(-1)!;
  return [...events.slice(0, -1), { ...last, metadata: { usage } } as ConversationEvent];
}

const overhead = (tokens: number) => () => tokens;

/** `events` with every reasoning signed by the provider (sent back natively, so it may be dropped). */
function signed(events: ConversationEvent[]): ConversationEvent[] {
  return events.map((event) =>
    event.type === "chat_response" && event.reasoning !== undefined
      ? { ...event, metadata: { ...event.metadata, anthropic_thinking_signature: "sig" } }
      : event,
  );
}

describe("after a turn with reported usage", () => {
  it("is the reported input (cache reads and writes included) plus output, and counts nothing", () => {
    const events = withUsage(build.turns(3), {
      input_tokens: 120,
      cache_read_input_tokens: 60,
      cache_creation_input_tokens: 20,
      output_tokens: 40,
    });
    const figure = contextOfNextRequest(events, { countTokens: countCharacters, overhead: overhead(100) });
    expect(figure).toMatchObject({ tokens: 240, source: "reported", reasoningDropped: 0, netSaving: 0 });
    expect(counted).toEqual([]);
  });

  it("leaves out the reasoning the provider will not send again: its reported count", () => {
    // The last turn's answer: 30 characters of reasoning, reported as 25 reasoning tokens.
    const events = withUsage(signed(build.turns(2, { reasoning: "r".repeat(30) })), {
      input_tokens: 100,
      output_tokens: 40,
      reasoning_tokens: 25,
    });
    const figure = contextOfNextRequest(events, { countTokens: countCharacters });
    expect(figure).toMatchObject({ tokens: 115, source: "reported", reasoningDropped: 25 });
  });

  it("without a reported reasoning count, cxc's count of it on the provider's scale", () => {
    // The request held 10 (overhead) + q0 a:q0 (6) + q1 + 30 + a:q1 (36) = 52 counted; 104 reported: ×2.
    const events = withUsage(signed(build.turns(2, { reasoning: "r".repeat(30) })), {
      input_tokens: 94,
      output_tokens: 10,
    });
    const figure = contextOfNextRequest(events, { countTokens: countCharacters, overhead: overhead(10) });
    expect(figure).toMatchObject({ tokens: 104 - 60, source: "reported", factor: 2, reasoningDropped: 60 });
  });

  it("counts unsigned reasoning, which cxc sends back as text", () => {
    const events = withUsage(build.turns(2, { reasoning: "r".repeat(30) }), {
      input_tokens: 94,
      output_tokens: 10,
    });
    expect(contextOfNextRequest(events, { countTokens: countCharacters })).toMatchObject({
      tokens: 104,
      source: "reported",
    });
  });

  it("keeps the reasoning when the provider sends it again, and when the turn goes on", () => {
    const events = withUsage(signed(build.turns(2, { reasoning: "r".repeat(30) })), {
      input_tokens: 94,
      output_tokens: 10,
    });
    const options = { countTokens: countCharacters, overhead: overhead(10) };
    expect(contextOfNextRequest(events, { ...options, dropsEarlierReasoning: false }).tokens).toBe(104);
    expect(contextOfNextRequest(events, { ...options, next: "same-turn" }).tokens).toBe(104);
  });
});

describe("after a change to what the model sees", () => {
  it("is the reported figure less the net saving of a compaction in force, on the provider's scale", () => {
    // 4 turns of q, 20 characters of tool output, a:q; the provider counted ×2 of cxc.
    const turns = Array.from({ length: 4 }, (_, index) =>
      build.turn(`q${index}`, { tools: [{ name: "t", result: "o".repeat(20) }] }),
    ).flat();
    const history = withUsage(turns, { input_tokens: 300, output_tokens: 8 });
    const counts = contextOfNextRequest(history, { countTokens: countCharacters, overhead: overhead(0) });
    expect(counts.tokens).toBe(308);
    const compaction = build.compaction({ from: 0, to: 1, tools: "strip-responses" });
    const figure = contextOfNextRequest([...history, compaction], {
      countTokens: countCharacters,
      overhead: overhead(0),
    });
    // Each stripped result: 20 → "[compacted] t: success" (22): the view grows by 2 per result.
    const factor = figure.factor!;
    expect(figure.source).toBe("reported-adjusted");
    expect(figure.netSaving).toBe(Math.round(factor * (20 - 22) * 2));
    expect(figure.tokens).toBe(308 - figure.netSaving);
  });

  it("counts a deferred compaction's saving from the next turn's first request only", () => {
    const history = withUsage(build.turns(3, { answer: "a".repeat(40) }), {
      input_tokens: 120,
      output_tokens: 40,
    });
    const deferred = build.compaction({ from: 0, to: 1, summary: "S", deferredUntilTurn: 3 });
    const events = [...history, deferred];
    const options = { countTokens: countCharacters, overhead: overhead(0) };
    const next = contextOfNextRequest(events, options);
    expect(next.source).toBe("reported-adjusted");
    expect(next.tokens).toBeLessThan(160);
    expect(contextOfNextRequest(events, { ...options, next: "same-turn" })).toMatchObject({
      tokens: 160,
      source: "reported",
    });
  });

  it("adds what was added since on the provider's scale (tool results between cycles)", () => {
    const call = build.toolRequest({ name: "t" });
    const history = withUsage([build.turnStart(), build.request("q"), call], {
      input_tokens: 20,
      output_tokens: 4,
    });
    const events = [...history, build.toolResponse(call.call_id, "x".repeat(30))];
    const figure = contextOfNextRequest(events, { countTokens: countCharacters, next: "same-turn" });
    expect(figure.source).toBe("reported-adjusted");
    expect(figure.tokens).toBe(24 - figure.netSaving);
    expect(figure.netSaving).toBeLessThan(0);
  });

  it("adds an answer being written", () => {
    const events = withUsage(build.turns(1), { input_tokens: 20, output_tokens: 4 });
    const figure = contextOfNextRequest(events, { countTokens: countCharacters, pending: "p".repeat(12) });
    expect(figure.source).toBe("reported-adjusted");
    expect(figure.tokens).toBeGreaterThan(24);
  });
});

describe("without usage", () => {
  it("estimates the system prompt and tools, and the view", () => {
    const events = build.turns(2); // q0 a:q0 q1 a:q1 → 12
    expect(
      contextOfNextRequest(events, { countTokens: countCharacters, overhead: overhead(100) }),
    ).toMatchObject({ tokens: 112, source: "estimated", estimateReason: "no-usage", estimate: 112 });
  });

  it("estimates when the usage describes another context (a fork kept its original's)", () => {
    const history = withUsage(build.turns(2), { input_tokens: 4990, output_tokens: 10 });
    const events = [...history, build.compaction({ from: 0, to: 0, summary: "S" })];
    expect(
      contextOfNextRequest(events, { countTokens: countCharacters, overhead: overhead(0) }),
    ).toMatchObject({ source: "estimated", estimateReason: "other-context" });
  });
});

describe("usage an agent recorded", () => {
  it("is the agent's own count, its system prompt and tools included", () => {
    const events = withUsage(build.turns(2), {
      input_tokens: 20_000,
      output_tokens: 300,
      reported_by: "claude-code",
    });
    expect(
      contextOfNextRequest(events, { countTokens: countCharacters, overhead: overhead(5) }),
    ).toMatchObject({
      tokens: 20_300,
      source: "reported",
      base: { usage: { reported_by: "claude-code" } },
    });
  });

  it("scales a saving by the growth between two of its usages, not by its unknown overhead", () => {
    const first = withUsage(build.turn("q0", { answer: "a".repeat(300) }), {
      input_tokens: 15_000,
      output_tokens: 100,
      reported_by: "pi",
    });
    // q1 and 300 characters more counted (302), 604 more reported: ×2.
    const second = withUsage(build.turn("q1", { answer: "b".repeat(300) }), {
      input_tokens: 15_600,
      output_tokens: 104,
      reported_by: "pi",
    });
    const history = [...first, ...second];
    expect(measureProviderScale(history, { countTokens: countCharacters })).toBe(2);
    const events = [...history, build.compaction({ from: 0, to: 0, summary: "S" })];
    const figure = contextOfNextRequest(events, { countTokens: countCharacters });
    expect(figure.factor).toBe(2);
    expect(figure.tokens).toBe(15_704 - figure.netSaving);
    // Turn 1 (302) out, the summary turn (its request and "S") in, both ×2.
    expect(figure.netSaving).toBe(2 * (302 - "[Summary of previous conversation]".length - 1));
  });
});

describe("boundContextOfNextRequest", () => {
  it("bounds the figure from above without a tokenizer", () => {
    const bytes: TokenCounter = (text) => Buffer.byteLength(text, "utf8");
    const history = withUsage(build.turns(2, { reasoning: "r".repeat(30) }), {
      input_tokens: 80,
      output_tokens: 10,
    });
    const call = build.toolRequest({ name: "t" });
    const cases = [
      history,
      [...history, build.compaction({ from: 0, to: 0, reasoning: true })],
      [...history, build.turnStart(), build.request("more"), call, build.toolResponse(call.call_id, "out")],
      build.turns(3),
    ];
    for (const events of cases) {
      for (const next of ["next-turn", "same-turn"] as const) {
        expect(boundContextOfNextRequest(events, bytes, { next })).toBeGreaterThanOrEqual(
          contextOfNextRequest(events, { countTokens: countCharacters, next }).tokens,
        );
      }
    }
  });
});
