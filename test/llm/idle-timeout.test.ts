/** The idle timeout over a real adapter whose fake provider stalls between chunks. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createAnthropicClient } from "../../src/llm/anthropic.js";
import { withIdleTimeout } from "../../src/llm/idle-timeout.js";
import type { LlmClient } from "../../src/llm/types.js";
import { type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { collectEvents, terminalEvents, textOf, userRequest } from "./stream-helpers.js";

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
// A request aborted early may never reach the server and leave its reply queued.
beforeEach(() => provider.reset());

describe("withIdleTimeout", () => {
  it("ends a stalled stream with one retryable timeout error", async () => {
    provider.enqueue({ ...textReply("slow"), chunkDelayMs: 300 });
    const events = await collectEvents(withIdleTimeout(client, 80).stream(userRequest("hi")));
    expect(terminalEvents(events)).toEqual([
      { type: "error", error: expect.objectContaining({ kind: "timeout", retryable: true }) },
    ]);
  });

  it("lets a steady stream through unchanged", async () => {
    // Warm the SDK's streaming path first, so a cold module load on a busy machine is not
    // mistaken for silence. Then the whole stream (about 12 × 50 ms) outlasts the limit while no
    // single gap does.
    provider.enqueue(textReply("warm up"));
    await collectEvents(client.stream(userRequest("warm")));
    provider.enqueue({ ...textReply("steady stream of words"), chunkDelayMs: 50 });
    const started = performance.now();
    const events = await collectEvents(withIdleTimeout(client, 250).stream(userRequest("hi")));
    expect(performance.now() - started).toBeGreaterThan(250);
    expect(textOf(events)).toBe("steady stream of words");
    expect(events.at(-1)?.type).toBe("message-end");
  });

  it("reports the caller's abort as aborted", async () => {
    provider.enqueue({ ...textReply("a b c d e"), chunkDelayMs: 30 });
    const controller = new AbortController();
    const events = [];
    for await (const event of withIdleTimeout(client, 1000).stream(userRequest("hi"), {
      signal: controller.signal,
    })) {
      events.push(event);
      if (event.type === "text-delta") controller.abort();
    }
    expect(terminalEvents(events)).toEqual([
      { type: "error", error: expect.objectContaining({ kind: "aborted" }) },
    ]);
  });
});
