/**
 * A Google model (`google/<model>`) through the built CLI against the loopback fake provider, which
 * speaks the Gemini API for it (the real @google/genai SDK): a model summary with `compact -s`, and
 * a whole compaction review, whose proposal arrives as a Gemini function call with a thought
 * signature that the next request gives back. (The `compact` tool: compact-tool-cli.test.ts; the
 * advisor and automatic compaction: advisor-loop.test.ts; the adapter: test/llm/google.test.ts.)
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TempHome } from "../helpers/cli.js";
import { type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { compactionsOf, homeWithSample } from "./compact-helpers.js";
import { activeOf, readEvents, reviewOf, SAMPLE_ID } from "./review-helpers.js";

let provider: FakeProvider;
let home: TempHome;

beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(() => provider.close());
beforeEach(async () => {
  provider.reset();
  home = await homeWithSample();
});
afterEach(() => {
  home.cleanup();
  expect(provider.remaining()).toBe(0);
});

function cxc(args: string[]) {
  return home.run(args, {
    env: {
      GEMINI_API_KEY: "test-gemini-key",
      GOOGLE_GEMINI_BASE_URL: provider.url,
      CXC_ASSISTANT__MODEL__ID: "google/gemini-2.5-pro",
    },
  });
}

type GeminiBody = {
  contents: { role: string; parts: Record<string, unknown>[] }[];
  systemInstruction?: { parts: { text: string }[] };
};
const bodyOf = (index: number) => provider.requests[index]!.body as GeminiBody;

describe("a Google model", () => {
  it("writes a summary: the raw turns and the instructions on the Gemini wire, the reply stored", async () => {
    provider.enqueue(textReply("The user and the assistant added --since to logcat."));
    const result = await cxc(["conversation", "compact", "-s", "--turn", "3..5"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain("Generating summary of turns 3..5 with google/gemini-2.5-pro");
    const request = provider.requests[0]!;
    expect(request.path).toBe("/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse");
    expect(request.headers["x-goog-api-key"]).toBe("test-gemini-key");
    expect(bodyOf(0).systemInstruction?.parts[0]?.text).toContain("summar");
    expect(bodyOf(0).contents.at(-1)).toEqual({
      role: "user",
      parts: [{ text: "Summarize the conversation above." }],
    });
    expect(compactionsOf(home)[0]?.summary?.summary).toContain(
      "The user and the assistant added --since to logcat.",
    );
  });

  it("runs a review: the draft, a proposal as a Gemini function call, and --continue applies it", async () => {
    provider.enqueue(textReply("## Draft\n\nThe user wants --since on logcat."));
    const start = await cxc(["c", "compact", "--interactive", "--keep-last", "3"]);
    expect(start.exitCode, start.stderr).toBe(0);
    const reviewId = reviewOf(home, SAMPLE_ID)!;
    expect(activeOf(home)).toBe(reviewId);

    provider.enqueue(
      {
        blocks: [
          { type: "thinking", text: "The user agreed to turns 1..17.", signature: "sig-thought" },
          {
            type: "tool-call",
            id: "unused",
            name: "propose_compaction",
            arguments: { from_turn: 1, to_turn: 17, summary: "The agreed summary." },
            signature: "sig-call",
          },
        ],
      },
      textReply("Recorded."),
    );
    const round = await cxc(["q", "please record it"]);
    expect(round.exitCode, round.stderr).toBe(0);
    // The function's result goes back with the call and its signature, in the same request.
    const second = bodyOf(2).contents;
    const call = second.at(-2)!;
    expect(call.role).toBe("model");
    expect(call.parts).toEqual([
      { text: "The user agreed to turns 1..17.", thought: true, thoughtSignature: "sig-thought" },
      {
        functionCall: {
          id: expect.stringMatching(/^propose_compaction_/),
          name: "propose_compaction",
          args: { from_turn: 1, to_turn: 17, summary: "The agreed summary." },
        },
        thoughtSignature: "sig-call",
      },
    ]);
    expect(second.at(-1)).toMatchObject({
      role: "user",
      parts: [{ functionResponse: { name: "propose_compaction", response: { output: expect.any(String) } } }],
    });
    const stored = readEvents(home, reviewId).findLast((event) => event.type === "tool_call_request");
    // The call also carries the usage of the request it answered (docs/context.md).
    expect(stored?.metadata).toMatchObject({
      google_thought_signature: "sig-call",
      usage: expect.any(Object),
    });

    const applied = await cxc(["c", "compact", "--continue", "--yes"]);
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`Applied to ${SAMPLE_ID}: compacted turns 1..17 (summarize)`);
    expect(compactionsOf(home)[0]).toMatchObject({
      from_turn: 0,
      to_turn: 16,
      summary: { summary: "The agreed summary.", author: "assistant" },
    });
  });
});
