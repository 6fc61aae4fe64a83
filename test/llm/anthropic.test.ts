/** The Anthropic adapter against the loopback fake provider, through the real SDK. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createAnthropicClient, mapAnthropicStopReason } from "../../src/llm/anthropic.js";
import type { LlmClient } from "../../src/llm/types.js";
import { errorReply, type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { collectEvents, terminalEvents, textOf, userRequest } from "./stream-helpers.js";

let provider: FakeProvider;
let client: LlmClient;

beforeAll(async () => {
  provider = await startFakeProvider();
  client = createAnthropicClient({
    modelId: "anthropic/claude-test",
    model: "claude-test",
    apiKey: "test-key",
    baseURL: provider.anthropicBaseURL,
  });
});
afterAll(() => provider.close());
beforeEach(() => {
  provider.reset();
});

describe("anthropic adapter", () => {
  it("streams text and ends with one message-end", async () => {
    provider.enqueue(textReply("Hello there, friend.", { usage: { inputTokens: 12, outputTokens: 4 } }));
    const events = await collectEvents(client.stream(userRequest("hi")));
    expect(textOf(events)).toBe("Hello there, friend.");
    expect(events.filter((event) => event.type === "text-delta").length).toBeGreaterThan(1);
    expect(terminalEvents(events)).toEqual([
      {
        type: "message-end",
        finishReason: "stop",
        providerReason: "end_turn",
        usage: { inputTokens: 12, outputTokens: 4, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
    ]);
    expect(events.at(-1)?.type).toBe("message-end");
    const request = provider.requests[0]!;
    expect(request.path).toBe("/v1/messages");
    expect(request.headers.authorization ?? request.headers["x-api-key"]).toContain("test-key");
    expect(request.body).toMatchObject({ model: "claude-test", stream: true, max_tokens: 8192 });
  });

  it("keeps thinking signatures and sends them back as thinking blocks", async () => {
    provider.enqueue({
      blocks: [
        { type: "thinking", text: "Let me think.", signature: "sig-abc" },
        { type: "text", text: "Done." },
      ],
    });
    const events = await collectEvents(client.stream(userRequest("think")));
    const reasoning = events.filter((event) => event.type === "reasoning-delta");
    expect(reasoning.map((event) => event.text).join("")).toBe("Let me think.");
    expect(reasoning.at(-1)).toEqual({ type: "reasoning-delta", text: "", signature: "sig-abc" });

    provider.enqueue(textReply("ok"));
    await collectEvents(
      client.stream({
        messages: [
          { role: "user", parts: [{ type: "text", text: "think" }] },
          {
            role: "assistant",
            parts: [
              { type: "reasoning", text: "Let me think.", signature: "sig-abc" },
              { type: "tool-call", id: "call_1", name: "read", arguments: { path: "a" } },
            ],
          },
          {
            role: "user",
            parts: [
              { type: "tool-result", callId: "call_1", toolName: "read", content: "x", isError: false },
            ],
          },
        ],
        tools: [],
      }),
    );
    const body = provider.requests[1]!.body as { messages: { content: unknown[] }[] };
    expect(body.messages[1]!.content[0]).toEqual({
      type: "thinking",
      thinking: "Let me think.",
      signature: "sig-abc",
    });
  });

  it("assembles tool calls and reports tool-calls as the finish reason", async () => {
    provider.enqueue({
      blocks: [
        { type: "text", text: "Reading." },
        {
          type: "tool-call",
          id: "toolu_1",
          name: "read_file",
          arguments: { path: "notes.md", lines: [1, 2] },
        },
        { type: "tool-call", id: "toolu_2", name: "list", arguments: {} },
      ],
    });
    const events = await collectEvents(client.stream(userRequest("read")));
    expect(events.filter((event) => event.type === "tool-call")).toEqual([
      { type: "tool-call", id: "toolu_1", name: "read_file", arguments: { path: "notes.md", lines: [1, 2] } },
      { type: "tool-call", id: "toolu_2", name: "list", arguments: {} },
    ]);
    expect(terminalEvents(events)[0]).toMatchObject({ type: "message-end", finishReason: "tool-calls" });
  });

  it("reports cache reads and writes in usage", async () => {
    provider.enqueue(
      textReply("cached", {
        usage: { inputTokens: 3, outputTokens: 2, cacheReadTokens: 900, cacheWriteTokens: 40 },
      }),
    );
    const events = await collectEvents(client.stream(userRequest("hi")));
    expect(terminalEvents(events)[0]).toMatchObject({
      usage: { inputTokens: 3, outputTokens: 2, cacheReadTokens: 900, cacheWriteTokens: 40 },
    });
  });

  it("maps max tokens to length", async () => {
    provider.enqueue(textReply("trunc", { stop: "max-tokens" }));
    const events = await collectEvents(client.stream(userRequest("hi")));
    expect(terminalEvents(events)[0]).toMatchObject({ finishReason: "length", providerReason: "max_tokens" });
  });

  it("ends a stream cut mid-way with exactly one error event", async () => {
    provider.enqueue({ ...textReply("one two three four five six"), cutAfterEvents: 5 });
    const events = await collectEvents(client.stream(userRequest("hi")));
    expect(terminalEvents(events)).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: "error", error: { kind: "network", retryable: true } });
  });

  it("classifies an overloaded error sent mid-stream", async () => {
    provider.enqueue(errorReply(529, { midStream: true, message: "Overloaded" }));
    const events = await collectEvents(client.stream(userRequest("hi")));
    expect(terminalEvents(events)).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: "error", error: { kind: "overloaded", retryable: true } });
  });

  it("ends with an aborted error when the caller aborts a slow stream", async () => {
    provider.enqueue({ ...textReply("a b c d e f g h"), chunkDelayMs: 30 });
    const controller = new AbortController();
    const events = [];
    for await (const event of client.stream(userRequest("hi"), { signal: controller.signal })) {
      events.push(event);
      if (event.type === "text-delta") controller.abort();
    }
    expect(terminalEvents(events)).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: "error", error: { kind: "aborted", retryable: false } });
  });

  it("maps stop reasons", () => {
    expect(mapAnthropicStopReason("end_turn")).toBe("stop");
    expect(mapAnthropicStopReason("stop_sequence")).toBe("stop");
    expect(mapAnthropicStopReason("tool_use")).toBe("tool-calls");
    expect(mapAnthropicStopReason("refusal")).toBe("refusal");
    expect(mapAnthropicStopReason("pause_turn")).toBe("other");
    expect(mapAnthropicStopReason(null)).toBe("other");
  });
});
