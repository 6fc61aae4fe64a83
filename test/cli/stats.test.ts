/**
 * `cxc conversation stats`: tokens per kind and per turn for the raw and the projected view, the
 * correction by provider-reported usage, the bar chart, and the JSON document.
 */
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { afterEach, describe, expect, it } from "vitest";
import type { TempHome } from "../helpers/cli.js";
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
    const result = await home.run(["conversation", "stats"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^Raw history: \d+(\.\d)?k tokens \(≈\d+(\.\d)?k by reported usage, ×\d\.\d\d\)\n/,
    );
    expect(result.stdout).toMatch(/\ntool_output\s+\d+(\.\d)?k\s+█+/);
    expect(result.stdout).toContain("Per turn (projected):\nturn 1 ");
  });
});
