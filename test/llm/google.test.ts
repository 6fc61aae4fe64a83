/**
 * The Google adapter against the loopback fake provider, through the real @google/genai SDK: text
 * and thoughts, thought signatures kept and given back, parallel function calls and their results,
 * usage with cached and thought tokens, finish reasons, failures before and inside the stream, cut,
 * stalled and malformed streams, interrupts, retries.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TurnEvent } from "../../src/core/conversation/events.js";
import { createStreamFold, foldStreamEvent } from "../../src/core/conversation/fold-stream.js";
import { buildLlmRequest } from "../../src/core/conversation/request.js";
import { createGoogleClient, GEMINI_PLACEHOLDER_SIGNATURE, toGeminiRequest } from "../../src/llm/google.js";
import { withIdleTimeout } from "../../src/llm/idle-timeout.js";
import { createLlmClient } from "../../src/llm/registry.js";
import { withRetry } from "../../src/llm/retry.js";
import type { LlmClient, LlmStreamEvent } from "../../src/llm/types.js";
import { errorReply, type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { collectEvents, terminalEvents, textOf, userRequest } from "./stream-helpers.js";

let provider: FakeProvider;
let client: LlmClient;

const googleClient = (model = "gemini-2.5-pro", reasoning = true) =>
  createGoogleClient({
    modelId: `google/${model}`,
    model,
    apiKey: "test-key",
    baseURL: provider.url,
    reasoning,
  });

beforeAll(async () => {
  provider = await startFakeProvider();
  client = googleClient();
});
afterAll(() => provider.close());
beforeEach(() => {
  provider.reset();
});

type Body = { contents: { role: string; parts: Record<string, unknown>[] }[] } & Record<string, unknown>;
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

describe("google adapter", () => {
  it("streams text from streamGenerateContent with the key in its header, and reads cached and thought tokens", async () => {
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
        providerReason: "STOP",
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
    expect(request.path).toBe("/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse");
    expect(request.headers["x-goog-api-key"]).toBe("test-key");
    expect(request.body).toEqual({
      contents: [{ role: "user", parts: [{ text: "hi" }] }],
      systemInstruction: { parts: [{ text: "be brief" }] },
      generationConfig: { maxOutputTokens: 99, thinkingConfig: { includeThoughts: true } },
    });
    // What `print --format gemini` prints is what went on the wire.
    const printed = toGeminiRequest(userRequest("hi", { system: "be brief", maxOutputTokens: 99 }), {
      reasoning: true,
    });
    expect(printed).toEqual(request.body);
  });

  it("keeps thoughts as reasoning and every thought signature with its part, and gives them back", async () => {
    provider.enqueue({
      blocks: [
        { type: "thinking", text: "Look at the files first.", signature: "sig-thought" },
        { type: "text", text: "Reading both." },
        {
          type: "tool-call",
          id: "unused",
          name: "read_file",
          arguments: { path: "a.md" },
          signature: "sig-call",
        },
        { type: "tool-call", id: "unused", name: "list", arguments: { deep: true } },
      ],
    });
    const tools = [{ name: "read_file", description: "Read a file.", parameters: { type: "object" } }];
    const events = await collectEvents(client.stream(userRequest("go", { tools })));
    const reasoning = events.flatMap((event) => (event.type === "reasoning-delta" ? [event.text] : []));
    expect(reasoning.join("")).toBe("Look at the files first.");
    const calls = events.filter((event) => event.type === "tool-call");
    expect(calls).toEqual([
      {
        type: "tool-call",
        id: expect.stringMatching(/^read_file_/),
        name: "read_file",
        arguments: { path: "a.md" },
        thoughtSignature: "sig-call",
      },
      { type: "tool-call", id: expect.stringMatching(/^list_/), name: "list", arguments: { deep: true } },
    ]);
    expect(new Set(calls.map((call) => (call as { id: string }).id)).size).toBe(2);
    expect(terminalEvents(events)[0]).toMatchObject({ finishReason: "tool-calls", providerReason: "STOP" });
    expect(bodyOf(0).tools).toEqual([
      {
        functionDeclarations: [
          { name: "read_file", description: "Read a file.", parametersJsonSchema: { type: "object" } },
        ],
      },
    ]);

    const stored = foldToEvents(events, "go");
    expect(stored[2]).toMatchObject({
      type: "chat_response",
      reasoning: "Look at the files first.",
      metadata: { google_thought_signature: "sig-thought" },
    });
    expect(stored[4]).toMatchObject({
      type: "tool_call_request",
      name: "read_file",
      metadata: { google_thought_signature: "sig-call" },
    });
    const [first, second] = calls as { id: string }[];
    const results: TurnEvent[] = [
      {
        id: "r1",
        ts: "2026-01-01T00:00:02.000Z",
        type: "tool_call_response",
        call_id: first!.id,
        content: "# A",
        is_error: false,
      } as TurnEvent,
      {
        id: "r2",
        ts: "2026-01-01T00:00:02.000Z",
        type: "tool_call_response",
        call_id: second!.id,
        content: "boom",
        is_error: true,
      } as TurnEvent,
    ];
    provider.enqueue(textReply("done"));
    await collectEvents(client.stream(buildLlmRequest([{ events: [...stored, ...results] }], { tools })));
    expect(bodyOf(1).contents).toEqual([
      { role: "user", parts: [{ text: "go" }] },
      {
        role: "model",
        parts: [
          { text: "Look at the files first.", thought: true, thoughtSignature: "sig-thought" },
          { text: "Reading both." },
          {
            functionCall: { id: first!.id, name: "read_file", args: { path: "a.md" } },
            thoughtSignature: "sig-call",
          },
          { functionCall: { id: second!.id, name: "list", args: { deep: true } } },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { id: first!.id, name: "read_file", response: { output: "# A" } } },
          { functionResponse: { id: second!.id, name: "list", response: { error: "boom" } } },
        ],
      },
    ]);
  });

  it("gives a call no Gemini signed the documented placeholder, and says NONE when the history has calls but no tools are offered", () => {
    const body = toGeminiRequest({
      messages: [
        { role: "user", parts: [{ text: "read", type: "text" }] },
        {
          role: "assistant",
          parts: [
            { type: "reasoning", text: "Claude thought this.", signature: "anthropic-sig" },
            { type: "redacted-reasoning", data: "opaque" },
            { type: "tool-call", id: "toolu_1", name: "Read", arguments: { file: "a" } },
            { type: "tool-call", id: "toolu_2", name: "Read", arguments: { file: "b" } },
          ],
        },
        {
          role: "user",
          parts: [
            { type: "tool-result", callId: "toolu_1", toolName: "Read", content: "A", isError: false },
            { type: "tool-result", callId: "toolu_2", toolName: "Read", content: "B", isError: false },
            { type: "text", text: "now summarize" },
          ],
        },
      ],
      tools: [],
    });
    expect(body).toEqual({
      contents: [
        { role: "user", parts: [{ text: "read" }] },
        {
          role: "model",
          parts: [
            { text: "Claude thought this.", thought: true },
            {
              functionCall: { id: "toolu_1", name: "Read", args: { file: "a" } },
              thoughtSignature: GEMINI_PLACEHOLDER_SIGNATURE,
            },
            { functionCall: { id: "toolu_2", name: "Read", args: { file: "b" } } },
          ],
        },
        {
          role: "user",
          parts: [
            { functionResponse: { id: "toolu_1", name: "Read", response: { output: "A" } } },
            { functionResponse: { id: "toolu_2", name: "Read", response: { output: "B" } } },
            { text: "now summarize" },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: "NONE" } },
      generationConfig: {},
    });
    expect(
      toGeminiRequest({
        ...userRequest("x"),
        tools: [{ name: "t", parameters: {} }],
        toolChoice: { type: "tool", name: "t" },
      }).toolConfig,
    ).toEqual({ functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["t"] } });
  });

  it("maps MAX_TOKENS to length and SAFETY to refusal, and asks a model that does not think for no thoughts", async () => {
    const plain = googleClient("gemini-2.0-flash", false);
    provider.enqueue(textReply("cut short", { stop: "max-tokens" }));
    const truncated = await collectEvents(plain.stream(userRequest("q")));
    expect(textOf(truncated)).toBe("cut short");
    expect(terminalEvents(truncated)[0]).toMatchObject({
      finishReason: "length",
      providerReason: "MAX_TOKENS",
    });
    expect(bodyOf(0).generationConfig).toEqual({});

    provider.enqueue(textReply("I can't help with that.", { stop: "refusal" }));
    const refused = await collectEvents(plain.stream(userRequest("q")));
    expect(terminalEvents(refused)[0]).toMatchObject({ finishReason: "refusal", providerReason: "SAFETY" });
  });

  it("classifies Google's errors: overflow, a refused key, a rate limit with its RetryInfo, an error inside the stream", async () => {
    provider.enqueue(
      errorReply(400, {
        message: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
      }),
    );
    const [overflow] = terminalEvents(await collectEvents(client.stream(userRequest("q"))));
    expect(overflow).toEqual({
      type: "error",
      error: {
        kind: "context-overflow",
        retryable: false,
        status: 400,
        message:
          "The conversation does not fit the model's context window: 400 The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
      },
    });

    provider.enqueue(
      errorReply(400, {
        message: "API key not valid. Please pass a valid API key.",
        code: "API_KEY_INVALID",
      }),
    );
    const [refused] = terminalEvents(await collectEvents(client.stream(userRequest("q"))));
    expect(refused).toEqual({
      type: "error",
      error: {
        kind: "auth",
        retryable: false,
        status: 400,
        message: "The provider rejected the API key: 400 API key not valid. Please pass a valid API key.",
      },
    });

    provider.enqueue(errorReply(429, { message: "Quota exceeded.", retryAfterSeconds: 7 }));
    const [limited] = terminalEvents(await collectEvents(client.stream(userRequest("q"))));
    expect(limited).toMatchObject({ error: { kind: "rate-limit", retryable: true, retryAfterMs: 7000 } });

    provider.enqueue(errorReply(503, { midStream: true, message: "The model is overloaded." }));
    const [overloaded] = terminalEvents(await collectEvents(client.stream(userRequest("q"))));
    expect(overloaded).toMatchObject({
      error: {
        kind: "overloaded",
        retryable: true,
        status: 503,
        message: "The provider is overloaded: 503 The model is overloaded.",
      },
    });
  });

  it("retries a failure before any content, and never after", async () => {
    const retrying = withRetry(client, { baseDelayMs: 1, maxDelayMs: 5, random: () => 0 });
    provider.enqueue(errorReply(500, { message: "internal" }), textReply("second time"));
    const events = await collectEvents(retrying.stream(userRequest("q")));
    expect(textOf(events)).toBe("second time");
    expect(provider.requests).toHaveLength(2);

    provider.reset();
    provider.enqueue({ ...textReply("one two three four five"), cutAfterEvents: 3 }, textReply("unused"));
    const cut = await collectEvents(retrying.stream(userRequest("q")));
    expect(textOf(cut)).toBe("one two three ");
    expect(terminalEvents(cut)).toEqual([
      { type: "error", error: expect.objectContaining({ kind: "network", retryable: true }) },
    ]);
    expect(provider.requests).toHaveLength(1);
  });

  it("ends a stalled stream with a timeout and an interrupted one as aborted", async () => {
    provider.enqueue({ ...textReply("thinking about it"), holdAfterEvents: 2 });
    const stalled = await collectEvents(withIdleTimeout(client, 150).stream(userRequest("q")));
    expect(terminalEvents(stalled)).toEqual([
      { type: "error", error: expect.objectContaining({ kind: "timeout", retryable: true }) },
    ]);

    provider.enqueue({ ...textReply("a long answer"), holdAfterEvents: 1 });
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

  it("says a stream of non-JSON events is malformed, quoting nothing, and a stream cut inside an event was cut", async () => {
    provider.enqueue({ kind: "raw", body: "data: \u001b]0;owned\u0007 not json\n\n" });
    const malformed = terminalEvents(await collectEvents(client.stream(userRequest("q"))));
    expect(malformed).toEqual([
      {
        type: "error",
        error: {
          kind: "other",
          retryable: false,
          message: "The provider sent a malformed event stream (an event whose data is not JSON).",
        },
      },
    ]);

    provider.enqueue({ kind: "raw", body: 'data: {"candidates":[{"content":{"parts":[{"text":"half' });
    const cut = terminalEvents(await collectEvents(client.stream(userRequest("q"))));
    expect(cut).toEqual([
      { type: "error", error: expect.objectContaining({ kind: "network", retryable: true }) },
    ]);

    provider.enqueue({
      kind: "raw",
      body: 'data: {"candidates":[{"content":{"parts":[{"text":"no end"}]}}]}\n\n',
    });
    const unfinished = await collectEvents(client.stream(userRequest("q")));
    expect(textOf(unfinished)).toBe("no end");
    expect(terminalEvents(unfinished)).toEqual([
      { type: "error", error: expect.objectContaining({ kind: "network", retryable: true }) },
    ]);
  });

  it("takes the key from GEMINI_API_KEY, else GOOGLE_API_KEY, and the base URL from config, else GOOGLE_GEMINI_BASE_URL", async () => {
    const run = async (env: Record<string, string>, config: unknown = {}) => {
      provider.enqueue(textReply("ok"));
      const google = createLlmClient("google/gemini-2.5-flash", { env, config, retry: false });
      await collectEvents(google.stream(userRequest("q")));
      return provider.requests.at(-1)!;
    };
    const both = await run({
      GEMINI_API_KEY: "gemini-key",
      GOOGLE_API_KEY: "google-key",
      GOOGLE_GEMINI_BASE_URL: provider.url,
    });
    expect(both.headers["x-goog-api-key"]).toBe("gemini-key");
    const fallback = await run({ GOOGLE_API_KEY: "google-key", GOOGLE_GEMINI_BASE_URL: provider.url });
    expect(fallback.headers["x-goog-api-key"]).toBe("google-key");
    const configured = await run(
      { GEMINI_API_KEY: "k", GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:9" },
      { providers: { google: { base_url: provider.url } } },
    );
    expect(configured.path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    expect(() => createLlmClient("google/gemini-2.5-flash", { env: {} })).toThrow(
      "Missing environment variable GEMINI_API_KEY or GOOGLE_API_KEY.",
    );
  });
});
