/**
 * Planning a compaction run: jp's compact_tests.rs range and rule tests (reference §10.3), the
 * summary-extension tests of compaction_tests.rs (§10.1), and cxc's supplied-summary rule. The
 * range flags' precedence is decided in the CLI (src/cli/compaction/options.ts), which hands the
 * planner rules with their final ranges: those tests go through it.
 */
import { describe, expect, it } from "vitest";
import { type CompactFlags, parseRangeFlags } from "../../src/cli/compaction/options.js";
import { applyRange } from "../../src/compaction/core/request.js";
import { buildCompactionEvent, withoutDeferral } from "../../src/compaction/core/event.js";
import { fitSummary, summarySpansOf } from "../../src/compaction/core/overlap.js";
import {
  type CompactionPlan,
  type CompactionSegment,
  type PlanCompactionOptions,
  planCompaction,
} from "../../src/compaction/core/plan.js";
import { parseCompactSpec, specToRule } from "../../src/compaction/core/spec.js";
import { HEAD, TURN_END } from "../../src/core/conversation/cycles.js";
import { type ConversationEvent, eventSchemas } from "../../src/core/conversation/events.js";
import type { Bound } from "../../src/core/position/bound.js";
import { projectConversation } from "../../src/core/conversation/projection.js";
import { type CompactionRule, DEFAULT_COMPACTION_RULE } from "../../src/compaction/core/rules.js";
import { createEventBuilder, type EventBuilder, eventsOfType, tickTime } from "../helpers/builders.js";

const NOW = "2026-01-01T12:00:00Z";
const keepFirst = (count: number): Bound => ({ kind: "count", unit: "turns", count, from: "start" });
const keepLast = (count: number): Bound => ({ kind: "count", unit: "turns", count, from: "end" });

function plan(
  events: readonly ConversationEvent[],
  options: Partial<PlanCompactionOptions> & { readonly flags?: CompactFlags } = {},
): CompactionPlan {
  const { flags, ...rest } = options;
  const rules = rest.rules ?? [DEFAULT_COMPACTION_RULE];
  return planCompaction(events, {
    now: NOW,
    ...rest,
    rules: flags === undefined ? rules : applyRange(rules, parseRangeFlags(flags, NOW)),
  });
}

/** The whole turns `from..to` as a span. */
const wholeTurns = (from: number, to: number) => ({
  from: { turn: from, cycle: HEAD },
  to: { turn: to, cycle: TURN_END },
});

/** A derived summary of `from..to` grown over the summaries in force (overlap.ts). */
function extendSummaryRange(events: readonly ConversationEvent[], from: number, to: number) {
  const fit = fitSummary(wholeTurns(from, to), summarySpansOf(events), "grow");
  if (fit.kind !== "fits") throw new Error(fit.message);
  return { from: fit.span.from.turn, to: fit.span.to.turn };
}

/** The conflict a supplied summary of `from..to` meets, if any (overlap.ts). */
function checkSuppliedSummary(events: readonly ConversationEvent[], from: number, to: number) {
  const fit = fitSummary(wholeTurns(from, to), summarySpansOf(events), "refuse");
  return fit.kind === "conflict" ? fit : undefined;
}

/** A rule whose summary text is given. */
const supplied = { supplied: { text: "given", author: "user" } } as const;

function ranges(result: CompactionPlan): [number, number][] {
  if (result.kind !== "planned") throw new Error(`expected a plan, got ${JSON.stringify(result)}`);
  return result.segments.map((segment) => [segment.from, segment.to]);
}

function streamWithSummaries(
  build: EventBuilder,
  turnCount: number,
  summaries: [number, number][],
): ConversationEvent[] {
  return [
    ...build.turns(turnCount),
    ...summaries.map(([from, to]) => build.compaction({ from, to, summary: `S${from}-${to}` })),
  ];
}

describe("extendSummaryRange", () => {
  const build = createEventBuilder();
  const extend = (summaries: [number, number][], from: number, to: number) =>
    extendSummaryRange(streamWithSummaries(build, 20, summaries), from, to);

  it("leaves the range alone without summaries (extend_no_existing_summaries)", () => {
    expect(extend([], 3, 7)).toEqual({ from: 3, to: 7 });
  });
  it("leaves a disjoint range alone (extend_no_overlap)", () => {
    expect(extend([[0, 2]], 5, 8)).toEqual({ from: 5, to: 8 });
  });
  it("does not extend over an adjacent summary", () => {
    expect(extend([[0, 2]], 3, 5)).toEqual({ from: 3, to: 5 });
  });
  it("extends right over a partial overlap (extend_partial_overlap_right)", () => {
    expect(extend([[5, 9]], 3, 7)).toEqual({ from: 3, to: 9 });
  });
  it("extends left over a partial overlap (extend_partial_overlap_left)", () => {
    expect(extend([[0, 4]], 3, 8)).toEqual({ from: 0, to: 8 });
  });
  it("keeps a range that contains the old one (extend_new_fully_contains_old)", () => {
    expect(extend([[3, 5]], 0, 8)).toEqual({ from: 0, to: 8 });
  });
  it("grows to an enclosing summary (extend_old_fully_contains_new)", () => {
    expect(extend([[0, 9]], 3, 5)).toEqual({ from: 0, to: 9 });
  });
  it("extends transitively (extend_transitive_chain)", () => {
    expect(
      extend(
        [
          [0, 5],
          [4, 10],
          [9, 15],
        ],
        3,
        7,
      ),
    ).toEqual({ from: 0, to: 15 });
    expect(
      extend(
        [
          [9, 15],
          [4, 10],
          [0, 5],
        ],
        3,
        7,
      ),
    ).toEqual({ from: 0, to: 15 });
  });
  it("ignores mechanical compactions (extend_ignores_mechanical_compactions)", () => {
    const events = [
      ...build.turns(10),
      build.compaction({ from: 0, to: 9, reasoning: true, tools: "strip" }),
    ];
    expect(extendSummaryRange(events, 3, 7)).toEqual({ from: 3, to: 7 });
  });
  it("ignores retired summaries", () => {
    const summary = build.compaction({ from: 0, to: 9, summary: "old" });
    const events = [...build.turns(10), summary, build.reset([summary.id])];
    expect(extendSummaryRange(events, 3, 7)).toEqual({ from: 3, to: 7 });
  });
});

describe("checkSuppliedSummary", () => {
  const build = createEventBuilder();
  const events = streamWithSummaries(build, 12, [[0, 4]]);

  it("accepts disjoint and enclosing ranges", () => {
    expect(checkSuppliedSummary(events, 5, 8)).toBeUndefined();
    expect(checkSuppliedSummary(events, 0, 8)).toBeUndefined();
    expect(checkSuppliedSummary(events, 0, 4)).toBeUndefined();
  });

  it("names the conflicting turns (1-based) on a partial overlap", () => {
    const conflict = checkSuppliedSummary(events, 3, 7);
    expect(conflict?.message).toBe(
      "summary of turns 4..8 partially overlaps the existing summary of turns 1..5; " +
        "a supplied summary must cover an existing summary entirely or leave it alone (covering it takes turns 1..8)",
    );
    expect(conflict?.needed).toEqual(wholeTurns(0, 7));
    expect(conflict?.conflicts).toEqual([{ from: 0, to: 4, compactionId: expect.any(String) }]);
  });

  it("rejects a range nested inside an existing summary, which would split it", () => {
    expect(checkSuppliedSummary(events, 1, 2)?.conflicts).toHaveLength(1);
  });

  it("is used by the planner instead of widening a supplied summary", () => {
    const result = plan(events, {
      rules: [{ ...supplied, keep_first: keepFirst(3), keep_last: keepLast(4) }],
    });
    expect(result).toMatchObject({ kind: "conflict", ruleIndex: 0 });
    const fine = plan(events, { rules: [{ ...supplied, keep_first: keepFirst(5), keep_last: keepLast(1) }] });
    expect(ranges(fine)).toEqual([[5, 10]]);
  });
});

describe("planCompaction ranges", () => {
  it("keeps the first and last turn by default (keep 1/1 over 6 turns → 1..4, over 5 → 1..3)", () => {
    expect(ranges(plan(createEventBuilder().turns(6)))).toEqual([[1, 4]]);
    expect(ranges(plan(createEventBuilder().turns(5)))).toEqual([[1, 3]]);
  });

  it("compacts nothing in a legacy single-turn conversation", () => {
    expect(plan(createEventBuilder().turns(1))).toEqual({
      kind: "nothing-to-compact",
      message: "Nothing to compact.",
      why: [{ kind: "outside", ruleIndex: 0 }],
    });
  });

  it("maps every tool mode to its policy (tool_calls_mode_maps_to_policy)", () => {
    const events = createEventBuilder().turns(4);
    for (const [mode, policy] of [
      ["strip", { policy: "strip", request: true, response: true }],
      ["strip-requests", { policy: "strip", request: true, response: false }],
      ["strip-responses", { policy: "strip", request: false, response: true }],
      ["omit", { policy: "omit" }],
    ] as const) {
      const result = plan(events, {
        rules: [{ keep_first: keepFirst(0), keep_last: keepLast(0), tool_calls: mode }],
      });
      expect(result.kind === "planned" && result.segments[0]).toMatchObject({
        from: 0,
        to: 3,
        toolCalls: policy,
      });
    }
  });

  it("compacts nothing when keep_last's duration covers the conversation (keep_last_duration_covering_whole_conversation_compacts_nothing)", () => {
    const events = createEventBuilder().turns(6);
    const rule: CompactionRule = {
      reasoning: "strip",
      keep_last: { kind: "time", time: { beforeNow: 720 * 3_600_000 } },
    };
    expect(plan(events, { rules: [rule] }).kind).toBe("nothing-to-compact");
  });

  it("resolves last-compaction against the original stream for every rule (from_last_resolves_against_original_stream_for_every_rule)", () => {
    const events = createEventBuilder().turns(6);
    const rules: CompactionRule[] = [
      { reasoning: "strip", keep_last: keepLast(3) },
      { tool_calls: "strip", keep_last: keepLast(3) },
    ];
    expect(ranges(plan(events, { rules, flags: { from: "last-compaction" } }))).toEqual([
      [0, 2],
      [0, 2],
    ]);
  });

  it("lets range flags narrow the rules without adding one (keep_last_only_does_not_inject_a_policyless_rule)", () => {
    const result = plan(createEventBuilder().turns(10), { flags: { keepLast: "5" } });
    expect(result.kind === "planned" && result.segments).toEqual([
      expect.objectContaining({ ruleIndex: 0, from: 1, to: 4, reasoning: "strip" }),
    ]);
  });

  it("composes --keep-first with --first (keep_first_composes_with_first)", () => {
    const rules = [{ reasoning: "strip" } as CompactionRule];
    expect(
      ranges(plan(createEventBuilder().turns(20), { rules, flags: { keepFirst: "1", first: "16" } })),
    ).toEqual([[1, 15]]);
  });

  it("composes --keep-last with --last (keep_last_composes_with_last)", () => {
    const rules = [{ reasoning: "strip" } as CompactionRule];
    expect(
      ranges(plan(createEventBuilder().turns(20), { rules, flags: { keepLast: "2", last: "16" } })),
    ).toEqual([[4, 17]]);
  });

  it("rejects --keep-first greater than --first (keep_first_greater_than_first_is_rejected)", () => {
    const events = createEventBuilder().turns(20);
    expect(() => plan(events, { flags: { keepFirst: "17", first: "16" } })).toThrow(
      "--keep-first 17 is greater than --first 16: nothing would remain to compact",
    );
    expect(plan(events, { flags: { keepFirst: "16", first: "16" } }).kind).toBe("nothing-to-compact");
  });

  it("rejects --keep-last greater than --last (keep_last_greater_than_last_is_rejected)", () => {
    const events = createEventBuilder().turns(20);
    expect(() => plan(events, { flags: { keepLast: "3", last: "2" } })).toThrow(
      "--keep-last 3 is greater than --last 2: nothing would remain to compact",
    );
    expect(plan(events, { flags: { keepLast: "2", last: "2" } }).kind).toBe("nothing-to-compact");
  });

  it("rejects --turn past the end (turn_out_of_range_is_rejected)", () => {
    const events = createEventBuilder().turns(5);
    const message = "turn 100 out of range (conversation has 5 turns)";
    expect(plan(events, { flags: { turn: "100" } })).toEqual({ kind: "invalid", message, ruleIndex: 0 });
    expect(plan(events, { flags: { turn: "..100" } })).toEqual({ kind: "invalid", message, ruleIndex: 0 });
    expect(ranges(plan(events, { flags: { turn: "3" } }))).toEqual([[2, 2]]);
  });

  it("treats --first 0 and --last 0 as nothing to compact", () => {
    const events = createEventBuilder().turns(5);
    expect(plan(events, { flags: { first: "0" } }).kind).toBe("nothing-to-compact");
    expect(plan(events, { flags: { last: "0" } }).kind).toBe("nothing-to-compact");
  });

  it("refuses conflicting range flags", () => {
    const conflicts: [CompactFlags, string][] = [
      [{ keepFirst: "1", from: "1" }, "--keep-first cannot be used with --from"],
      [{ keepLast: "1", first: "2" }, "--keep-last cannot be used with --first"],
      [{ first: "1", last: "1" }, "--first cannot be used with --last"],
    ];
    for (const [flags, message] of conflicts) expect(() => parseRangeFlags(flags, NOW)).toThrow(message);
    expect(parseRangeFlags({ from: "1", to: "3" }, NOW)).toEqual({
      start: { kind: "turn", turn: 0 },
      end: { kind: "turn", turn: 2 },
    });
  });

  it("resolves --from and --to durations against turn start times", () => {
    const build = createEventBuilder();
    const events = build.turns(6); // turns start every 3 s from 00:00:00
    expect(ranges(plan(events, { flags: { from: tickTime(4), to: tickTime(13) } }))).toEqual([[2, 4]]);
  });

  it.each([
    ["s:..", [0, 9]],
    ["s:..-3", [0, 6]],
    ["s:-3", [0, 6]],
    ["s:5..", [4, 9]],
    ["s:5", [4, 9]],
    ["s:5..-3", [4, 6]],
    ["s:5..10", [4, 9]],
    ["s:..10", [0, 9]],
    ["s:-10..-3", [0, 6]],
    ["s:-4..-3", [5, 6]],
    ["s:-0", [0, 9]],
    ["s", [1, 8]],
  ])("resolves the DSL range %s over 10 turns as jp does (§7.3)", (text, range) => {
    const parsed = parseCompactSpec(text);
    if (!parsed.ok) throw new Error(parsed.message);
    expect(ranges(plan(createEventBuilder().turns(10), { rules: [specToRule(parsed.value)] }))).toEqual([
      range,
    ]);
  });
});

describe("planCompaction summaries", () => {
  it("extends a summary rule over an existing summary", () => {
    const build = createEventBuilder();
    const events = streamWithSummaries(build, 10, [[0, 3]]);
    const result = plan(events, {
      rules: [{ summary: {}, keep_first: keepFirst(2), keep_last: keepLast(2) }],
    });
    expect(result.kind === "planned" && result.segments[0]).toMatchObject({
      from: 0,
      to: 7,
      requested: { from: 2, to: 7 },
    });
  });

  it("extends a later summary rule over one planned earlier in the same run", () => {
    const events = createEventBuilder().turns(10);
    const rules: CompactionRule[] = [
      { summary: { context: "first" }, keep_first: keepFirst(0), keep_last: keepLast(6) },
      { summary: {}, keep_first: keepFirst(2), keep_last: keepLast(2) },
    ];
    expect(ranges(plan(events, { rules }))).toEqual([
      [0, 3],
      [0, 7],
    ]);
  });

  it("never extends mechanical rules", () => {
    const build = createEventBuilder();
    const events = streamWithSummaries(build, 10, [[0, 3]]);
    expect(
      ranges(
        plan(events, {
          rules: [{ reasoning: "strip", keep_first: keepFirst(2), keep_last: keepLast(2) }],
        }),
      ),
    ).toEqual([[2, 7]]);
  });

  it("carries source and note", () => {
    const result = plan(createEventBuilder().turns(4), { source: "assistant", note: "why" });
    expect(result).toMatchObject({ kind: "planned", source: "assistant", note: "why" });
  });
});

describe("buildCompactionEvent", () => {
  const segment: CompactionSegment = {
    ruleIndex: 0,
    from: 1,
    to: 4,
    requested: { from: 1, to: 4 },
    reasoning: "strip",
    toolCalls: { policy: "strip", request: true, response: false },
  };

  it("writes jp's keys in order, then cxc's", () => {
    const event = buildCompactionEvent(segment, {
      id: "c1",
      ts: NOW,
      source: "user",
      note: "tidy",
      deferredUntilTurn: 6,
    });
    expect(Object.keys(event)).toEqual([
      "type",
      "id",
      "ts",
      "from_turn",
      "to_turn",
      "reasoning",
      "tool_calls",
      "source",
      "note",
      "deferred_until_turn",
    ]);
    expect(event).toMatchObject({
      from_turn: 1,
      to_turn: 4,
      reasoning: "strip",
      tool_calls: { policy: "strip", request: true, response: false },
    });
  });

  it("needs the summary text for a summary segment", () => {
    const summarySegment: CompactionSegment = { ...segment, summary: {} };
    expect(() => buildCompactionEvent(summarySegment, { id: "c", ts: NOW, source: "user" })).toThrow();
    const event = buildCompactionEvent(summarySegment, {
      id: "c",
      ts: NOW,
      source: "user",
      summary: { summary: "text", source: "derived", recipe: "builtin/digest" },
    });
    expect(Object.keys(event).slice(0, 6)).toEqual(["type", "id", "ts", "from_turn", "to_turn", "summary"]);
    expect(event.summary).toEqual({ summary: "text", source: "derived", recipe: "builtin/digest" });
  });

  it("writes a supplied summary as the author's text, never needing a generated one", () => {
    const event = buildCompactionEvent(
      { from: 2, to: 3, supplied: { text: "agreed text", author: "assistant" } },
      { id: "c", ts: NOW, source: "assistant", note: "why", deferredUntilTurn: 5 },
    );
    expect(event.summary).toEqual({ summary: "agreed text", source: "supplied", author: "assistant" });
    expect(eventSchemas().CompactionSchema.safeParse(event).success).toBe(true);
  });

  it("builds an event the schema accepts, metadata last", () => {
    const event = buildCompactionEvent(segment, {
      id: "c",
      ts: NOW,
      source: "auto",
      metadata: { cxc_auto: { turn: 3 } },
    });
    expect(Object.keys(event).at(-1)).toBe("metadata");
    expect(eventSchemas().CompactionSchema.parse(event)).toEqual(event);
  });

  it("withoutDeferral drops only the deferral, and leaves the original alone", () => {
    const deferred = buildCompactionEvent(segment, {
      id: "c",
      ts: NOW,
      source: "assistant",
      deferredUntilTurn: 6,
    });
    const active = withoutDeferral(deferred);
    expect(active.deferred_until_turn).toBeUndefined();
    expect("deferred_until_turn" in active).toBe(false);
    expect(deferred.deferred_until_turn).toBe(6);
    expect({ ...active, deferred_until_turn: 6 }).toEqual(deferred);
    const inForce = buildCompactionEvent(segment, { id: "d", ts: NOW, source: "user" });
    expect(withoutDeferral(inForce)).toBe(inForce);
  });

  it("blanks strip-request arguments through projection (config_rule_strip_requests_blanks_args_through_projection)", () => {
    const build = createEventBuilder();
    const events: ConversationEvent[] = [];
    for (let index = 0; index < 6; index++)
      events.push(...build.turn(`q${index}`, { tools: [{ name: "read", arguments: { n: index } }] }));
    const result = plan(events, {
      rules: [{ keep_first: keepFirst(1), keep_last: keepLast(1), tool_calls: "strip-requests" }],
    });
    if (result.kind !== "planned") throw new Error("expected a plan");
    expect(ranges(result)).toEqual([[1, 4]]);
    const compacted = [
      ...events,
      buildCompactionEvent(result.segments[0]!, { id: "c", ts: build.now(), source: "user" }),
    ];
    const view = projectConversation(compacted);
    expect(eventsOfType(view.events, "tool_call_request").map((request) => request.arguments)).toEqual([
      { n: 0 },
      {},
      {},
      {},
      {},
      { n: 5 },
    ]);
    expect(
      eventsOfType(view.events, "tool_call_response").every((response) => response.content === "read output"),
    ).toBe(true);
  });
});
