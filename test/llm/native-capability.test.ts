/**
 * Whether a model has Anthropic's on-demand compaction, from the Models API: the real SDK's
 * `beta.models.retrieve` against the loopback fake, which answers in the beta shape with
 * `capabilities.compaction`. Each model is asked once per process; an answer that does not say
 * (a 404, no capabilities, a null entry) or an endpoint that does not answer is "cannot say".
 */
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compactionCapability, createAnthropicCompactor } from "../../src/llm/anthropic-compaction.js";
import { type FakeProvider, startFakeProvider } from "../helpers/fake-provider.js";

let provider: FakeProvider;
beforeAll(async () => {
  provider = await startFakeProvider();
  provider.addModel({ id: "claude-new-1", compaction: true });
  provider.addModel({ id: "claude-plain-1", compaction: false });
  provider.addModel({ id: "claude-null-1", compaction: null });
  provider.addModel({ id: "claude-bare-1", capabilities: false });
});
afterAll(() => provider?.close());

function compactor(model: string, baseURL = provider.anthropicBaseURL) {
  return createAnthropicCompactor({ modelId: `anthropic/${model}`, model, apiKey: "k", baseURL });
}

describe("the Models API's capabilities.compaction", () => {
  it("says yes or no where the answer does, and asks once per model", async () => {
    const before = provider.requests.length;
    expect(await compactor("claude-new-1").supportsCompaction()).toBe(true);
    expect(await compactor("claude-plain-1").supportsCompaction()).toBe(false);
    // A second compactor of the same model at the same endpoint: the process's answer.
    expect(await compactor("claude-new-1").supportsCompaction()).toBe(true);
    const asked = provider.requests.slice(before);
    expect(asked.map((request) => `${request.method} ${request.path}`)).toEqual([
      "GET /v1/models/claude-new-1",
      "GET /v1/models/claude-plain-1",
    ]);
  });

  it("cannot say for an unknown model, an answer without capabilities, or a null entry", async () => {
    expect(await compactor("claude-unknown-9").supportsCompaction()).toBeUndefined();
    expect(await compactor("claude-bare-1").supportsCompaction()).toBeUndefined();
    expect(await compactor("claude-null-1").supportsCompaction()).toBeUndefined();
  });

  it("cannot say, at once, when nothing listens at the endpoint", async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, "127.0.0.1", () => {
        const { port: free } = server.address() as { port: number };
        server.close(() => resolve(free));
      });
    });
    const started = performance.now();
    expect(await compactor("claude-new-1", `http://127.0.0.1:${port}`).supportsCompaction()).toBeUndefined();
    // Refused at once, not waited on (the request's own limit is 3 s).
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it("reads summarize first, then the capability's own flag", () => {
    expect(
      compactionCapability({
        capabilities: { compaction: { supported: true, summarize: { supported: false } } },
      }),
    ).toBe(false);
    expect(compactionCapability({ capabilities: { compaction: { supported: true } } })).toBe(true);
    expect(compactionCapability({ capabilities: { compaction: {} } })).toBeUndefined();
    expect(compactionCapability({})).toBeUndefined();
  });
});
