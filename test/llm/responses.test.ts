/**
 * The Responses API adapter against the loopback fake provider, through the real openai SDK: text,
 * reasoning summaries and the encrypted reasoning kept and given back to the model that wrote it,
 * parallel function calls and their results, usage, stop reasons, failures mid-stream, cut and
 * stalled streams, interrupts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TurnEvent } from "../../src/core/conversation/events.js";
import { createStreamFold, foldStreamEvent } from "../../src/core/conversation/fold-stream.js";
import { buildLlmRequest } from "../../src/core/conversation/request.js";
import { withIdleTimeout } from "../../src/llm/idle-timeout.js";
import { createResponsesClient, toResponsesRequest } from "../../src/llm/responses.js";
import { withRetry } from "../../src/llm/retry.js";
import type { LlmClient, LlmStreamEvent } from "../../src/llm/types.js";
import {
  contextOverflowReply,
  errorReply,
  type FakeProvider,
  startFakeProvider,
  textReply,
} from "../helpers/fake-provider.js";
import { collectEvents, terminalEvents, textOf, userRequest } from "./stream-helpers.js";

let provider: FakeProvider;
let client: LlmClient;

const responsesClient = (modelId = "openai/gpt-5-codex") =>
  createResponsesClient({
    modelId,
    model: modelId.slice(modelId.indexOf("/") + 1),
    apiKey: "test-key",
    baseURL: provider.openaiBaseURL,
  });

beforeAll(async () => {
  provider = await startFakeProvider();
  client = responsesClient();
});
afterAll(() => provider.close());
beforeEach(() => {
  provider.reset();
});

type Body = { input: Record<string, unknown>[] } & Record<string, unknown>;
const bodyOf = (index: number) => provider.requests[index]!.body as Body;

/** The events a stream folds into, stamped as a turn (what `cxc q` stores). */
function foldToEvents(events: readonly LlmStreamEvent[], prompt: string): TurnEvent[] {
  let state = createStreamFold();
  const stored: TurnEvent[] = [
    { id: "e0", ts: "2026-01-01T00:00:00.000Z", type: "turn_start" } as TurnEvent,
    { id: "e1", ts: "2026-01-01T00:00:00.000Z", type: "chat_request", content: prompt } as TurnEvent,
  ];
  for (const event of events) {
    const step = foldStreamEvent(state, event);
    state = step.state;
    for (const draft of step.drafts) {
      stored.push({ ...draft, id: `e${stored.length}`, ts: "2026-01-01T00:00:01.000Z" } as TurnEvent);
    }
  }
  return stored;
}

describe("responses adapter", () => {
  it("streams text to /v1/responses, statelessly, and reads cached and reasoning tokens", async () => {
    provider.enqueue(
      textReply("Hello there, friend.", {
        usage: { inputTokens: 12, outputTokens: 40, cacheReadTokens: 300, reasoningTokens: 30 },
      }),
    );
    const events = await collectEvents(
      client.stream(userRequest("hi", { system: "be brief", maxOutputTokens: 99 })),
    );
    expect(textOf(events)).toBe("Hello there, friend.");
    expect(terminalEvents(events)).toEqual([
      {
        type: "message-end",
        finishReason: "stop",
        providerReason: "completed",
        usage: {
          inputTokens: 12,
          outputTokens: 40,
          cacheReadTokens: 300,
          cacheWriteTokens: 0,
          reasoningTokens: 30,
        },
      },
    ]);
    const request = provider.requests[0]!;
    expect(request.path).toBe("/v1/responses");
    expect(request.headers.authorization).toBe("Bearer test-key");
    expect(request.body).toEqual({
      model: "gpt-5-codex",
      instructions: "be brief",
      input: [{ type: "message", role: "user", content: "hi" }],
      stream: true,
      store: false,
      reasoning: { summary: "auto" },
      include: ["reasoning.encrypted_content"],
      max_output_tokens: 99,
    });
  });

  it("keeps the encrypted reasoning and gives it back to the model that wrote it, as text to others", async () => {
    provider.enqueue({
      blocks: [
        { type: "thinking", text: "Look at the files first.", signature: "enc-abc" },
        { type: "text", text: "Done." },
      ],
      messageId: "resp_abc",
    });
    const events = await collectEvents(client.stream(userRequest("go")));
    const reasoning = events.flatMap((event) => (event.type === "reasoning-delta" ? [event.text] : []));
    expect(reasoning.join("")).toBe("Look at the files first.");
    expect(events.find((event) => event.type === "reasoning-item")).toEqual({
      type: "reasoning-item",
      id: "resp_abc_item_0",
      data: "enc-abc",
      model: "openai/gpt-5-codex",
    });
    const stored = foldToEvents(events, "go");
    expect(stored[2]).toMatchObject({
      type: "chat_response",
      reasoning: "Look at the files first.",
      metadata: {
        openai_encrypted_reasoning: "enc-abc",
        openai_reasoning_id: "resp_abc_item_0",
        openai_reasoning_model: "openai/gpt-5-codex",
      },
    });
    const next = buildLlmRequest([{ events: [...stored, ...foldToEvents([], "and now?").slice(1)] }]);

    provider.enqueue(textReply("again"));
    await collectEvents(client.stream(next));
    expect(bodyOf(1).input).toEqual([
      { type: "message", role: "user", content: "go" },
      {
        type: "reasoning",
        id: "resp_abc_item_0",
        summary: [{ type: "summary_text", text: "Look at the files first." }],
        encrypted_content: "enc-abc",
      },
      { type: "message", role: "assistant", content: "Done." },
      { type: "message", role: "user", content: "and now?" },
    ]);

    provider.enqueue(textReply("other"));
    await collectEvents(responsesClient("openai/gpt-5-mini").stream(next));
    expect(bodyOf(2).input[1]).toEqual({
      type: "message",
      role: "assistant",
      content: "<think>\nLook at the files first.\n</think>\n\nDone.",
    });
    expect(JSON.stringify(bodyOf(2))).not.toContain("enc-abc");
  });

  it("assembles parallel function calls and sends their results as function_call_output items", async () => {
    provider.enqueue({
      blocks: [
        { type: "tool-call", id: "call_1", name: "read_file", arguments: { path: "a.md", lines: [1, 2] } },
        { type: "tool-call", id: "call_2", name: "list", arguments: { deep: true } },
      ],
    });
    const tools = [{ name: "read_file", description: "Read a file.", parameters: { type: "object" } }];
    const events = await collectEvents(
      client.stream(userRequest("read", { tools, toolChoice: { type: "tool", name: "read_file" } })),
    );
    expect(events.filter((event) => event.type === "tool-call")).toEqual([
      { type: "tool-call", id: "call_1", name: "read_file", arguments: { path: "a.md", lines: [1, 2] } },
      { type: "tool-call", id: "call_2", name: "list", arguments: { deep: true } },
    ]);
    expect(terminalEvents(events)[0]).toMatchObject({ finishReason: "tool-calls" });
    expect(bodyOf(0)).toMatchObject({
      tools: [
        {
          type: "function",
          name: "read_file",
          description: "Read a file.",
          parameters: { type: "object" },
          strict: false,
        },
      ],
      tool_choice: { type: "function", name: "read_file" },
      parallel_tool_calls: true,
    });

    const body = toResponsesRequest(
      {
        messages: [
          { role: "user", parts: [{ type: "text", text: "read" }] },
          {
            role: "assistant",
            parts: [
              { type: "text", text: "Reading both." },
              { type: "tool-call", id: "call_1", name: "read_file", arguments: { path: "a.md" } },
              { type: "tool-call", id: "call_2", name: "list", arguments: {} },
            ],
          },
          {
            role: "user",
            parts: [
              {
                type: "tool-result",
                callId: "call_1",
                toolName: "read_file",
                content: "# A",
                isError: false,
              },
              { type: "tool-result", callId: "call_2", toolName: "list", content: "boom", isError: true },
              { type: "text", text: "thanks" },
            ],
          },
        ],
        tools: [],
      },
      "gpt-4.1",
      { reasoning: false },
    );
    expect(body).toEqual({
      model: "gpt-4.1",
      stream: true,
      store: false,
      input: [
        { type: "message", role: "user", content: "read" },
        { type: "message", role: "assistant", content: "Reading both." },
        { type: "function_call", call_id: "call_1", name: "read_file", arguments: '{"path":"a.md"}' },
        { type: "function_call", call_id: "call_2", name: "list", arguments: "{}" },
        { type: "function_call_output", call_id: "call_1", output: "# A" },
        { type: "function_call_output", call_id: "call_2", output: "boom" },
        { type: "message", role: "user", content: "thanks" },
      ],
    });
  });

  it("maps an incomplete response to length and a refusal to refusal", async () => {
    provider.enqueue(textReply("cut short", { stop: "max-tokens" }));
    const truncated = await collectEvents(client.stream(userRequest("q")));
    expect(textOf(truncated)).toBe("cut short");
    expect(terminalEvents(truncated)[0]).toMatchObject({
      type: "message-end",
      finishReason: "length",
      providerReason: "max_output_tokens",
    });

    provider.enqueue(textReply("I can't help with that.", { stop: "refusal" }));
    const refused = await collectEvents(client.stream(userRequest("q")));
    expect(textOf(refused)).toBe("I can't help with that.");
    expect(terminalEvents(refused)[0]).toMatchObject({ finishReason: "refusal" });
  });

  it("ends a failed response with one classified error: response.failed, an error event", async () => {
    provider.enqueue({ ...contextOverflowReply(), midStream: true });
    const overflow = await collectEvents(client.stream(userRequest("q")));
    expect(overflow).toEqual([
      {
        type: "error",
        error: expect.objectContaining({ kind: "context-overflow", retryable: false }),
      },
    ]);

    provider.enqueue(errorReply(500, { midStream: true, code: "server_error", message: "oops" }));
    const failed = await collectEvents(client.stream(userRequest("q")));
    expect(failed).toEqual([
      {
        type: "error",
        error: expect.objectContaining({
          kind: "other",
          retryable: true,
          message: "The provider returned an error: oops",
        }),
      },
    ]);

    provider.enqueue(
      errorReply(429, { midStream: true, event: "error", code: "rate_limit_exceeded", message: "slow down" }),
    );
    const limited = await collectEvents(client.stream(userRequest("q")));
    expect(terminalEvents(limited)[0]).toMatchObject({ error: { kind: "rate-limit", retryable: true } });
  });

  it("retries a failure before any content, and never after", async () => {
    const retrying = withRetry(client, { baseDelayMs: 1, maxDelayMs: 5, random: () => 0 });
    provider.enqueue(errorReply(429, { retryAfterSeconds: 0 }), textReply("second time"));
    const events = await collectEvents(retrying.stream(userRequest("q")));
    expect(textOf(events)).toBe("second time");
    expect(provider.requests).toHaveLength(2);

    provider.reset();
    provider.enqueue({ ...textReply("one two three four five"), cutAfterEvents: 6 }, textReply("unused"));
    const cut = await collectEvents(retrying.stream(userRequest("q")));
    expect(textOf(cut).length).toBeGreaterThan(0);
    expect(terminalEvents(cut)).toEqual([
      { type: "error", error: expect.objectContaining({ kind: "network", retryable: true }) },
    ]);
    expect(provider.requests).toHaveLength(1);
  });

  it("ends a stalled stream with a timeout and an interrupted one as aborted", async () => {
    provider.enqueue({ ...textReply("thinking about it"), holdAfterEvents: 5 });
    const stalled = await collectEvents(withIdleTimeout(client, 150).stream(userRequest("q")));
    expect(terminalEvents(stalled)).toEqual([
      { type: "error", error: expect.objectContaining({ kind: "timeout", retryable: true }) },
    ]);

    provider.enqueue({ ...textReply("a long answer"), holdAfterEvents: 5 });
    const controller = new AbortController();
    const events: LlmStreamEvent[] = [];
    for await (const event of client.stream(userRequest("q"), { signal: controller.signal })) {
      events.push(event);
      if (event.type === "text-delta") controller.abort();
    }
    expect(terminalEvents(events)).toEqual([
      { type: "error", error: expect.objectContaining({ kind: "aborted" }) },
    ]);
  });

  it("says a stream of non-JSON events is malformed, quoting nothing", async () => {
    provider.enqueue({
      kind: "raw",
      body: 'event: response.created\ndata: {"type":"response.created"\n\nevent: x\ndata: \u001b]0;owned\u0007\n\n',
    });
    const events = await collectEvents(client.stream(userRequest("q")));
    expect(terminalEvents(events)).toEqual([
      {
        type: "error",
        error: {
          kind: "other",
          retryable: false,
          message: "The provider sent a malformed event stream (an event whose data is not JSON).",
        },
      },
    ]);
  });
});
