/**
 * The `propose_compaction` tool and the review's configuration entry, without the CLI: the tool
 * validates against the source the review's record names, read from the call's store (a memory
 * store here); the fork-time entry turns inherited tools off
 * and only `propose_compaction` on, and `applyReviewConfig` applies only marked entries, so the
 * query loop's tool selection sees exactly that.
 */
import { describe, expect, it } from "vitest";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import { applyReviewConfig, REVIEW_CONFIG_METADATA_KEY } from "../../src/compaction/core/review/review.js";
import {
  buildReviewConfigDelta,
  chooseOpeningRule,
  chooseReviewModel,
} from "../../src/cli/compaction/review-start.js";
import { readQuerySettings } from "../../src/query/settings.js";
import { selectTools } from "../../src/query/tool-selection.js";
import { createMemoryStore, type Store } from "../../src/store/index.js";
import { proposeCompactionTool as tool } from "../../src/tools/propose-compaction.js";
import { createBuiltinRegistry } from "../../src/tools/registry.js";
import { callTool, type ToolCallContext } from "../../src/tools/tool.js";
import { createEventBuilder } from "../helpers/builders.js";

const build = createEventBuilder();

function context(store: Store): ToolCallContext {
  return {
    conversationId: "review1",
    callId: "call-1",
    events: [],
    signal: new AbortController().signal,
    cwd: "/nonexistent",
    store,
    newEventId: () => "id",
    now: () => "2026-01-01T00:00:00.000Z",
  };
}

/** A store holding conversation `src` with `events` and `review1`, a review of it. */
async function reviewOf(events: readonly ConversationEvent[]): Promise<Store> {
  const store = await createMemoryStore();
  store.create({ id: "src", events });
  store.create({ id: "review1", reviewOf: "src" });
  return store;
}

describe("propose_compaction", () => {
  const sourceEvents = build.turns(20);

  it("is registered as a built-in, off by default, recorded without approval", () => {
    const tool = createBuiltinRegistry().get("propose_compaction");
    expect(tool?.defaults).toEqual({ enable: false, run: "unattended" });
    expect(tool?.arguments.schema).toMatchObject({ required: ["from_turn", "to_turn"] });
  });

  it("returns the rendered proposal for a valid call", async () => {
    const outcome = await callTool(
      tool,
      { from_turn: 1, to_turn: 17, summary: "S" },
      context(await reviewOf(sourceEvents)),
    );
    expect(outcome.isError).toBe(false);
    expect(outcome.content.split("\n")[0]).toBe("Proposed: compact turns 1..17 of 20 (summarize)");
    expect(outcome.effects).toBeUndefined();
  });

  it("tells the model what a summary does not mention of the turns it replaces", async () => {
    const events = [
      ...build.turn("Read src/since.ts and keep the `retryCount` at 3 retries"),
      ...build.turn("Never touch README.md"),
      ...build.turns(2),
    ];
    const store = await reviewOf(events);
    const vague = await callTool(tool, { from_turn: 1, to_turn: 2, summary: "We talked." }, context(store));
    expect(vague.content.split("\n").slice(2)).toEqual([
      "The summary of turns 1..2 does not mention these 2 items:",
      "  identifier  retryCount — named by the user in turn 1",
      "  number      3 retries — the user's, turn 1",
      "If any of these matter for the rest of the work, call propose_compaction again with a summary that includes them.",
    ]);
    const thorough = await callTool(
      tool,
      {
        from_turn: 1,
        to_turn: 2,
        summary: 'Read src/since.ts; retryCount stays at 3 retries. "Never touch README.md".',
      },
      context(store),
    );
    expect(thorough.content).toContain(
      "The summary of turns 1..2 mentions every identifier and number the summary check looks for.",
    );
    expect(thorough.content).not.toContain("call propose_compaction again");
    expect(thorough.content.split("\n")[0]).toBe("Proposed: compact turns 1..2 of 4 (summarize)");
  });

  it("returns the problem as a tool error", async () => {
    const outcome = await callTool(
      tool,
      { from_turn: 1, to_turn: 25, summary: "S" },
      context(await reviewOf(sourceEvents)),
    );
    expect(outcome).toEqual({
      isError: true,
      content: "the conversation has 20 turns, `to_turn` was 25",
    });
  });

  it("is an error where no source is recorded", async () => {
    const store = await createMemoryStore();
    store.create({ id: "review1" });
    const outcome = await callTool(tool, { from_turn: 1, to_turn: 2, summary: "S" }, context(store));
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toContain("not a compaction review");
  });

  it("is an error when the source under review was removed", async () => {
    const store = await reviewOf(sourceEvents);
    await store.remove("src");
    const outcome = await callTool(tool, { from_turn: 1, to_turn: 2, summary: "S" }, context(store));
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toContain("src");
  });
});

describe("the review's configuration entry", () => {
  const configured = {
    conversation: {
      tools: { shell: { command: "echo", description: "run a command", enable: true } },
    },
    assistant: { instructions: "Be a coding assistant." },
  };

  function selectedNames(config: Record<string, unknown>): string[] {
    const settings = readQuerySettings(config as never);
    return selectTools({ registry: createBuiltinRegistry(), configured: settings.tools })
      .tools.map((entry) => entry.tool.name)
      .sort();
  }

  it("leaves an ordinary conversation's tools alone (propose_compaction stays off)", () => {
    const events = [
      ...build.turns(2),
      build.configDelta({ conversation: { tools: { "*": { enable: false } } } }),
    ];
    expect(applyReviewConfig(configured as never, events)).toBe(configured);
    expect(selectedNames(configured)).toEqual(["shell"]);
  });

  it("turns inherited tools off and only propose_compaction on, with the review instructions", () => {
    const delta = buildReviewConfigDelta({
      inheritedTools: ["*", "shell"],
      instructions: "Review it.",
      model: { id: "anthropic/claude-opus-4-6" },
    });
    const marked = { ...build.configDelta(delta), metadata: { [REVIEW_CONFIG_METADATA_KEY]: true } };
    const effective = applyReviewConfig(configured as never, [...build.turns(2), marked]);
    expect(selectedNames(effective)).toEqual(["propose_compaction"]);
    expect(readQuerySettings(effective).instructions).toBe("Review it.");
    expect(effective).toMatchObject({ assistant: { model: { id: "anthropic/claude-opus-4-6" } } });
    // The configured tool keeps its definition; only its switch changed.
    expect(effective).toMatchObject({
      conversation: { tools: { shell: { command: "echo", enable: false } } },
    });
  });

  it("picks the review model: -m over conversation.compaction.review.model, digest never", () => {
    const config = {
      conversation: { compaction: { review: { model: { id: "anthropic/a", parameters: { x: 1 } } } } },
    };
    expect(chooseReviewModel(config as never, undefined)).toEqual({
      id: "anthropic/a",
      parameters: { x: 1 },
    });
    expect(chooseReviewModel(config as never, "openai/b").id).toBe("openai/b");
    expect(chooseReviewModel(config as never, "builtin/digest").id).toBe("anthropic/a");
    expect(chooseReviewModel({}, undefined)).toEqual({});
  });

  it("opens on the first configured rule with a summary, else the default range, always summarizing", () => {
    const rules = [
      { keep_last: 2, reasoning: "strip" },
      { keep_first: 3, keep_last: 4, summary: { context: "c" } },
    ];
    const rule = chooseOpeningRule({ conversation: { compaction: { rules } } } as never, "builtin/digest");
    expect(rule).toEqual({
      keep_first: { kind: "count", unit: "turns", count: 3, from: "start" },
      keep_last: { kind: "count", unit: "turns", count: 4, from: "end" },
      summary: { context: "c", model: { id: "builtin/digest" } },
    });
    expect(
      chooseOpeningRule({
        conversation: { compaction: { rules: [{ keep_last: 2, reasoning: "strip" }] } },
      } as never),
    ).toEqual({
      keep_first: { kind: "count", unit: "turns", count: 1, from: "start" },
      keep_last: { kind: "count", unit: "turns", count: 1, from: "end" },
      summary: {},
    });
  });
});
