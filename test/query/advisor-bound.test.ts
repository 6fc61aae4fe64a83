/**
 * The advisor skips the tokenizer when the projected view is below the notice line in bytes; that
 * is only sound if the byte size never undercounts the tokens.
 */
import { describe, expect, it } from "vitest";
import { loadTokenCounter } from "../../src/store/token-counter.js";
import { measureContext, projectedByteBound } from "../../src/query/advisor-hook.js";
import { createEventBuilder } from "../helpers/builders.js";
import { loadSample } from "../helpers/sample.js";

describe("projectedByteBound", () => {
  it("is at least the o200k token count, on the sample and on non-Latin text", async () => {
    const countTokens = await loadTokenCounter();
    const build = createEventBuilder();
    const multilingual = [
      ...build.turn("日本語のテキストを要約してください。絵文字も 🎉🚀 含みます。", {
        answer: "はい、要約します。",
      }),
      ...build.turn("Ελληνικά και русский текст", { reasoning: "συλλογισμός" }),
    ];
    for (const events of [loadSample().events, multilingual]) {
      const tokens = measureContext(events, countTokens).tokens;
      expect(tokens).toBeGreaterThan(0);
      expect(projectedByteBound(events)).toBeGreaterThanOrEqual(tokens);
    }
  });
});
