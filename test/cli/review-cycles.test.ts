/**
 * A compaction review of an agent-style session (one user message, eleven cycles), end to end:
 * the opening draft of a range inside the turn, the `[turn N, cycle C]` markers the review model
 * sees, a `propose_compaction` call with `to_cycle`, its checks, and `--continue` applying it as a
 * summary that stands where the cycles were (docs/review.md, "Inside a turn").
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import { createEventBuilder } from "../helpers/builders.js";
import type { TempHome } from "../helpers/cli.js";
import { agentTurn } from "../helpers/cycles.js";
import { type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import {
  homeWithSample,
  providerEnv,
  proposalRound,
  readEvents,
  reviewOf,
  SAMPLE_ID,
} from "./review-helpers.js";

let provider: FakeProvider;
let home: TempHome;
beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(() => provider?.close());
afterEach(() => {
  home?.cleanup();
  expect(provider.remaining()).toBe(0);
  provider.reset();
});

function agentSession(): ConversationEvent[] {
  const build = createEventBuilder();
  return agentTurn(
    build,
    "fix the bug",
    [2, 1, 1, 2, 1, 1, 2, 1, 1, 2].map((calls, index) => ({
      reasoning: `thinking in cycle ${index + 1}`,
      calls,
    })),
    "the bug is fixed",
  );
}

function cxc(args: string[]) {
  return home.run(args, { env: providerEnv(provider) });
}

/** The messages of request `index` as one JSON text. */
function requestText(index: number): string {
  return JSON.stringify((provider.requests[index]!.body as { messages: unknown }).messages);
}

/** The content of the tool result the review stored for call `callId`. */
function toolResult(reviewId: string, callId: string): { content: string; is_error: boolean } {
  const event = readEvents(home, reviewId).find(
    (candidate) => candidate.type === "tool_call_response" && candidate.call_id === callId,
  );
  if (event?.type !== "tool_call_response") throw new Error(`no result for ${callId}`);
  return event;
}

async function startReview(): Promise<string> {
  home = await homeWithSample(agentSession());
  const result = await cxc([
    "c",
    "compact",
    "--interactive",
    "-m",
    "builtin/digest",
    "--keep-first",
    "0",
    "--keep-last",
    "5 calls",
  ]);
  expect(result.exitCode, result.stderr).toBe(0);
  // The draft covers the cycles before the last five calls' cycles; the user's message stays.
  expect(result.stdout).toContain("Proposed: compact turn 1, cycles 1..6 (summarize)");
  return reviewOf(home, SAMPLE_ID)!;
}

describe("a review of a range inside a turn", () => {
  it("marks cycles, takes a proposal that ends at a cycle, and --continue applies it where the cycles were", async () => {
    const reviewId = await startReview();
    const opening = readEvents(home, reviewId).find(
      (event) => event.type === "tool_call_request" && event.name === "propose_compaction",
    );
    expect(opening).toMatchObject({ arguments: { from_turn: 1, to_turn: 1, from_cycle: 1, to_cycle: 6 } });

    // The review model sees the markers of the turn and of each cycle's first result.
    provider.enqueue(
      ...proposalRound(
        { from_turn: 1, to_turn: 1, to_cycle: 4, summary: "Read eight files." },
        "Recorded.",
        "toolu_c1",
      ),
    );
    const round = await cxc(["q", "only the first four cycles, please"]);
    expect(round.exitCode, round.stderr).toBe(0);
    const seen = requestText(0);
    expect(seen).toContain("[turn 1] fix the bug");
    expect(seen).toContain("[turn 1, cycle 2] contents of cycle 1 call 0");
    expect(seen).not.toContain("[turn 1, cycle 1] [turn 1, cycle 1]");
    expect(toolResult(reviewId, "toolu_c1")).toMatchObject({
      is_error: false,
      content: expect.stringMatching(/^Proposed: compact turn 1, cycles 1\.\.4 \(summarize\)\n/),
    });

    const applied = await cxc(["c", "compact", "--continue", "--yes"]);
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect(applied.stderr).toContain(
      "Proposed: compact turn 1, cycles 1..4 (summarize)\nThe conversation now has 1 turn; turn 1 from cycle 5 stays uncompacted.",
    );
    expect(applied.stdout).toContain(`Applied to ${SAMPLE_ID}: compacted turn 1, cycles 1..4 (summarize).`);
    const [compaction] = readEvents(home).filter((event) => event.type === "compaction");
    expect(compaction).toMatchObject({
      from_turn: 0,
      to_turn: 0,
      cycles: {
        from: 0,
        to: 3,
        summary: { summary: "Read eight files.", source: "supplied", author: "assistant" },
      },
    });

    provider.enqueue(textReply("next"));
    const next = await cxc(["q", "what next?"]);
    expect(next.exitCode, next.stderr).toBe(0);
    const sent = requestText(provider.requests.length - 1);
    expect(sent).toContain(
      '"fix the bug"},{"type":"text","text":"[Summary of earlier steps in this turn]\\n\\nRead eight files.\\n\\n[Facts of these turns, from their raw events]\\nFiles read: fix-the-bug-0-0.ts',
    );
    expect(sent).not.toContain("contents of cycle 3 call 1");
    expect(sent).toContain("contents of cycle 4 call 0");
  });

  it("tells the model what to fix (a cycle past the turn, a range that runs backwards) and applies a mechanical cycle range", async () => {
    const reviewId = await startReview();
    provider.enqueue(
      ...proposalRound(
        { from_turn: 1, to_turn: 1, to_cycle: 99, summary: "x" },
        "Let me fix that.",
        "toolu_bad1",
      ),
    );
    expect((await cxc(["q", "try"])).exitCode).toBe(0);
    expect(toolResult(reviewId, "toolu_bad1")).toEqual(
      expect.objectContaining({
        is_error: true,
        content: "`to_cycle`: turn 1 has 11 cycles; there is no cycle 99",
      }),
    );
    provider.enqueue(
      ...proposalRound(
        { from_turn: 1, to_turn: 1, from_cycle: 5, to_cycle: 2, tool_calls: "strip" },
        "Oops.",
        "toolu_bad2",
      ),
    );
    expect((await cxc(["q", "again"])).exitCode).toBe(0);
    expect(toolResult(reviewId, "toolu_bad2").content).toBe(
      "`from_cycle` (5) is after `to_cycle` (2); the range must run forwards",
    );
    // A mechanical range may start at any cycle and end at another.
    provider.enqueue(
      ...proposalRound(
        { from_turn: 1, to_turn: 1, from_cycle: 2, to_cycle: 6, tool_calls: "strip-responses" },
        "Done.",
        "toolu_ok",
      ),
    );
    expect((await cxc(["q", "mask instead"])).exitCode).toBe(0);
    expect(toolResult(reviewId, "toolu_ok").content).toMatch(
      /^Proposed: compact turn 1, cycles 2\.\.6 \(strip tool responses\)\n/,
    );
    const applied = await cxc(["--format", "json", "c", "compact", "--continue", "--yes"]);
    expect(JSON.parse(applied.stdout)).toMatchObject({
      outcome: "applied",
      from_turn: 1,
      to_turn: 1,
      from_cycle: 2,
      to_cycle: 6,
    });
    const [compaction] = readEvents(home).filter((event) => event.type === "compaction");
    expect(compaction).toMatchObject({
      cycles: { from: 1, to: 5, tool_calls: { policy: "strip", request: false, response: true } },
    });
  });
});
