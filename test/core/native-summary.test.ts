/**
 * Where a provider's own summary can stand (compaction/core/summary/native.ts, pure), and the
 * Anthropic wire's replay of a compaction block (llm/anthropic-request.ts, pure): first, only to
 * the same provider and model family, with the beta; as text anywhere else.
 */
import { describe, expect, it } from "vitest";
import { nativeSummaryObstacle } from "../../src/compaction/core/summary/native.js";
import type { ConversationEvent, NativeSummary } from "../../src/core/conversation/events.js";
import { projectConversation } from "../../src/core/conversation/projection.js";
import { buildLlmRequest } from "../../src/core/conversation/request.js";
import { requestBetas, toAnthropicRequest } from "../../src/llm/anthropic-request.js";
import { createEventBuilder } from "../helpers/builders.js";

function conversation(): ConversationEvent[] {
  const build = createEventBuilder();
  return [...build.turn("q0"), ...build.turn("q1"), ...build.turn("q2"), ...build.turn("q3")];
}

const NATIVE: NativeSummary = {
  format: "anthropic-compaction",
  provider: "anthropic",
  model: "anthropic/claude-opus-4-6",
  content: "Readable summary.",
  signature: "sig-1",
};

describe("where a native summary can stand", () => {
  it("stands from turn 1 over whole turns, alone", () => {
    expect(nativeSummaryObstacle(conversation(), { from: 0, to: 2 })).toBeUndefined();
  });

  it("names the turns kept before the range, and how to agree to moving them", () => {
    expect(nativeSummaryObstacle(conversation(), { from: 1, to: 2 })).toBe(
      "turn 1 is kept before the range, and a native summary must start at turn 1 (the provider wants it first); compact from turn 1 (--keep-first 0 or --from 1) to move it into the summary",
    );
    expect(nativeSummaryObstacle(conversation(), { from: 2, to: 3 })).toMatch(/^turns 1\.\.2 are kept/);
  });

  it("refuses a range inside a turn, a summary planned after it, or one in force after it", () => {
    expect(nativeSummaryObstacle(conversation(), { from: 0, to: 1, toCycle: 0 })).toMatch(/whole turns/);
    expect(nativeSummaryObstacle(conversation(), { from: 0, to: 1 }, [{ from: 2, to: 3 }])).toBe(
      "another summary is planned with it (turns 3..4), and a native summary must be the only one",
    );
    const build = createEventBuilder();
    const events = [
      ...build.turn("q0"),
      ...build.turn("q1"),
      ...build.turn("q2"),
      build.compaction({ from: 1, to: 2, summary: "later" }),
    ];
    expect(nativeSummaryObstacle(events, { from: 0, to: 0 })).toMatch(
      /^a summary of turns 2\.\.3 stays in force after it/,
    );
    // Compacting again over it is fine: the new block replaces it.
    expect(nativeSummaryObstacle(events, { from: 0, to: 2 })).toBeUndefined();
  });
});

describe("the Anthropic wire replays a compaction block", () => {
  function request() {
    const build = createEventBuilder();
    const events = [
      ...build.turn("q0"),
      ...build.turn("q1"),
      build.compaction({
        from: 0,
        to: 0,
        summary: {
          summary: NATIVE.content!,
          source: "derived",
          facts: "[Facts]\nFiles read: a.ts",
          native: NATIVE,
        },
      }),
    ];
    return buildLlmRequest(projectConversation(events).turns);
  }

  it("first, without the opener, the facts after it, to the same model family (a dated snapshot too)", () => {
    for (const modelId of ["anthropic/claude-opus-4-6", "anthropic/claude-opus-4-6-20261001"]) {
      const body = toAnthropicRequest(request(), modelId.slice("anthropic/".length), {
        modelId,
        cache: false,
      });
      expect(body.messages[0]).toEqual({
        role: "assistant",
        content: [{ type: "compaction", content: NATIVE.content, signature: NATIVE.signature }],
      });
      expect(JSON.stringify(body.messages[1])).toContain("[Facts]");
      expect(JSON.stringify(body.messages)).not.toContain("[Summary of previous conversation]");
      expect(requestBetas(body, "compact-2026-09-04")).toBe("compact-2026-09-04");
    }
  });

  it("as text to another model family, with no beta", () => {
    const body = toAnthropicRequest(request(), "claude-sonnet-4-6", {
      modelId: "anthropic/claude-sonnet-4-6",
      cache: false,
    });
    expect(JSON.stringify(body.messages)).not.toContain('"type":"compaction"');
    expect(JSON.stringify(body.messages)).toContain("[Summary of previous conversation]");
    expect(JSON.stringify(body.messages)).toContain(NATIVE.content);
    expect(requestBetas(body, "compact-2026-09-04")).toBeUndefined();
  });
});
