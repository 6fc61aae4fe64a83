/**
 * One context number: `cxc q`'s gauge, `cxc conversation stats` and the advisor's "Context is at"
 * name the same count against the same window, for the model `cxc q` runs on (here the default an
 * API key selects: no model is configured).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type FakeMessageReply,
  type FakeProvider,
  startFakeProvider,
  textReply,
} from "../helpers/fake-provider.js";
import { makeQueryHome, type QueryHome } from "../query/e2e.js";

let provider: FakeProvider;
let home: QueryHome;

beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(async () => {
  await provider.close();
});
beforeEach(() => {
  provider.reset();
  home = makeQueryHome(provider);
});
afterEach(() => {
  home.home.cleanup();
  expect(provider.remaining()).toBe(0);
});

/** No configured model: `cxc q` picks the default of the Anthropic key; the gauge always shows. */
const env = (): Record<string, string> => ({
  ANTHROPIC_API_KEY: home.env.ANTHROPIC_API_KEY!,
  ANTHROPIC_BASE_URL: home.env.ANTHROPIC_BASE_URL!,
  CXC_CONVERSATION__CONTEXT_GAUGE: "show",
});
const cxc = (args: string[]) => home.home.run(args, { env: env() });

const words = (count: number): string =>
  Array.from({ length: count }, (_, index) => `word${index}`).join(" ");

function answers(): FakeMessageReply {
  const values = { switched_gears: 0.9, at_boundary: 0.9, needs_history: 0.1, mid_operation: 0.1 };
  return { blocks: [{ type: "tool-call", id: "d1", name: "answer_questions", arguments: values }] };
}

const gaugeLine = (stderr: string): string | undefined =>
  stderr.split("\n").find((line) => line.startsWith("cxc: context "));

describe("one context number", () => {
  it("q's gauge and stats: the same count against the same window", async () => {
    provider.enqueue(textReply(words(200), { usage: { inputTokens: 800, outputTokens: 42 } }));
    const asked = await cxc(["q", "--new", words(200)]);
    expect(asked.exitCode, asked.stderr).toBe(0);
    expect(gaugeLine(asked.stderr)).toBe("cxc: context 842 of 200k tokens (0.4%, reported)");
    const stats = await cxc(["conversation", "stats"]);
    expect(stats.exitCode, stats.stderr).toBe(0);
    expect(stats.stdout.split("\n")[0]).toBe(
      "Context: 842 of 200k tokens (0.4%, reported); no compactions in force; no deferred compactions",
    );
  });

  it("the advisor's count is the gauge's: the provider's, not cxc's estimate", async () => {
    home.writeConfig(`
[conversation.compaction.advisor]
notice_tokens = 2000
recommend_tokens = 100000
request_tokens = 200000
`);
    provider.enqueue(textReply(words(300), { usage: { inputTokens: 1400, outputTokens: 100 } }));
    const first = await cxc(["q", "--new", words(300)]);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).not.toContain("advisor");
    provider.enqueue(textReply(words(300), { usage: { inputTokens: 3100, outputTokens: 100 } }), answers());
    const second = await cxc(["q", words(300)]);
    expect(second.exitCode, second.stderr).toBe(0);
    expect(second.stderr).toContain(
      "cxc: advisor: Context is growing. Context is at 3.2k tokens (1.6% of the window);",
    );
    expect(gaugeLine(second.stderr)).toBe("cxc: context 3.2k of 200k tokens (2%, reported)");
  });
});
