/** The summarizer: what it sends, and which responses it accepts. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { groupTurns } from "../../src/core/conversation/turns.js";
import { createAnthropicClient } from "../../src/llm/anthropic.js";
import {
  buildSummaryRequestText,
  DEFAULT_SUMMARY_INSTRUCTIONS,
  summarizeWithModel,
} from "../../src/compaction/model-summarizer.js";
import type { LlmClient } from "../../src/llm/types.js";
import { createEventBuilder } from "../helpers/builders.js";
import { errorReply, type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";

let provider: FakeProvider;
let client: LlmClient;

beforeAll(async () => {
  provider = await startFakeProvider();
  client = createAnthropicClient({
    modelId: "anthropic/m",
    model: "m",
    apiKey: "k",
    baseURL: provider.anthropicBaseURL,
  });
});
afterAll(() => provider.close());
beforeEach(() => {
  provider.reset();
});

function rawTurns() {
  const build = createEventBuilder();
  return groupTurns([
    ...build.turn("Fix src/app.ts", {
      tools: [{ name: "read_file", callId: "c1", result: "code" }],
      answer: "Fixed.",
    }),
    ...build.turn("Thanks"),
  ]);
}

const options = () => ({ rawTurns: rawTurns(), model: "anthropic/m" });

describe("summarizeWithModel", () => {
  it("sends the raw turns natively with the default instructions and the final request", async () => {
    provider.enqueue(textReply("The user fixed src/app.ts."));
    const result = await summarizeWithModel(client, { ...options(), context: "  focus on files " });
    expect(result).toEqual({ ok: true, text: "The user fixed src/app.ts.", usage: expect.any(Object) });
    const body = provider.requests[0]!.body as {
      system: { text: string }[];
      messages: { role: string; content: { type: string; text?: string }[] }[];
      tools?: unknown;
    };
    expect(body.system[0]!.text).toBe(DEFAULT_SUMMARY_INSTRUCTIONS);
    expect(body.tools).toBeUndefined();
    expect(body.messages[1]!.content[0]!.type).toBe("tool_use");
    expect(body.messages.at(-1)).toMatchObject({
      role: "user",
      content: [
        { type: "text", text: "Summarize the conversation above.\n\nAdditional context: focus on files" },
      ],
    });
  });

  it("uses the rule's instructions instead of the default", async () => {
    provider.enqueue(textReply("ok"));
    await summarizeWithModel(client, { ...options(), instructions: "Only list files." });
    expect((provider.requests[0]!.body as { system: { text: string }[] }).system[0]!.text).toBe(
      "Only list files.",
    );
  });

  it("rejects truncated, refused, empty and failed responses with jp's reasons", async () => {
    provider.enqueue(
      textReply("partial", { stop: "max-tokens" }),
      textReply("no", { stop: "refusal" }),
      { blocks: [] },
      errorReply(401),
    );
    const reasons = [];
    for (let count = 0; count < 4; count++) {
      const result = await summarizeWithModel(client, options());
      expect(result.ok).toBe(false);
      if (!result.ok) reasons.push(result.reason);
    }
    expect(reasons.slice(0, 3)).toEqual([
      "the model hit its max output token limit, so any summary it produced would be truncated",
      "the model declined to summarize this conversation",
      "the model returned an empty response",
    ]);
    expect(reasons[3]).toContain("API key");
  });

  it("reports the model in the message and enforces the output limit", async () => {
    provider.enqueue(textReply("far too long a summary"));
    const result = await summarizeWithModel(client, { ...options(), maxResponseBytes: 5 });
    expect(result).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^Summarization failed for anthropic\/m: /),
    });
  });

  it("builds the request text", () => {
    expect(buildSummaryRequestText()).toBe("Summarize the conversation above.");
    expect(buildSummaryRequestText("   ")).toBe("Summarize the conversation above.");
  });
});
