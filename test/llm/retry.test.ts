/** The retry wrapper over a real adapter talking to the fake provider, with instant delays. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createAnthropicClient } from "../../src/llm/anthropic.js";
import { createOpenAIClient } from "../../src/llm/openai.js";
import { computeRetryDelay, describeRetry, type RetryNotice, withRetry } from "../../src/llm/retry.js";
import { errorReply, type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { collectEvents, terminalEvents, textOf, userRequest } from "./stream-helpers.js";

let provider: FakeProvider;
let delays: number[];
let notices: RetryNotice[];

const retryOptions = () => ({
  sleep: async (milliseconds: number) => {
    delays.push(milliseconds);
  },
  random: () => 0,
  onRetry: (notice: RetryNotice) => notices.push(notice),
});

beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(() => provider.close());
beforeEach(() => {
  delays = [];
  notices = [];
  provider.reset();
});

function anthropic() {
  return withRetry(
    createAnthropicClient({
      modelId: "anthropic/m",
      model: "m",
      apiKey: "k",
      baseURL: provider.anthropicBaseURL,
    }),
    retryOptions(),
  );
}

describe("withRetry", () => {
  it("honours retry-after, then succeeds", async () => {
    provider.enqueue(errorReply(429, { retryAfterSeconds: 3 }), errorReply(529), textReply("finally"));
    const events = await collectEvents(anthropic().stream(userRequest("hi")));
    expect(textOf(events)).toBe("finally");
    expect(terminalEvents(events)).toEqual([
      expect.objectContaining({ type: "message-end", finishReason: "stop" }),
    ]);
    expect(delays).toEqual([3000, 2000]);
    expect(notices.map((notice) => [notice.attempt, notice.error.kind])).toEqual([
      [1, "rate-limit"],
      [2, "overloaded"],
    ]);
    expect(provider.requests).toHaveLength(3);
  });

  it("gives up after 5 retries in a 429 storm with exactly one error", async () => {
    for (let count = 0; count < 7; count++) provider.enqueue(errorReply(429));
    const events = await collectEvents(anthropic().stream(userRequest("hi")));
    expect(events).toEqual([{ type: "error", error: expect.objectContaining({ kind: "rate-limit" }) }]);
    expect(provider.requests).toHaveLength(6);
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000]);
    expect(provider.remaining()).toBe(1);
  });

  it("does not retry fatal errors", async () => {
    provider.enqueue(errorReply(401));
    const events = await collectEvents(anthropic().stream(userRequest("hi")));
    expect(events).toEqual([{ type: "error", error: expect.objectContaining({ kind: "auth" }) }]);
    expect(delays).toEqual([]);
  });

  it("does not retry once content was yielded", async () => {
    provider.enqueue({ ...textReply("one two three four five"), cutAfterEvents: 5 }, textReply("never sent"));
    const client = withRetry(
      createOpenAIClient({ modelId: "openai/m", model: "m", apiKey: "k", baseURL: provider.openaiBaseURL }),
      retryOptions(),
    );
    const events = await collectEvents(client.stream(userRequest("hi")));
    expect(textOf(events).length).toBeGreaterThan(0);
    expect(terminalEvents(events)).toEqual([
      { type: "error", error: expect.objectContaining({ kind: "network" }) },
    ]);
    expect(provider.requests).toHaveLength(1);
    expect(provider.remaining()).toBe(1);
  });

  it("retries a cut stream that yielded nothing yet", async () => {
    provider.enqueue({ ...textReply("lost"), cutAfterEvents: 1 }, textReply("second try"));
    const events = await collectEvents(anthropic().stream(userRequest("hi")));
    expect(textOf(events)).toBe("second try");
    expect(delays).toHaveLength(1);
  });

  it("caps delays", () => {
    const error = { kind: "rate-limit" as const, retryable: true, message: "x" };
    expect(computeRetryDelay(10, error, { random: () => 0 })).toBe(60_000);
    expect(computeRetryDelay(1, { ...error, retryAfterMs: 120_000 })).toBe(60_000);
    expect(computeRetryDelay(2, error, { random: () => 0.5, baseDelayMs: 100 })).toBe(450);
  });
});

describe("the retry warning", () => {
  const notice = (
    error: RetryNotice["error"],
    delayMs: number,
    attempt = 1,
    maxRetries = 3,
  ): RetryNotice => ({
    attempt,
    maxRetries,
    delayMs,
    error,
  });

  it.each([
    [
      notice(
        { kind: "other", retryable: true, status: 500, message: "The provider returned an error: 500 boom" },
        2000,
      ),
      "the provider returned HTTP 500; retrying in 2 s (attempt 2 of 4)",
    ],
    [
      notice({ kind: "rate-limit", retryable: true, status: 429, message: "x" }, 1234, 2, 5),
      "the provider is rate limiting requests (HTTP 429); retrying in 1.2 s (attempt 3 of 6)",
    ],
    [
      notice({ kind: "overloaded", retryable: true, status: 529, message: "x" }, 30_400, 4, 5),
      "the provider is overloaded (HTTP 529); retrying in 30 s (attempt 5 of 6)",
    ],
    [
      notice(
        { kind: "network", retryable: true, message: "The connection to the provider failed: ECONNRESET" },
        1000,
      ),
      "the connection to the provider failed; retrying in 1 s (attempt 2 of 4)",
    ],
    [
      notice({ kind: "timeout", retryable: true, message: "x" }, 500),
      "the provider did not answer in time; retrying in 0.5 s (attempt 2 of 4)",
    ],
    [
      notice({ kind: "other", retryable: true, message: "The provider returned an error: api_error" }, 1000),
      "the provider returned an error; retrying in 1 s (attempt 2 of 4)",
    ],
  ])("names the cause in words: %#", (given, expected) => {
    expect(describeRetry(given)).toBe(expected);
  });
});
