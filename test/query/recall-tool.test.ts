/**
 * The `recall` tool's own rules (src/tools/recall.ts): its arguments, its settings, and a model's
 * pattern that runs too long, ended in its worker as a tool error.
 */
import { describe, expect, it } from "vitest";
import { analyzeRecall } from "../../src/core/conversation/recall.js";
import {
  createRecallTool,
  DEFAULT_RECALL_SETTINGS,
  matchInWorker,
  readRecallSettings,
  runRecall,
} from "../../src/tools/recall.js";
import { callTool, type ToolCallContext } from "../../src/tools/tool.js";
import { createEventBuilder } from "../helpers/builders.js";

function hidden() {
  const build = createEventBuilder();
  return [
    ...build.turn("q", {
      tools: [{ name: "cat", arguments: { path: "a.txt" }, result: `${"a".repeat(40)}!` }],
    }),
    ...build.turn("r"),
    build.compaction({ from: 0, to: 0, tools: "strip" }),
  ];
}

describe("the recall tool", () => {
  it("ends a pattern that runs longer than its limit, as a tool error the model can act on", async () => {
    const outcome = await runRecall(analyzeRecall(hidden()), { query: "/(a+)+$/" }, DEFAULT_RECALL_SETTINGS);
    expect(outcome).toEqual({
      isError: true,
      content:
        "recall: the pattern /(a+)+$/ ran longer than 1 s over the hidden content and was stopped; use a simpler pattern, or a text query",
    });
  }, 10_000);

  it("runs a pattern in the worker and finds it", async () => {
    const outcome = await runRecall(analyzeRecall(hidden()), { query: "/a{40}!/" }, DEFAULT_RECALL_SETTINGS);
    expect(outcome.isError).toBe(false);
    expect(outcome.content).toContain("turn 1, call 1: ");
    expect(await matchInWorker(["xyz", "no"], /y/g, 1000)).toEqual({
      matches: [{ unit: 0, start: 1, end: 2 }],
      total: 1,
    });
  });

  it("takes a reference or a query, not both and not neither, and checks its arguments", async () => {
    const analysis = analyzeRecall(hidden());
    expect(
      await runRecall(analysis, { reference: "turn 1", query: "a" }, DEFAULT_RECALL_SETTINGS),
    ).toMatchObject({
      isError: true,
      content: expect.stringContaining("not both"),
    });
    expect(await runRecall(analysis, {}, DEFAULT_RECALL_SETTINGS)).toMatchObject({ isError: true });
    const tool = createRecallTool(DEFAULT_RECALL_SETTINGS);
    expect(tool.defaults).toEqual({ enable: true, run: "unattended" });
    const context = { events: hidden() } as unknown as ToolCallContext;
    expect(await callTool(tool, { page: 0, reference: "turn 1" }, context)).toMatchObject({ isError: true });
    expect(await callTool(tool, { reference: "turn 1, call 1" }, context)).toMatchObject({ isError: false });
  });

  it("reads its settings, refusing a budget under 4000 and what is not a list of patterns", () => {
    expect(readRecallSettings({})).toEqual(DEFAULT_RECALL_SETTINGS);
    const conversation = (recall: Record<string, string | number | boolean | string[] | number[]>) => ({
      conversation: { recall },
    });
    expect(
      readRecallSettings(conversation({ enabled: false, page_characters: 5000, exclude: "sk-" })),
    ).toEqual({
      ...DEFAULT_RECALL_SETTINGS,
      enabled: false,
      pageCharacters: 5000,
      exclude: ["sk-"],
    });
    expect(() => readRecallSettings(conversation({ page_characters: 3999 }))).toThrow("at least 4000");
    expect(() => readRecallSettings(conversation({ enabled: "yes" }))).toThrow("true or false");
    expect(() => readRecallSettings(conversation({ exclude: [1] }))).toThrow("list of patterns");
  });
});
