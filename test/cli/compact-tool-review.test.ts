/**
 * The `compact` tool refuses to record compactions while a compaction review of the conversation
 * is open (no compaction write reaches a source under review). The review is found in the store the
 * call comes with, a memory store here.
 */
import { describe, expect, it } from "vitest";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import { createMemoryStore, type StoreReader } from "../../src/store/index.js";
import { compactTool } from "../../src/tools/compact.js";
import { callTool, checkArguments, type ToolCallContext } from "../../src/tools/tool.js";
import { createEventBuilder } from "../helpers/builders.js";

function contextFor(
  store: StoreReader,
  conversationId: string,
  events: readonly ConversationEvent[],
): ToolCallContext {
  let counter = 0;
  return {
    conversationId,
    callId: "call-1",
    events,
    signal: new AbortController().signal,
    cwd: "/nonexistent",
    store,
    newEventId: () => `01TESTEVENT${String(++counter).padStart(15, "0")}`,
    now: () => "2026-11-30T10:00:00.000Z",
  };
}

describe("the compact tool and an open review", () => {
  const build = createEventBuilder();
  const events = [...build.turns(4), ...build.turn("the current task")];
  const args = {
    rules: [{ keep_first: 0, keep_last: 1, summary: "Earlier work, summarized.", note: "tidy up" }],
  };

  it("records compactions when no review is open", async () => {
    const store = await createMemoryStore();
    const source = store.create({ events });
    const outcome = await callTool(compactTool, args, contextFor(store, source.id, events));
    expect(outcome.isError, outcome.content).toBe(false);
    expect(outcome.effects?.length).toBe(1);
  });

  it("is a tool error naming the review while one is open, and records nothing", async () => {
    const store = await createMemoryStore();
    const source = store.create({ events });
    const review = store.create({ reviewOf: source.id });
    const run = (argumentsObject: typeof args, context: ToolCallContext) =>
      callTool(compactTool, argumentsObject, context);
    const precheck = async (argumentsObject: typeof args, context: ToolCallContext) => {
      const checked = await checkArguments(compactTool, argumentsObject);
      return checked.ok ? compactTool.precheck!(checked.value, context) : checked.outcome;
    };
    for (const call of [run, precheck]) {
      const outcome = await call(args, contextFor(store, source.id, events));
      expect(outcome?.isError).toBe(true);
      expect(outcome?.content).toContain(review.id);
      expect(outcome?.effects ?? []).toEqual([]);
    }
  });

  it("records again once the review is archived", async () => {
    const store = await createMemoryStore();
    const source = store.create({ events });
    const review = store.create({ reviewOf: source.id });
    await store.archive(review.id);
    const outcome = await callTool(compactTool, args, contextFor(store, source.id, events));
    expect(outcome.isError, outcome.content).toBe(false);
  });
});
