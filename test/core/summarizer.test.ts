/**
 * The one rule that picks a summarizer, the fallback setting, and the digest behind the port.
 */
import { describe, expect, it } from "vitest";
import { digestTurns } from "../../src/compaction/core/summary/digest.js";
import {
  chooseSummarizer,
  configuredAssistantModel,
  fallbackFor,
  digestSummarizer,
  readSummaryFallback,
} from "../../src/compaction/core/summary/summarizer.js";
import { groupTurns } from "../../src/core/conversation/turns.js";
import { createEventBuilder } from "../helpers/builders.js";

describe("chooseSummarizer", () => {
  it("takes the rule's model first, even over the assistant model", () => {
    expect(chooseSummarizer({ model: { id: "openai/gpt-x" } }, "anthropic/a")).toEqual({
      kind: "model",
      id: "openai/gpt-x",
      why: "rule",
    });
  });

  it("then the assistant model the user chose", () => {
    expect(chooseSummarizer({}, "anthropic/a")).toEqual({
      kind: "model",
      id: "anthropic/a",
      why: "assistant",
    });
    expect(chooseSummarizer({ model: { id: "  " } }, "anthropic/a")).toMatchObject({ id: "anthropic/a" });
  });

  it("else the digest: never a model the environment's keys would suggest", () => {
    expect(chooseSummarizer({}, undefined)).toEqual({ kind: "digest", why: "no-model" });
    expect(chooseSummarizer({ model: {} }, "")).toEqual({ kind: "digest", why: "no-model" });
  });

  it("builtin/digest named by the rule or as the assistant model is the digest, not a model", () => {
    expect(chooseSummarizer({ model: { id: "builtin/digest" } }, "anthropic/a")).toEqual({
      kind: "digest",
      why: "named",
    });
    expect(chooseSummarizer({}, "builtin/digest")).toEqual({ kind: "digest", why: "named" });
  });
});

describe("configuredAssistantModel", () => {
  it("reads assistant.model.id, ignoring blanks and non-strings", () => {
    expect(configuredAssistantModel({ assistant: { model: { id: "anthropic/a" } } })).toBe("anthropic/a");
    expect(configuredAssistantModel({ assistant: { model: { id: " " } } })).toBeUndefined();
    expect(configuredAssistantModel({ assistant: { model: { id: 3 } } })).toBeUndefined();
    expect(configuredAssistantModel({})).toBeUndefined();
  });
});

describe("readSummaryFallback", () => {
  const config = (fallback: unknown) =>
    ({ conversation: { compaction: { summary: { fallback } } } }) as never;

  it("says nothing when unset, for fallbackFor to decide", () => {
    expect(readSummaryFallback({})).toEqual({ ok: true, value: undefined });
  });

  it("aborts for a model the user asked for, falls back for the assistant model and unattended runs", () => {
    const rule = chooseSummarizer({ model: { id: "anthropic/x" } }, undefined);
    const assistant = chooseSummarizer({}, "anthropic/y");
    expect(fallbackFor(undefined, rule, false)).toBe("abort");
    expect(fallbackFor(undefined, rule, true)).toBe("digest");
    expect(fallbackFor(undefined, assistant, false)).toBe("digest");
    // The setting decides for all of them.
    expect(fallbackFor("digest", rule, false)).toBe("digest");
    expect(fallbackFor("abort", assistant, true)).toBe("abort");
  });

  it("reads digest and abort, and refuses anything else", () => {
    expect(readSummaryFallback(config("abort"))).toEqual({ ok: true, value: "abort" });
    expect(readSummaryFallback(config("digest"))).toEqual({ ok: true, value: "digest" });
    expect(readSummaryFallback(config(true))).toEqual({
      ok: false,
      message: 'conversation.compaction.summary.fallback must be "digest" or "abort", not true',
    });
  });
});

describe("digestSummarizer", () => {
  it("is builtin/digest over the raw turns of the range", async () => {
    const build = createEventBuilder();
    const turns = groupTurns([
      ...build.turn("first"),
      ...build.turn("edit src/a.ts"),
      ...build.turn("third"),
    ]);
    const outcome = await digestSummarizer.summarize({ turns, range: { from: 1, to: 1 }, rule: {} });
    expect(digestSummarizer.id).toBe("builtin/digest");
    expect(outcome).toEqual({ ok: true, text: digestTurns(turns, { from: 1, to: 1 }) });
    expect(outcome.ok && outcome.text).toContain("edit src/a.ts");
  });
});
