/**
 * The `compact` tool refuses to record compactions while a compaction review of the conversation
 * is open (seed D66: no compaction write reaches a source under review).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ConversationEvent } from "../../src/core/events.js";
import { ConversationStore } from "../../src/store/store.js";
import { compactTool } from "../../src/tools/compact.js";
import type { ToolCallContext } from "../../src/tools/tool.js";
import { createEventBuilder } from "../helpers/builders.js";

let base: string;
let savedHome: string | undefined;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "cxc-tool-review-"));
  savedHome = process.env.CXC_HOME;
  process.env.CXC_HOME = join(base, "home");
});
afterEach(() => {
  if (savedHome === undefined) delete process.env.CXC_HOME;
  else process.env.CXC_HOME = savedHome;
  rmSync(base, { recursive: true, force: true });
});

function contextFor(conversationId: string, events: readonly ConversationEvent[]): ToolCallContext {
  let counter = 0;
  return {
    conversationId,
    callId: "call-1",
    events,
    signal: new AbortController().signal,
    cwd: base,
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
    const store = ConversationStore.open(base, process.env);
    const source = store.create({ events });
    const outcome = await compactTool.run(args, contextFor(source.id, events));
    expect(outcome.isError, outcome.content).toBe(false);
    expect(outcome.effects?.length).toBe(1);
  });

  it("is a tool error naming the review while one is open, and records nothing", async () => {
    const store = ConversationStore.open(base, process.env);
    const source = store.create({ events });
    const review = store.create({ extra: { compaction_source: source.id } });
    const outcome = await compactTool.run(args, contextFor(source.id, events));
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toContain(review.id);
    expect(outcome.effects ?? []).toEqual([]);
  });
});
