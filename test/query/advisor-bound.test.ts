/**
 * The advisor skips the tokenizer when an upper bound of the projected view's tokens is below the
 * notice line: each text counted as its cached count, else as its size in UTF-8 bytes. That is
 * only sound if the bound never undercounts.
 */
import { describe, expect, it } from "vitest";
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

describe("the advisor's token bound", () => {
  it("in UTF-8 bytes is at least the o200k token count, on the sample and on non-Latin text", async () => {
    const countTokens = await (await createMemoryStore()).tokenCounter();
    for (const events of [loadSample().events, multilingual]) {
      const tokens = measureContext(events, countTokens).tokens;
      expect(tokens).toBeGreaterThan(0);
      expect(measureContext(events, utf8ByteBound).tokens).toBeGreaterThanOrEqual(tokens);
    }
  });

  it("from cached counts is exact for what was counted and bounds only the new texts", async () => {
    const store = await createMemoryStore();
    const { id } = store.create();
    // The conversation's own cache of counts, as the advisor gets it from the store.
    const counter = await store.tokenCounter(id);
    // A fresh function per measure, as the advisor does: core memoizes counts per counter.
    const bound = () => (text: string) => counter.known(text) ?? utf8ByteBound(text);
    const earlier = loadSample().events;
    const exact = measureContext(earlier, counter).tokens;
    expect(measureContext(earlier, bound()).tokens).toBe(exact);
    const later = [...earlier, ...build.turn("a new question, never counted before")];
    // Estimated before the new turn is counted: the new texts are bounded by their bytes.
    const estimate = measureContext(later, bound()).tokens;
    const newest = measureContext(later, counter).tokens;
    expect(estimate).toBeGreaterThan(newest);
    expect(estimate - newest).toBeLessThan(100);
    // Once counted, the bound is exact again.
    expect(measureContext(later, bound()).tokens).toBe(newest);
  });
});
