/**
 * The advisor skips the tokenizer when an upper bound of the context's tokens is below the notice
 * line (`boundContextTokens`): each text counted as its cached count, else as its size in UTF-8
 * bytes, and the reported usage. That is only sound if the bound never undercounts the count the
 * advisor uses (`measureContext`, the context gauge's count).
 */
import { describe, expect, it } from "vitest";
import { boundContextTokens } from "../../src/core/advisor/context-gauge.js";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import { projectConversation } from "../../src/core/conversation/projection.js";
import type { TokenCounter } from "../../src/core/conversation/tokens.js";
import { measureContext, utf8ByteBound } from "../../src/query/advisor-hook.js";
import { createMemoryStore } from "../../src/store/index.js";
import { createEventBuilder } from "../helpers/builders.js";
import { loadSample } from "../helpers/sample.js";

const build = createEventBuilder();
const multilingual = [
  ...build.turn("日本語のテキストを要約してください。絵文字も 🎉🚀 含みます。", {
    answer: "はい、要約します。",
  }),
  ...build.turn("Ελληνικά και русский текст", { reasoning: "συλλογισμός" }),
];

const bound = (events: readonly ConversationEvent[], counter: TokenCounter): number =>
  boundContextTokens(
    events,
    counter,
    projectConversation(events).turns.flatMap((turn) => turn.events),
  );

describe("the advisor's token bound", () => {
  it("in UTF-8 bytes is at least the o200k token count, on the sample and on non-Latin text", async () => {
    const countTokens = await (await createMemoryStore()).tokenCounter();
    for (const events of [loadSample().events, multilingual]) {
      const tokens = measureContext(events, countTokens).tokens;
      expect(tokens).toBeGreaterThan(0);
      expect(bound(events, utf8ByteBound)).toBeGreaterThanOrEqual(tokens);
      // After a new message (the view changed since the usage) too.
      const later = [...events, ...build.turn("and one more question")];
      expect(bound(later, utf8ByteBound)).toBeGreaterThanOrEqual(measureContext(later, countTokens).tokens);
    }
  });

  it("from cached counts is exact for what was counted and bounds only the new texts", async () => {
    const store = await createMemoryStore();
    const { id } = store.create();
    // The conversation's own cache of counts, as the advisor gets it from the store.
    const counter = await store.tokenCounter(id);
    // A fresh function per measure, as the advisor does: core memoizes counts per counter.
    const cached = () => (text: string) => counter.known(text) ?? utf8ByteBound(text);
    const earlier = loadSample().events;
    const exact = measureContext(earlier, counter).tokens;
    // Nothing changed since the sample's last usage: the larger of that count and the view's
    // cached count, which differ by the tokenizers' difference.
    expect(exact).toBe(33_636);
    expect(bound(earlier, cached())).toBeGreaterThanOrEqual(exact);
    expect(bound(earlier, cached())).toBeLessThan(exact * 1.2);
    const later = [...earlier, ...build.turn("a new question, never counted before")];
    // Before the new turn is counted: its texts are bounded by their bytes, the view by the
    // largest plausible scale.
    const estimate = bound(later, cached());
    const newest = measureContext(later, counter).tokens;
    expect(estimate).toBeGreaterThanOrEqual(newest);
    expect(estimate).toBeLessThan(newest * 3);
    // Once counted, it is the view's exact count on the largest plausible scale.
    const counted = measureContext(later, (text) => counter(text)).tokens;
    expect(counted).toBe(newest);
    expect(bound(later, cached())).toBeGreaterThanOrEqual(newest);
  });
});
