/**
 * Wire-request snapshots per compaction policy (jp's compaction request tests): a four-turn
 * conversation (signed reasoning turn, tool turn, plain turn, pending request) is projected with
 * the real projection, built into a neutral request and rendered by each wire API's pure request
 * builder (Anthropic Messages, Chat Completions as `openai`, Responses as `responses`, Google's
 * generateContent as `gemini`). The snapshots under fixtures/requests/<wire>/ are the exact JSON
 * bodies sent.
 */
import { describe, expect, it } from "vitest";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import { projectConversation } from "../../src/core/conversation/projection.js";
import { buildLlmRequest, type RequestOptions } from "../../src/core/conversation/request.js";
import { toAnthropicRequest } from "../../src/llm/anthropic.js";
import { toGeminiRequest } from "../../src/llm/google-request.js";
import { toOpenAIRequest } from "../../src/llm/openai.js";
import { toResponsesRequest } from "../../src/llm/responses.js";
import { type CompactionSpec, createEventBuilder, type EventBuilder } from "../helpers/builders.js";

function baseConversation(build: EventBuilder): ConversationEvent[] {
  const reasoning = {
    ...build.reasoning("The user greets me."),
    metadata: { anthropic_thinking_signature: "sig-0" },
  };
  return [
    build.turnStart(),
    build.request("Hello"),
    reasoning,
    build.message("Hi! How can I help?"),
    ...build.turn("What is in notes.md?", {
      tools: [
        { name: "read_file", callId: "call_1", arguments: { path: "notes.md" }, result: "# Notes\nbuy milk" },
      ],
      answer: "It says to buy milk.",
    }),
    ...build.turn("Thanks.", { answer: "You're welcome." }),
    build.turnStart(),
    build.request("One more question."),
  ];
}

const POLICIES: Record<string, (build: EventBuilder) => ConversationEvent[]> = {
  none: () => [],
  "strip-reasoning": (build) => [build.compaction({ from: 0, to: 0, reasoning: true })],
  "strip-tools": (build) => [build.compaction({ from: 1, to: 1, tools: "strip" })],
  "strip-requests": (build) => [build.compaction({ from: 1, to: 1, tools: "strip-requests" })],
  "strip-responses": (build) => [build.compaction({ from: 1, to: 1, tools: "strip-responses" })],
  omit: (build) => [build.compaction({ from: 1, to: 1, tools: "omit" })],
  summary: (build) => [
    build.compaction({ from: 0, to: 2, summary: "The user said hello and read notes.md." }),
  ],
  "overlapping-summary": (build) => {
    const first: CompactionSpec = { from: 0, to: 1, summary: "Summary A: greeting and notes." };
    const earlier = build.compaction(first);
    build.advance(1);
    return [earlier, build.compaction({ from: 1, to: 2, summary: "Summary B: notes and thanks." })];
  },
};

const OPTIONS: RequestOptions = {
  system: "You are a helpful assistant.",
  tools: [
    {
      name: "read_file",
      description: "Read a file.",
      parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    },
  ],
  toolChoice: { type: "auto" },
};

function requestFor(policy: string) {
  const build = createEventBuilder();
  const events = [...baseConversation(build), ...POLICIES[policy]!(build)];
  return buildLlmRequest(projectConversation(events).turns, OPTIONS);
}

function asFileContent(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

describe("wire requests per compaction policy", () => {
  for (const policy of Object.keys(POLICIES)) {
    it(`anthropic: ${policy}`, async () => {
      const body = toAnthropicRequest(requestFor(policy), "claude-sonnet-4-6");
      await expect(asFileContent(body)).toMatchFileSnapshot(
        `../../fixtures/requests/anthropic/${policy}.json`,
      );
    });
    it(`openai: ${policy}`, async () => {
      const body = toOpenAIRequest(requestFor(policy), "gpt-5");
      await expect(asFileContent(body)).toMatchFileSnapshot(`../../fixtures/requests/openai/${policy}.json`);
    });
    it(`responses: ${policy}`, async () => {
      const body = toResponsesRequest(requestFor(policy), "gpt-5", { modelId: "openai/gpt-5" });
      await expect(asFileContent(body)).toMatchFileSnapshot(
        `../../fixtures/requests/responses/${policy}.json`,
      );
    });
    it(`gemini: ${policy}`, async () => {
      const body = toGeminiRequest(requestFor(policy), { reasoning: true });
      await expect(asFileContent(body)).toMatchFileSnapshot(`../../fixtures/requests/gemini/${policy}.json`);
    });
  }

  it("policies change the wire request", () => {
    const baseline = JSON.stringify(toAnthropicRequest(requestFor("none"), "m"));
    for (const policy of Object.keys(POLICIES).filter((name) => name !== "none")) {
      expect(JSON.stringify(toAnthropicRequest(requestFor(policy), "m")), policy).not.toBe(baseline);
    }
  });
});
