/**
 * The advisor skips the tokenizer when an upper bound of the context of the next request is below
 * the notice line (`boundContextOfNextRequest`): each text counted as its cached count, else as its
 * size in UTF-8 bytes, and the reported usage. That is only sound if the bound never undercounts
 * the figure the advisor uses (`contextOfNextRequest`).
 */
import { describe, expect, it } from "vitest";
import {
  boundContextOfNextRequest,
  contextOfNextRequest,
  lastUsage,
} from "../../src/compaction/core/advisor/next-request.js";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import type { TokenCounter } from "../../src/core/conversation/tokens.js";
import { utf8ByteBound } from "../../src/compaction/advisor.js";
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
  boundContextOfNextRequest(events, counter);
const figure = (events: readonly ConversationEvent[], counter: TokenCounter): number =>
  contextOfNextRequest(events, { countTokens: counter }).tokens;

describe("the advisor's token bound", () => {
  it("in UTF-8 bytes is at least the figure, on the sample and on non-Latin text", async () => {
    const countTokens = await (await createMemoryStore()).tokenCounter();
    for (const events of [loadSample().events, multilingual]) {
      const tokens = figure(events, countTokens);
      expect(tokens).toBeGreaterThan(0);
      expect(bound(events, utf8ByteBound)).toBeGreaterThanOrEqual(tokens);
      // After a new message (the view changed since the usage) too.
      const later = [...events, ...build.turn("and one more question")];
      expect(bound(later, utf8ByteBound)).toBeGreaterThanOrEqual(figure(later, countTokens));
    }
  });

  it("from cached counts stays close to the figure and bounds only the new texts by bytes", async () => {
    const store = await createMemoryStore();
    const { id } = store.create();
    // The conversation's own cache of counts, as the advisor gets it from the store.
    const counter = await store.tokenCounter(id);
    // A fresh function per measure, as the advisor does: core memoizes counts per counter.
    const cached = () => (text: string) => counter.known(text) ?? utf8ByteBound(text);
    const earlier = loadSample().events;
    const exact = figure(earlier, counter);
    // Nothing changed since the sample's last usage: the reported figure.
    expect(exact).toBeLessThanOrEqual(lastUsage(earlier)!.tokens);
    expect(bound(earlier, cached())).toBeGreaterThanOrEqual(exact);
    expect(bound(earlier, cached())).toBeLessThan(exact * 1.2);
    const later = [...earlier, ...build.turn("a new question, never counted before")];
    const estimate = bound(later, cached());
    const newest = figure(later, counter);
    expect(estimate).toBeGreaterThanOrEqual(newest);
    expect(estimate).toBeLessThan(newest * 3);
  });
});
