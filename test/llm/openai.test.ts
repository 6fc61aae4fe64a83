/** The Chat Completions adapter against the loopback fake provider, through the real SDK. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createOpenAIClient, mapOpenAIFinishReason } from "../../src/llm/openai.js";
import type { LlmClient } from "../../src/llm/types.js";
import { type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { collectEvents, terminalEvents, textOf, userRequest } from "./stream-helpers.js";

let provider: FakeProvider;
let client: LlmClient;

beforeAll(async () => {
  provider = await startFakeProvider();
  client = createOpenAIClient({
    modelId: "openai/gpt-test",
    model: "gpt-test",
    apiKey: "test-key",
    baseURL: provider.openaiBaseURL,
  });
});
afterAll(() => provider.close());
beforeEach(() => {
  provider.reset();
});

describe("openai adapter", () => {
  it("streams text, asks for usage and ends with one message-end", async () => {
    provider.enqueue(textReply("Hello there, friend.", { usage: { inputTokens: 12, outputTokens: 4 } }));
    const events = await collectEvents(client.stream(userRequest("hi", { system: "be brief" })));
    expect(textOf(events)).toBe("Hello there, friend.");
    expect(terminalEvents(events)).toEqual([
      {
        type: "message-end",
        finishReason: "stop",
        providerReason: "stop",
        usage: { inputTokens: 12, outputTokens: 4, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
    ]);
    const request = provider.requests[0]!;
    expect(request.path).toBe("/v1/chat/completions");
    expect(request.headers.authorization).toBe("Bearer test-key");
    expect(request.body).toMatchObject({
      model: "gpt-test",
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "hi" },
      ],
    });
  });

  it("assembles streamed tool-call argument deltas", async () => {
    provider.enqueue({
      blocks: [
        {
          type: "tool-call",
          id: "call_1",
          name: "read_file",
          arguments: { path: "notes.md", lines: [1, 2] },
        },
        { type: "tool-call", id: "call_2", name: "list", arguments: { deep: true } },
      ],
    });
    const events = await collectEvents(client.stream(userRequest("read")));
    expect(events.filter((event) => event.type === "tool-call")).toEqual([
      { type: "tool-call", id: "call_1", name: "read_file", arguments: { path: "notes.md", lines: [1, 2] } },
      { type: "tool-call", id: "call_2", name: "list", arguments: { deep: true } },
    ]);
    expect(terminalEvents(events)[0]).toMatchObject({ finishReason: "tool-calls" });
  });

  it("reads reasoning_content deltas and cached prompt tokens", async () => {
    provider.enqueue({
      blocks: [
        { type: "thinking", text: "pondering deeply", signature: "ignored" },
        { type: "text", text: "answer" },
      ],
      usage: { inputTokens: 5, outputTokens: 3, cacheReadTokens: 100 },
    });
    const events = await collectEvents(client.stream(userRequest("q")));
    const reasoning = events.flatMap((event) => (event.type === "reasoning-delta" ? [event.text] : []));
    expect(reasoning.join("")).toBe("pondering deeply");
    expect(terminalEvents(events)[0]).toMatchObject({
      usage: { inputTokens: 5, outputTokens: 3, cacheReadTokens: 100, cacheWriteTokens: 0 },
    });
  });

  it("maps length and ends a cut stream with exactly one error", async () => {
    provider.enqueue(textReply("cut short", { stop: "max-tokens" }));
    const truncated = await collectEvents(client.stream(userRequest("q")));
    expect(terminalEvents(truncated)[0]).toMatchObject({ finishReason: "length" });

    provider.enqueue({ ...textReply("one two three four"), cutAfterEvents: 3 });
    const cut = await collectEvents(client.stream(userRequest("q")));
    expect(terminalEvents(cut)).toHaveLength(1);
    expect(cut.at(-1)).toMatchObject({ type: "error", error: { kind: "network", retryable: true } });
  });

  it("maps finish reasons", () => {
    expect(mapOpenAIFinishReason("stop")).toBe("stop");
    expect(mapOpenAIFinishReason("length")).toBe("length");
    expect(mapOpenAIFinishReason("tool_calls")).toBe("tool-calls");
    expect(mapOpenAIFinishReason("content_filter")).toBe("refusal");
    expect(mapOpenAIFinishReason(null)).toBe("other");
  });
});

describe("toOpenAIRequest", () => {
  it("drops an assistant message with nothing Chat Completions can carry", async () => {
    const { toOpenAIRequest } = await import("../../src/llm/openai.js");
    const body = toOpenAIRequest(
      {
        messages: [
          { role: "user", parts: [{ type: "text", text: "q" }] },
          { role: "assistant", parts: [{ type: "redacted-reasoning", data: "opaque" }] },
        ],
        tools: [],
        maxOutputTokens: 10,
      },
      "m",
      { maxTokensField: "max_tokens" },
    );
    expect(body.messages).toEqual([{ role: "user", content: "q" }]);
    expect(body).toMatchObject({ max_tokens: 10 });
  });
});
