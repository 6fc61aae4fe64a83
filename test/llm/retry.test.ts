/** The retry wrapper over a real adapter talking to the fake provider, with instant delays. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createAnthropicClient } from "../../src/llm/anthropic.js";
import { createOpenAIClient } from "../../src/llm/openai.js";
import { computeRetryDelay, type RetryNotice, withRetry } from "../../src/llm/retry.js";
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
