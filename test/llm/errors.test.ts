/**
 * Error classification: each HTTP failure, through the real SDKs (Anthropic, Chat Completions and
 * Responses), and thrown values directly.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAnthropicClient } from "../../src/llm/anthropic.js";
import { classifyLlmError } from "../../src/llm/errors.js";
import { createGoogleClient } from "../../src/llm/google.js";
import { createOpenAIClient } from "../../src/llm/openai.js";
import { createResponsesClient } from "../../src/llm/responses.js";
import type { LlmClient, LlmError } from "../../src/llm/types.js";
import {
  contextOverflowReply,
  errorReply,
  type FakeErrorReply,
  type FakeProvider,
  startFakeProvider,
  textReply,
} from "../helpers/fake-provider.js";
import { collectEvents, terminalEvents, userRequest } from "./stream-helpers.js";

let provider: FakeProvider;
const clients: Record<string, LlmClient> = {};

beforeAll(async () => {
  provider = await startFakeProvider();
  clients.anthropic = createAnthropicClient({
    modelId: "anthropic/m",
    model: "m",
    apiKey: "k",
    baseURL: provider.anthropicBaseURL,
  });
  clients.openai = createOpenAIClient({
    modelId: "openai/m",
    model: "m",
    apiKey: "k",
    baseURL: provider.openaiBaseURL,
  });
  clients.responses = createResponsesClient({
    modelId: "openai/m",
    model: "m",
    apiKey: "k",
    baseURL: provider.openaiBaseURL,
  });
});
afterAll(() => provider.close());

const CASES: [string, FakeErrorReply, Partial<LlmError>][] = [
  ["401", errorReply(401), { kind: "auth", retryable: false, status: 401 }],
  ["403", errorReply(403), { kind: "auth", retryable: false, status: 403 }],
  [
    "429",
    errorReply(429, { retryAfterSeconds: 7 }),
    { kind: "rate-limit", retryable: true, retryAfterMs: 7000 },
  ],
  ["529", errorReply(529), { kind: "overloaded", retryable: true, status: 529 }],
  ["500", errorReply(500), { kind: "other", retryable: true, status: 500 }],
  ["400 context", contextOverflowReply(), { kind: "context-overflow", retryable: false, status: 400 }],
  [
    "413 request_too_large",
    errorReply(413, { message: "Request exceeds the maximum size" }),
    {
      kind: "context-overflow",
      retryable: false,
      status: 413,
      message: "The conversation is too large to send: 413 Request exceeds the maximum size",
    },
  ],
  [
    "400",
    errorReply(400, { message: "messages: field required" }),
    { kind: "invalid-request", retryable: false },
  ],
];

describe("error classification through the SDKs", () => {
  for (const protocol of ["anthropic", "openai", "responses"]) {
    for (const [name, reply, expected] of CASES) {
      it(`${protocol}: ${name}`, async () => {
        provider.enqueue(reply);
        const events = await collectEvents(clients[protocol]!.stream(userRequest("hi")));
        expect(events).toHaveLength(1);
        expect(terminalEvents(events)[0]).toMatchObject({ type: "error", error: expected });
      });
    }
  }

  it("a response slower than the client timeout is a retryable timeout", async () => {
    provider.enqueue({ ...textReply("late"), chunkDelayMs: 400 });
    const client = createOpenAIClient({
      modelId: "openai/m",
      model: "m",
      apiKey: "k",
      baseURL: provider.openaiBaseURL,
      timeoutMs: 100,
    });
    const events = await collectEvents(client.stream(userRequest("hi")));
    expect(events).toEqual([
      { type: "error", error: expect.objectContaining({ kind: "timeout", retryable: true }) },
    ]);
  });

  it("a refused connection is a network error no retry fixes, on every wire", async () => {
    const closed = await startFakeProvider();
    const { anthropicBaseURL, openaiBaseURL, url } = closed;
    await closed.close();
    const refused = [
      createGoogleClient({ modelId: "google/m", model: "m", apiKey: "k", baseURL: url, reasoning: false }),
      createAnthropicClient({ modelId: "anthropic/m", model: "m", apiKey: "k", baseURL: anthropicBaseURL }),
      createOpenAIClient({ modelId: "openai/m", model: "m", apiKey: "k", baseURL: openaiBaseURL }),
      createResponsesClient({ modelId: "openai/m", model: "m", apiKey: "k", baseURL: openaiBaseURL }),
    ];
    for (const client of refused) {
      const events = await collectEvents(client.stream(userRequest("hi")));
      expect(events).toEqual([
        {
          type: "error",
          error: expect.objectContaining({ kind: "network", retryable: false, unreachable: "refused" }),
        },
      ]);
    }
  });

  it("a host name that does not resolve is unreachable too", async () => {
    // `.invalid` never resolves (RFC 2606): the lookup fails without the network.
    const client = createAnthropicClient({
      modelId: "anthropic/m",
      model: "m",
      apiKey: "k",
      baseURL: "http://cxc-test.invalid",
    });
    const events = await collectEvents(client.stream(userRequest("hi")));
    expect(events).toEqual([
      {
        type: "error",
        error: expect.objectContaining({ kind: "network", retryable: false, unreachable: "unresolvable" }),
      },
    ]);
  });
});

describe("classifyLlmError", () => {
  it("reads retry-after-ms and HTTP-date retry-after", () => {
    const headers = new Headers({ "retry-after-ms": "1500" });
    expect(classifyLlmError({ status: 429, headers, message: "x" })).toMatchObject({ retryAfterMs: 1500 });
    const dated = new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:10 GMT" });
    expect(classifyLlmError({ status: 429, headers: dated }, undefined, Date.UTC(2026, 0, 1))).toMatchObject({
      retryAfterMs: 10_000,
    });
  });

  it("treats an aborted signal as aborted whatever was thrown", () => {
    const controller = new AbortController();
    controller.abort();
    expect(classifyLlmError(new Error("boom"), controller.signal)).toMatchObject({
      kind: "aborted",
      retryable: false,
    });
  });

  it("classifies a mid-stream provider error body by its type", () => {
    const thrown = Object.assign(new Error("Overloaded"), {
      error: { type: "error", error: { type: "overloaded_error" } },
    });
    expect(classifyLlmError(thrown)).toMatchObject({ kind: "overloaded", retryable: true });
    expect(classifyLlmError(new TypeError("terminated"))).toMatchObject({ kind: "network", retryable: true });
    expect(classifyLlmError("weird")).toMatchObject({ kind: "other", retryable: false });
  });

  for (const protocol of ["anthropic", "openai", "responses"]) {
    it(`${protocol}: makes a hostile error body one line without control sequences`, async () => {
      const message = "nope \u001b]0;TITLE\u0007\u001b]52;c;cm0gLXJmIH4=\u0007\nnext \u009b2J";
      provider.enqueue(errorReply(400, { message }));
      const events = await collectEvents(clients[protocol]!.stream(userRequest("hi")));
      expect(terminalEvents(events)[0]).toMatchObject({
        error: { message: "The provider rejected the request: 400 nope next" },
      });
    });
  }

  it("never puts the key into the message", async () => {
    provider.enqueue(errorReply(401, { message: "invalid x-api-key" }));
    const events = await collectEvents(clients.anthropic!.stream(userRequest("hi")));
    expect(JSON.stringify(events)).not.toContain('"k"');
  });
});
