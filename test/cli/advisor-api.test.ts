/**
 * The package's `cxc/advisor` entry (src/cli/advisor-api.ts), as a user's test would use it: the
 * offline mock decision model with forced answers, each question by its id and the cut point's
 * `live_from` apart; `advise` giving the seed's tier for a conversation at a context size, from
 * cxc's events or a pi session's branch; `pickLiveFrom` offering only turns that exist. The built
 * bundle (dist/advisor/index.js) is checked once too.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import {
  advise,
  type ConversationEvent,
  DEFAULT_TOKEN_LINES,
  mockDecisionClient,
  NEUTRAL_ANSWER,
  pickLiveFrom,
} from "../../src/cli/advisor-api.js";
import { cutPointCandidates } from "../../src/compaction/core/advisor/advisor.js";
import { PROJECT_ROOT } from "../helpers/cli.js";

function readLog(path: string): ConversationEvent[] {
  return readFileSync(join(PROJECT_ROOT, path), "utf8")
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => JSON.parse(line) as ConversationEvent);
}

/** The sample conversation: 20 turns of work on logcat. */
const SAMPLE = readLog("fixtures/sample/coding-session.jsonl");
const FORCED = { switched_gears: 0.9, at_boundary: 0.8, needs_history: 0, mid_operation: 0.1 };

/** The question text of a decision request. */
function question(request: { messages: readonly { parts: readonly { type: string }[] }[] }): string {
  const part = request.messages[0]!.parts[0] as { type: "text"; text: string };
  return part.text.slice(part.text.lastIndexOf("\n\n") + 2);
}

describe("the offline advisor mock", () => {
  it("gives the seed's example its tier: recommend at 105k tokens, past the recommend line", async () => {
    const client = mockDecisionClient(FORCED);
    const result = await advise({ client, events: SAMPLE, usage: { tokens: 105_000, pct: 52.5 } });
    expect(result.decision).toEqual({
      tier: "recommend",
      reason: "past the recommend line and the task changed",
    });
    expect(result.signals).toEqual(FORCED);
    expect(result.verdict).toMatchObject({
      should_compact: true,
      tier: "recommend",
      context_tokens: 105_000,
      context_percent: 52.5,
      lines: DEFAULT_TOKEN_LINES,
    });
    // One forced call of the advisor's own tool, with the transcript it always sends.
    expect(client.requests).toHaveLength(1);
    expect(client.requests[0]!.toolChoice).toEqual({ type: "tool", name: "answer_questions" });
    expect(question(client.requests[0]!)).toBe(
      "Answer the four questions about the latest request and the work before it.",
    );
  });

  it("forces each question on its own; the others answer 0.5, under which the tier follows the lines", async () => {
    const lines = { notice: 10, recommend: 20, request: 30 };
    const tier = async (answers: Parameters<typeof mockDecisionClient>[0], tokens: number) =>
      (await advise({ client: mockDecisionClient(answers), events: SAMPLE, usage: { tokens }, lines }))
        .decision;
    expect(await tier({}, 25)).toEqual({
      tier: "recommend",
      reason: "past the recommend line and the task changed",
    });
    expect(await tier({}, 35)).toMatchObject({ tier: "request" });
    expect(await tier({ mid_operation: 0.9 }, 35)).toEqual({
      tier: "silent",
      reason: "the agent is in the middle of an operation",
    });
    expect(await tier({ switched_gears: 0.1, at_boundary: 0.2 }, 35)).toEqual({
      tier: "silent",
      reason: "the work has not moved on",
    });
    expect(await tier({ needs_history: 0.9 }, 35)).toMatchObject({ tier: "recommend" });
    const neutral = await advise({
      client: mockDecisionClient(),
      events: SAMPLE,
      usage: { tokens: 5 },
      lines,
    });
    expect(neutral.signals).toEqual({
      switched_gears: NEUTRAL_ANSWER,
      at_boundary: NEUTRAL_ANSWER,
      needs_history: NEUTRAL_ANSWER,
      mid_operation: NEUTRAL_ANSWER,
    });
    expect(neutral.decision).toEqual({ tier: "silent", reason: "below the notice line" });
  });

  it("counts the context itself when no usage is given, and asks nothing when nothing can be compacted", async () => {
    const client = mockDecisionClient(FORCED);
    const measured = await advise({ client, events: SAMPLE });
    expect(measured.verdict.context_tokens).toBeGreaterThan(1000);
    expect(measured.decision).toEqual({ tier: "silent", reason: "below the notice line" });
    const ts = "2026-03-10T09:00:00.000000Z";
    const oneAnswer: ConversationEvent[] = [
      { type: "turn_start", id: "t1", ts },
      { type: "chat_request", id: "r1", ts, content: "Hello?" },
      { type: "chat_response", id: "a1", ts, message: "Hello." },
    ] as ConversationEvent[];
    const only = mockDecisionClient(FORCED);
    const single = await advise({ client: only, events: oneAnswer, usage: { tokens: 200_000 } });
    expect(single.decision).toEqual({ tier: "silent", reason: "nothing to compact yet" });
    expect(single.signals).toBeUndefined();
    expect(only.requests).toHaveLength(0);
  });

  it("forces the cut point's live_from without touching the four, and offers only turns that exist", async () => {
    const client = mockDecisionClient({ ...FORCED, live_from: { turn: 19, cycle: 2, confidence: 0.8 } });
    expect(await pickLiveFrom({ client, events: SAMPLE })).toEqual({
      turn: 19,
      cycle: 2,
      confidence: 0.8,
      movesCut: true,
    });
    expect(client.requests[0]!.toolChoice).toEqual({ type: "tool", name: "pick_live_from" });
    expect(question(client.requests[0]!)).toMatch(/^Which of turns 9, 10, .*, 19, 20 starts the work/);
    // A range that ends inside the last turn (pi's split turn) plans a candidate after it: turn 21
    // of 20 is never offered.
    const planned = cutPointCandidates({ from: 0, to: 19 }, 3);
    expect(planned).toEqual([18, 19, 20]);
    const asked = mockDecisionClient({ live_from: { turn: 21, confidence: 1 } });
    expect(
      await pickLiveFrom({ client: asked, events: SAMPLE, turns: planned.map((turn) => turn + 1) }),
    ).toBe(undefined);
    expect(question(asked.requests[0]!)).toMatch(/^Which of turns 19, 20 starts the work/);
    // Not forced, the answer never moves a cut.
    expect(await pickLiveFrom({ client: mockDecisionClient(), events: SAMPLE, turns: [1, 2] })).toEqual({
      turn: 1,
      confidence: 0,
      movesCut: false,
    });
  });

  it("reads a pi session's branch as the pi package converts it", async () => {
    const [header, ...branch] = readFileSync(join(PROJECT_ROOT, "fixtures/agents/pi/session.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; id: string });
    const client = mockDecisionClient(FORCED);
    const result = await advise({ client, branch, header: header!, usage: { tokens: 150_000 } });
    expect(result.decision.tier).toBe("request");
    expect(question(client.requests[0]!)).toContain("four questions");
    expect((client.requests[0]!.messages[0]!.parts[0] as { text: string }).text).toContain(
      "[turn 2]\nuser: Is there a changelog?",
    );
  });

  it("refuses answers that are not numbers from 0 to 1, a partial set of lines, and other tools", async () => {
    expect(() => mockDecisionClient({ mid_operation: 2 })).toThrow(
      "mockDecisionClient: mid_operation must be a number from 0 to 1, not 2",
    );
    await expect(
      advise({
        client: mockDecisionClient(),
        events: SAMPLE,
        usage: { tokens: 1 },
        lines: { notice: 5, recommend: 4, request: 6 },
      }),
    ).rejects.toThrow("advise: the token lines are a set, notice < recommend < request; got 5/4/6");
    const client = mockDecisionClient();
    const events = [];
    for await (const event of client.stream({
      messages: [],
      tools: [],
      toolChoice: { type: "tool", name: "summarize" },
    })) {
      events.push(event);
    }
    expect(events).toEqual([
      expect.objectContaining({
        type: "error",
        error: expect.objectContaining({
          message: "the mock decision model answers only answer_questions and pick_live_from, not summarize",
        }),
      }),
    ]);
  });

  it("is the built package's cxc/advisor entry (dist/advisor/index.js)", async () => {
    const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")) as {
      exports: Record<string, { import: string; types: string }>;
    };
    const entry = manifest.exports["./advisor"]!;
    expect(entry).toEqual({ types: "./dist/advisor/index.d.ts", import: "./dist/advisor/index.js" });
    const built = (await import(
      pathToFileURL(join(PROJECT_ROOT, entry.import)).href
    )) as typeof import("../../src/cli/advisor-api.js");
    const result = await built.advise({
      client: built.mockDecisionClient(FORCED),
      events: SAMPLE,
      usage: { tokens: 105_000 },
    });
    expect(result.decision.tier).toBe("recommend");
  });
});
