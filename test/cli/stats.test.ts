/**
 * `cxc conversation stats`: tokens per kind and per turn for the raw and the projected view, the
 * correction by provider-reported usage, the bar chart, and the JSON document.
 */
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { afterEach, describe, expect, it } from "vitest";
import type { TempHome } from "../helpers/cli.js";
import { createEventBuilder } from "../helpers/builders.js";
import { loadSample } from "../helpers/sample.js";
import { homeWithSample } from "./compact-helpers.js";

let home: TempHome;
afterEach(() => home?.cleanup());

const KINDS = ["user", "assistant", "reasoning", "tool_arguments", "tool_output", "summary"];

describe("cxc conversation stats", () => {
  it("counts the raw and projected views per kind and per turn", async () => {
    home = await homeWithSample();
    const before = JSON.parse((await home.run(["--format", "json", "conversation", "stats"])).stdout);
    expect(before.tokenizer).toBe("o200k_base");
    expect(Object.keys(before.raw.by_kind)).toEqual(KINDS);
    expect(before.raw.turns).toHaveLength(20);
    expect(before.projected.total).toBe(before.raw.total);
    expect(before.saved).toBe(0);
    // The user kind is exactly the o200k count of every user request.
    const userTokens = loadSample()
      .events.flatMap((event) => (event.type === "chat_request" ? [countTokens(event.content)] : []))
      .reduce((sum, count) => sum + count, 0);
    expect(before.raw.by_kind.user).toBe(userTokens);
    // The sample carries provider usage, so the estimate is corrected.
    expect(before.correction_factor).toBeGreaterThan(0);
    expect(before.raw.corrected_total).toBe(Math.round(before.raw.total * before.correction_factor));

    const compacted = await home.run([
      "conversation",
      "compact",
      "-m",
      "builtin/digest",
      "-k",
      "s:2..10",
      "-k",
      "t:11..19",
    ]);
    expect(compacted.exitCode, compacted.stderr).toBe(0);
    const after = JSON.parse((await home.run(["--format", "json", "conversation", "stats"])).stdout);
    expect(after.raw.total).toBe(before.raw.total);
    expect(after.projected.total).toBeLessThan(before.raw.total / 2);
    expect(after.saved).toBe(after.raw.total - after.projected.total);
    expect(after.projected.by_kind.summary).toBeGreaterThan(0);
    expect(after.projected.turns).toHaveLength(12);
    expect(after.projected.turns[1]).toMatchObject({ kind: "summary", from_turn: 2, to_turn: 10 });
    expect(after.projected.turns[2]).toMatchObject({ kind: "kept", from_turn: 11, to_turn: 11 });
  });

  it("draws bars in text", async () => {
    home = await homeWithSample();
    const result = await home.run(["conversation", "stats"], {
      env: { CXC_ASSISTANT__MODEL__ID: "anthropic/claude-sonnet-4-6" },
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^Context: \d+(\.\d)?k of 200k tokens \(\d+%, reported\); no compactions in force; no deferred compactions\n/,
    );
    expect(result.stdout).toMatch(
      /\nRaw history: \d+(\.\d)?k tokens \(≈\d+(\.\d)?k by reported usage, ×\d\.\d\d\)\n/,
    );
    expect(result.stdout).toMatch(/\ntool_output\s+\d+(\.\d)?k\s+█+/);
    expect(result.stdout).toContain("Per turn (projected):\nturn 1 ");
  });

  it("shows the context gauge: the provider's count, the window, savings now and deferred", async () => {
    const events = loadSample().events;
    const lastUsage = events.findLast(
      (event) => event.type === "chat_response" && event.metadata?.usage !== undefined,
    ) as unknown as { metadata: { usage: Record<string, number> } };
    const usage = lastUsage.metadata.usage;
    const reported =
      usage.input_tokens! +
      usage.output_tokens! +
      (usage.cache_read_input_tokens ?? 0) +
      (usage.cache_creation_input_tokens ?? 0);
    home = await homeWithSample();
    const env = { CXC_ASSISTANT__MODEL__ID: "anthropic/claude-sonnet-4-6" };
    const stats = async () =>
      JSON.parse((await home.run(["--format", "json", "conversation", "stats"], { env })).stdout);
    const plain = await stats();
    // The sample's last turn thought (signed): Anthropic leaves that out of the next turn's context.
    const dropped = reported - plain.context.tokens;
    expect(dropped).toBeGreaterThan(0);
    expect(dropped).toBeLessThan(200);
    expect(plain.context).toEqual({
      tokens: reported - dropped,
      tokens_source: "reported",
      reported_by: null,
      estimate: expect.any(Number),
      estimate_reason: null,
      reported,
      reasoning_dropped: dropped,
      net_saving: 0,
      factor: expect.any(Number),
      imported_without_usage: false,
      window: 200_000,
      window_source: "known",
      percent: Math.round(((reported - dropped) / 200_000) * 1000) / 10,
      compactions: 0,
      saved: 0,
      deferred_compactions: 0,
      deferred_saving: 0,
    });

    // A compaction in force now, and one deferred until a turn the conversation has not reached.
    home.cleanup();
    const build = createEventBuilder();
    build.advance(10 ** 9);
    home = await homeWithSample([
      ...events,
      build.compaction({ from: 1, to: 9, summary: "The CLI and its filters were read." }),
      build.compaction({ from: 10, to: 18, tools: "strip", deferredUntilTurn: 20 }),
    ]);
    const after = await stats();
    expect(after.context.compactions).toBe(1);
    // One scale for every number: the provider's usage against cxc's count of the view it saw.
    expect(after.correction_factor).toBeCloseTo(plain.correction_factor, 10);
    // The gauge's saving counts what the next request sends: the signed reasoning of the
    // compacted turns, which Anthropic leaves out of a later turn anyway, is no saving there.
    expect(after.context.saved).toBeGreaterThan(0);
    expect(after.context.saved).toBeLessThanOrEqual(after.corrected_saved);
    // The context of the next request: the reported figure less what both compactions save on the
    // provider's scale (the deferred one takes effect with the next turn's first request).
    expect(after.context.tokens_source).toBe("reported-adjusted");
    expect(after.context.deferred_compactions).toBe(1);
    expect(after.context.deferred_saving).toBeGreaterThan(0);
    const saving = after.context.saved + after.context.deferred_saving;
    expect(Math.abs(after.context.tokens + saving - plain.context.tokens)).toBeLessThanOrEqual(2);
    const text = await home.run(["conversation", "stats"], { env });
    expect(text.stdout.split("\n")[0]).toMatch(
      /^Context: \d+(\.\d)?k of 200k tokens \(\d+%, reported, adjusted for what changed since\); 1 compaction saves \d+(\.\d)?k; 1 compaction deferred to the next turn saves \d+(\.\d)?k$/,
    );
  });

  it("says when it had to assume the window", async () => {
    home = await homeWithSample();
    const result = await home.run(["conversation", "stats"], {
      env: { CXC_ASSISTANT__MODEL__ID: "ollama/some-local-model" },
    });
    expect(result.stdout.split("\n")[0]).toMatch(
      /^Context: \d+(\.\d)?k tokens \(\d+%? of an assumed 128k window: the model's is unknown; reported\);/,
    );
  });
});
