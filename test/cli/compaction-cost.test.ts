/**
 * What a compaction costs with the prompt cache (docs/context.md, "What a compaction costs"), end
 * to end against the loopback fake: the dry run says the tokens saved a request, the tokens the
 * next request writes to the cache again (from the first changed turn on; the system prompt and
 * the turns before stay cached) and, with the model's prices (cxc's table, or configured), the
 * dollars and the turns until it pays back; without prices, the tokens alone.
 */
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { COMMITTED_JP_WORKSPACE } from "../helpers/jp-fixtures.js";
import { makeQueryHome, type QueryHome, TEST_MODEL } from "../query/e2e.js";

/** jp's "missing date in version string": a 37k-character system prompt, 12k of messages. */
const JP_CONVERSATION = join(
  COMMITTED_JP_WORKSPACE.conversations,
  "17758406187-missing-date-in-version-string",
);

let provider: FakeProvider;
let home: QueryHome;

beforeAll(async () => {
  provider = await startFakeProvider({ countUsage: true });
});
afterAll(async () => {
  await provider.close();
});
beforeEach(async () => {
  provider.reset();
  home = makeQueryHome(provider);
  const imported = await home.home.run(["conversation", "import", "--from", "jp", JP_CONVERSATION]);
  expect(imported.exitCode, imported.stderr).toBe(0);
  const id = /as (\w+)/.exec(imported.stdout)![1]!;
  expect((await home.home.run(["conversation", "use", id])).exitCode).toBe(0);
  provider.enqueue(textReply("The date was never set."));
  expect((await home.q(["What was the cause?"])).exitCode).toBe(0);
});
afterEach(() => {
  home.home.cleanup();
  expect(provider.remaining()).toBe(0);
});

interface Cache {
  saved_per_request: number;
  cache_rewrite_tokens: number;
  cache_unchanged_tokens: number;
  first_changed_turn: number | null;
  dollars: {
    per_request: number;
    once: number;
    payback_turns: number | null;
    model: string;
    prices_source: string;
    prices_as_of: string | null;
  } | null;
}

async function dryRun(spec: string): Promise<{ text: string; before: number; after: number; cache: Cache }> {
  const text = await home.home.run(["conversation", "compact", "--dry-run", "-k", spec], { env: home.env });
  expect(text.exitCode, text.stderr).toBe(0);
  const json = await home.home.run(["--format", "json", "conversation", "compact", "--dry-run", "-k", spec], {
    env: home.env,
  });
  expect(json.exitCode, json.stderr).toBe(0);
  const context = JSON.parse(json.stdout).context as { before: number; after: number; cache: Cache };
  return { text: text.stdout, ...context };
}

describe("what a compaction costs with the prompt cache", () => {
  it("weighs the saving against the rewrite with cxc's dated prices of the model", async () => {
    const { text, before, after, cache } = await dryRun("r+t:..-2");
    expect(cache.saved_per_request).toBe(before - after);
    expect(cache.saved_per_request).toBeGreaterThan(0);
    // The system prompt (about 9k of the fake's tokens) and nothing of turn 1 on is unchanged.
    expect(cache.first_changed_turn).toBe(1);
    expect(cache.cache_unchanged_tokens).toBeGreaterThan(8000);
    expect(cache.cache_unchanged_tokens + cache.cache_rewrite_tokens).toBe(after);
    // The conversation's model, anthropic/claude-opus-4-6: $0.50 a million cache reads, $6.25 writes.
    const dollars = cache.dollars!;
    expect(dollars).toMatchObject({ model: "anthropic/claude-opus-4-6", prices_source: "known" });
    expect(dollars.prices_as_of).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(dollars.per_request).toBeCloseTo((cache.saved_per_request * 0.5) / 1e6, 10);
    const once =
      (cache.cache_rewrite_tokens * 6.25 + cache.cache_unchanged_tokens * 0.5 - before * 0.5) / 1e6;
    expect(dollars.once).toBeCloseTo(once, 10);
    expect(dollars.payback_turns).toBe(1 + Math.ceil(once / dollars.per_request));
    expect(text).toMatch(
      new RegExp(
        `With the prompt cache: saves \\S+ tokens a request \\(\\$[\\d.]+\\); the next request writes \\S+ tokens ` +
          `to the cache again from turn 1 on \\(\\$[\\d.]+ more, once\\); pays back within ${dollars.payback_turns} turns ` +
          `\\(anthropic/claude-opus-4-6, prices of ${dollars.prices_as_of}\\)\\n`,
      ),
    );
  });

  it("takes configured prices over cxc's table", async () => {
    home.writeConfig(`
[providers.anthropic.models."claude-opus-4-6".prices]
input = 10
output = 50
cache_read = 1
cache_write = 20
`);
    const configured = await dryRun("r+t:..-2");
    const dollars = configured.cache.dollars!;
    expect(dollars).toMatchObject({ prices_source: "configured", prices_as_of: null });
    expect(dollars.per_request).toBeCloseTo(configured.cache.saved_per_request / 1e6, 10);
    expect(configured.text).toContain("(anthropic/claude-opus-4-6, configured prices)");
    // (A model without prices: test/cli/compact-cycles.test.ts, the dry run's tokens alone.)
  });

  it("refuses prices that are not numbers, naming the key", async () => {
    home.writeConfig(`
[providers.anthropic.models."claude-opus-4-6".prices]
input = "cheap"
output = 15
`);
    const result = await home.q(["-m", "anthropic/claude-opus-4-6", "Go on."]);
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain("providers.anthropic.models.claude-opus-4-6.prices.input");
    expect(provider.requests.length).toBe(1); // only the turn of beforeEach reached the provider
  });

  it("stats: what the requests cost from reported usage, and apart from them cxc's summaries", async () => {
    // A request that read most of its prompt from the cache and wrote some of it.
    const usage = { inputTokens: 1_000, cacheReadTokens: 20_000, cacheWriteTokens: 3_000, outputTokens: 500 };
    provider.enqueue(textReply("Set it at build time.", { usage }));
    expect((await home.q(["And the fix?"])).exitCode).toBe(0);
    // A summary written by a model (the fake): its usage is cxc's own spending.
    provider.enqueue(textReply("The date was never set; set it at build time."));
    const compacted = await home.home.run(["conversation", "compact", "-k", "s:..-1", "-m", TEST_MODEL], {
      env: home.env,
    });
    expect(compacted.exitCode, compacted.stderr).toBe(0);
    const summaryRequest = provider.requests.at(-1)!;

    const json = await home.home.run(["--format", "json", "conversation", "stats"], { env: home.env });
    const spent = JSON.parse(json.stdout).spent;
    // Two requests of the conversation: the first turn's (counted by the fake) and the scripted one.
    const first = provider.requests[0]!.counted;
    expect(spent.requests).toMatchObject({
      count: 2,
      input_tokens: first + 1_000,
      cache_read_input_tokens: 20_000,
      cache_creation_input_tokens: 3_000,
      unpriced: 0,
    });
    const [model] = spent.requests.models as string[];
    const prices = PRICES[model!]!;
    const dollars =
      ((first + 1_000) * prices.input +
        20_000 * prices.cacheRead +
        3_000 * prices.cacheWrite +
        spent.requests.output_tokens * prices.output) /
      1e6;
    expect(spent.requests.dollars).toBeCloseTo(dollars, 10);
    // The summary: one, its input what the fake counted for its request.
    expect(spent.summaries).toMatchObject({
      count: 1,
      input_tokens: summaryRequest.counted,
      models: [TEST_MODEL],
    });
    expect(spent.summaries.dollars).toBeGreaterThan(0);

    const text = await home.home.run(["conversation", "stats"], { env: home.env });
    expect(text.stdout).toContain("Spent, from reported usage (cache reads and writes included):\n");
    expect(text.stdout).toMatch(
      /\n {2}the conversation's requests: 2 requests, \$[\d.]+; \S+ input, 20\.0k cache reads, 3\.0k cache writes, \S+ output\n/,
    );
    expect(text.stdout).toMatch(/\n {2}cxc's own, apart from the conversation: 1 summary, \$[\d.]+; /);
    expect(text.stdout).toMatch(/\n {2}prices: .*\(of \d{4}-\d{2}-\d{2}\)/);
  });
});

/** cxc's table for the models these tests run on (dollars per million tokens). */
const PRICES: Record<string, { input: number; output: number; cacheRead: number; cacheWrite: number }> = {
  "anthropic/claude-opus-4-6": { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  "anthropic/claude-sonnet-4-6": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
};
