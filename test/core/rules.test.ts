/**
 * Compaction rules: jp's config compaction_tests.rs and format_tests.rs (reference §10.5), plus
 * the default rule, the flag rule and the model override.
 */
import { describe, expect, it } from "vitest";
import type { Compaction } from "../../src/core/conversation/events.js";
import {
  buildFlagRule,
  configuredRules,
  DEFAULT_COMPACTION_RULE,
  describeCompaction,
  describePolicies,
  overrideSummaryModel,
  parseToolCallsMode,
  readCompactionRules,
  TOOL_CALLS_MODE_CHOICES,
  toolCallsPolicyFor,
} from "../../src/compaction/core/rules.js";
import { ruleRange } from "../../src/compaction/core/plan.js";

describe("tool call modes", () => {
  it("parses the canonical names (tool_calls_mode_parse)", () => {
    for (const mode of ["strip", "strip-requests", "strip-responses", "omit"] as const) {
      expect(parseToolCallsMode(mode)).toEqual({ ok: true, value: mode });
    }
  });

  it("parses short and underscore aliases (tool_calls_mode_parse_short_aliases)", () => {
    expect(parseToolCallsMode("s")).toEqual({ ok: true, value: "strip" });
    expect(parseToolCallsMode("sreq")).toEqual({ ok: true, value: "strip-requests" });
    expect(parseToolCallsMode("strip_requests")).toEqual({ ok: true, value: "strip-requests" });
    expect(parseToolCallsMode("sres")).toEqual({ ok: true, value: "strip-responses" });
    expect(parseToolCallsMode("strip_responses")).toEqual({ ok: true, value: "strip-responses" });
    expect(parseToolCallsMode("o")).toEqual({ ok: true, value: "omit" });
    expect(parseToolCallsMode("nope")).toEqual({ ok: false, message: "unknown tool_calls mode: `nope`" });
    expect(TOOL_CALLS_MODE_CHOICES).toBe(
      "expected one of: strip (s), strip-requests (sreq), strip-responses (sres), omit (o)",
    );
  });

  it("maps each mode to its event policy (tool_calls_mode_maps_to_policy)", () => {
    expect(toolCallsPolicyFor("strip")).toEqual({ policy: "strip", request: true, response: true });
    expect(toolCallsPolicyFor("strip-requests")).toEqual({ policy: "strip", request: true, response: false });
    expect(toolCallsPolicyFor("strip-responses")).toEqual({
      policy: "strip",
      request: false,
      response: true,
    });
    expect(toolCallsPolicyFor("omit")).toEqual({ policy: "omit" });
  });
});

describe("reading rules from config", () => {
  it("reads integer and string bounds and mode strings (rule_config_deserializes_integer_bounds)", () => {
    const parsed = readCompactionRules([
      {
        keep_first: 2,
        keep_last: "5h",
        reasoning: "strip",
        tool_calls: "sres",
        summary: { instructions: "be brief", model: { id: "anthropic/haiku" } },
      },
    ]);
    expect(parsed).toEqual({
      ok: true,
      value: [
        {
          keep_first: { kind: "count", unit: "turns", count: 2, from: "start" },
          keep_last: { kind: "time", time: { beforeNow: 5 * 3_600_000 } },
          reasoning: "strip",
          tool_calls: "strip-responses",
          summary: { instructions: "be brief", model: { id: "anthropic/haiku" } },
        },
      ],
    });
  });

  it("leaves unset fields out (rule_partial_none_fields_omitted)", () => {
    const parsed = readCompactionRules([{ reasoning: "strip" }]);
    expect(parsed.ok && Object.keys(parsed.value[0]!)).toEqual(["reasoning"]);
  });

  it("rejects a negative count with jp's text", () => {
    expect(readCompactionRules([{ keep_last: -3 }])).toEqual({
      ok: false,
      message: "rules[0].keep_last: turn count must be non-negative, got `-3`",
    });
  });

  it("rejects an unknown reasoning mode and tool mode", () => {
    // zod's own English texts, in a process that never loaded the classic zod API.
    expect(readCompactionRules([{ reasoning: "drop" }])).toEqual({
      ok: false,
      message: 'rules[0].reasoning: Invalid input: expected "strip"',
    });
    expect(readCompactionRules([{ summary: { instructions: 4 } }])).toEqual({
      ok: false,
      message: "rules[0].summary.instructions: Invalid input: expected string, received number",
    });
    expect(readCompactionRules([{ tool_calls: "nope" }])).toEqual({
      ok: false,
      message: "rules[0].tool_calls: unknown tool_calls mode: `nope`",
    });
  });

  it("reads a summary model given as jp's { provider, name } table", () => {
    expect(
      readCompactionRules([{ summary: { model: { id: { provider: "anthropic", name: "m" } } } }]),
    ).toEqual({
      ok: true,
      value: [{ summary: { model: { id: "anthropic/m" } } }],
    });
  });

  it("reads @N as a 1-based position and rejects @0", () => {
    expect(readCompactionRules([{ keep_first: "@2" }])).toEqual({
      ok: true,
      value: [{ keep_first: { kind: "turn", turn: 1 } }],
    });
    expect(readCompactionRules([{ keep_first: "@0" }])).toEqual({
      ok: false,
      message: "rules[0].keep_first: absolute turns are 1-based; `@0` is not a valid turn",
    });
  });
});

describe("default and finalized rules", () => {
  it("uses the built-in default only when no rules are configured", () => {
    expect(configuredRules(undefined)).toEqual([DEFAULT_COMPACTION_RULE]);
    expect(DEFAULT_COMPACTION_RULE).toEqual({
      keep_first: { kind: "count", unit: "turns", count: 1, from: "start" },
      keep_last: { kind: "count", unit: "turns", count: 1, from: "end" },
      reasoning: "strip",
      tool_calls: "strip",
    });
    expect(configuredRules([{ reasoning: "strip" }])).toEqual([{ reasoning: "strip" }]);
  });

  it("fills 1 and 1 into unset keeps, and the first message into a cycle rule's unset keep_first", () => {
    expect(ruleRange({ reasoning: "strip" })).toEqual({
      start: { kind: "count", unit: "turns", count: 1, from: "start" },
      end: { kind: "count", unit: "turns", count: 1, from: "end" },
    });
    const fourTurns = { kind: "count", unit: "turns", count: 4, from: "end" } as const;
    expect(ruleRange({ keep_last: fourTurns }).end).toEqual(fourTurns);
    const fiveCalls = { kind: "count", unit: "calls", count: 5, from: "end" } as const;
    expect(ruleRange({ keep_last: fiveCalls })).toEqual({
      start: { kind: "turn", turn: 0, cycle: 0, lenient: true },
      end: fiveCalls,
    });
  });

  it("builds the ad-hoc rule of -r/-t/-s", () => {
    expect(buildFlagRule({})).toBeUndefined();
    expect(buildFlagRule({ reasoning: true, toolCalls: "omit" })).toEqual({
      reasoning: "strip",
      tool_calls: "omit",
    });
    expect(buildFlagRule({ summarize: true })).toEqual({ summary: {} });
    expect(buildFlagRule({ summarize: "focus on the parser" })).toEqual({
      summary: { context: "focus on the parser" },
    });
  });

  it("redirects summary models and leaves summaryless rules alone (model_flag_overrides_a_configured_summary_model)", () => {
    const rules = overrideSummaryModel(
      [
        {
          summary: {
            instructions: "x",
            model: { id: "anthropic/claude-configured", parameters: { max_tokens: 10 } },
          },
        },
        { reasoning: "strip" },
      ],
      "openai/gpt-5",
    );
    expect(rules).toEqual([
      { summary: { instructions: "x", model: { id: "openai/gpt-5", parameters: { max_tokens: 10 } } } },
      { reasoning: "strip" },
    ]);
  });
});

describe("labels", () => {
  it("describes partial tool strips (compaction_policy_label_describes_partial_tool_call_strip)", () => {
    expect(describePolicies({ tool_calls: toolCallsPolicyFor("strip-requests") })).toBe("tool requests");
    expect(describePolicies({ tool_calls: toolCallsPolicyFor("strip-responses") })).toBe("tool responses");
    expect(describePolicies({ tool_calls: toolCallsPolicyFor("omit") })).toBe("tools omitted");
    expect(describePolicies({ reasoning: "strip", tool_calls: toolCallsPolicyFor("strip") })).toBe(
      "reasoning + tools",
    );
    expect(
      describePolicies({ tool_calls: { policy: "strip", request: false, response: false } }),
    ).toBeUndefined();
  });

  it("has no label without a policy (compaction_policy_label_is_none_without_any_policy)", () => {
    expect(describePolicies({})).toBeUndefined();
  });

  it("omits the label of a policyless compaction (compaction_detail_item_with_no_policy_omits_the_label)", () => {
    const base: Compaction = {
      type: "compaction",
      id: "c",
      ts: "2026-01-01T00:00:00Z",
      from_turn: 0,
      to_turn: 1,
      source: "user",
    };
    expect(describeCompaction(base)).toBe("turns 1..2 (2 total)");
    expect(describeCompaction({ ...base, reasoning: "strip" })).toBe("turns 1..2 (2 total, reasoning)");
    expect(
      describeCompaction({ ...base, reasoning: "strip", summary: { summary: "s", source: "derived" } }),
    ).toBe("turns 1..2 (2 total, summary)");
  });
});
