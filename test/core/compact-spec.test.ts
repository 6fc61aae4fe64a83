/** The `-k` DSL: jp's compact_flag_tests.rs (reference §10.4), test for test. */
import { describe, expect, it } from "vitest";
import {
  type CompactSpec,
  combineRules,
  describeSpecError,
  parseCompactSpec,
  specToRule,
} from "../../src/compaction/core/spec.js";
import { DEFAULT_COMPACTION_RULE } from "../../src/compaction/core/rules.js";
import { type Bound, OPEN_END, OPEN_START } from "../../src/core/position/bound.js";

/** Turn `number` (1-based, as written), covered on either side. */
const turn = (number: number): Bound => ({ kind: "turn", turn: number - 1 });
/** A cut keeping `count` turns at the end. */
const keepLast = (count: number): Bound => ({ kind: "count", unit: "turns", count, from: "end" });

function parse(text: string): CompactSpec {
  const parsed = parseCompactSpec(text);
  if (!parsed.ok) throw new Error(`${text}: ${parsed.message}`);
  return parsed.value;
}

describe("parseCompactSpec", () => {
  it("parses policies without a range (parse_policy_only)", () => {
    expect(parse("s")).toEqual({ reasoning: false, summarize: true });
    expect(parse("r+t=strip")).toEqual({ reasoning: true, summarize: false, toolCalls: "strip" });
    expect(parse("reasoning+tools=strip+summarize")).toEqual({
      reasoning: true,
      summarize: true,
      toolCalls: "strip",
    });
    expect(parse(" r + s ")).toEqual({ reasoning: true, summarize: true });
  });

  it("parses tool modes (parse_tool_modes)", () => {
    for (const text of ["t", "tools", "t=strip", "t=s", "t = s"]) expect(parse(text).toolCalls).toBe("strip");
    expect(parse("t=sreq").toolCalls).toBe("strip-requests");
    expect(parse("tools=strip-responses").toolCalls).toBe("strip-responses");
    expect(parse("t=o").toolCalls).toBe("omit");
    expect(parse("t=o+t=s").toolCalls).toBe("strip");
  });

  it("parses a tool mode with a range (parse_tool_mode_with_range)", () => {
    expect(parse("t=sres:..-3")).toEqual({
      reasoning: false,
      summarize: false,
      toolCalls: "strip-responses",
      range: { start: OPEN_START, end: keepLast(3) },
    });
  });

  it("parses ranges (parse_with_range)", () => {
    expect(parse("s:..-3").range).toEqual({ start: OPEN_START, end: keepLast(3) });
    expect(parse("r+t=strip:5..-3").range).toEqual({ start: turn(5), end: keepLast(3) });
    expect(parse("s:..").range).toEqual({ start: OPEN_START, end: OPEN_END });
    expect(parse("r:5..").range).toEqual({ start: turn(5), end: OPEN_END });
  });

  it("parses absolute ranges (parse_absolute_range)", () => {
    expect(parse("s:5..10").range).toEqual({ start: turn(5), end: turn(10) });
    expect(parse("s:..10").range).toEqual({ start: OPEN_START, end: turn(10) });
    // A left -N is jp's FromEnd(N): a start at `last - N`, the cut before the last N + 1 turns.
    expect(parse("s:-10..-3").range).toEqual({ start: keepLast(11), end: keepLast(3) });
  });

  it("reads a single bound as a shorthand (parse_single_number_shorthand)", () => {
    expect(parse("s:-3").range).toEqual({ start: OPEN_START, end: keepLast(3) });
    expect(parse("r:5").range).toEqual({ start: turn(5), end: OPEN_END });
    expect(parse("s:-0").range).toEqual({ start: OPEN_START, end: keepLast(0) });
  });

  it.each([
    ["", "empty policy"],
    ["r+", "empty policy"],
    ["+r", "empty policy"],
    ["x", "unknown policy 'x'"],
    ["s:abc", "invalid bound 'abc'"],
    ["s:5..x", "invalid bound 'x'"],
    ["s:-x", "invalid bound '-x'"],
    ["s:0..", "turn indices are 1-based; `0` is not a valid turn"],
    ["s:0..5", "turn indices are 1-based; `0` is not a valid turn"],
    ["s:0", "turn indices are 1-based; `0` is not a valid turn"],
    ["t=nope", "unknown tool_calls mode: `nope`"],
    ["r=strip", "`reasoning` does not take a value"],
    ["s=true", "`summarize` does not take a value"],
  ])("rejects %j (parse_errors)", (text, reason) => {
    expect(parseCompactSpec(text)).toEqual({ ok: false, message: reason });
  });

  it("wraps errors for the command line", () => {
    expect(describeSpecError("x", "unknown policy 'x'")).toBe("invalid compact spec 'x': unknown policy 'x'");
  });
});

describe("specToRule", () => {
  it("fills open ends with keep nothing (to_partial_rule_with_range)", () => {
    expect(specToRule(parse("r+t=strip:..-3"))).toEqual({
      keep_first: OPEN_START,
      keep_last: keepLast(3),
      reasoning: "strip",
      tool_calls: "strip",
    });
  });

  it("leaves keeps unset without a range (to_partial_rule_no_range)", () => {
    expect(specToRule(parse("s"))).toEqual({ summary: {} });
  });
});

describe("combineRules", () => {
  const config = [DEFAULT_COMPACTION_RULE];

  it("lets specs alone replace the config rules (specs_only_replace_config_rules)", () => {
    const rules = combineRules(config, false, [specToRule(parse("t=sreq"))]);
    expect(rules).toHaveLength(1);
    expect(rules[0]!.tool_calls).toBe("strip-requests");
  });

  it("appends specs to config rules with a bare -k (bare_compact_plus_dsl_appends_to_config_rules)", () => {
    const rules = combineRules(config, true, [specToRule(parse("s"))]);
    expect(rules).toEqual([DEFAULT_COMPACTION_RULE, { summary: {} }]);
  });

  it("uses the config rules unchanged for a bare -k (bare_compact_only_uses_config_rules_unchanged)", () => {
    expect(combineRules(config, true, [])).toEqual(config);
    expect(combineRules(config, false, [])).toEqual(config);
  });
});
