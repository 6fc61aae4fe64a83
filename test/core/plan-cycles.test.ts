/**
 * Cycle bounds from the rule to the event (docs/decisions/006-tool-cycle-bounds.md): their
 * spellings in config, on the command line and in the `-k` DSL, how a cycle-precise rule is
 * planned (masking, summaries split at turns, overlap extension, conflicts), and the events built
 * from its segments.
 */
import { describe, expect, it } from "vitest";
import { type CompactFlags, parseRangeFlags } from "../../src/cli/compaction/options.js";
import { applyRange } from "../../src/compaction/core/request.js";
import { buildCompactionEvent } from "../../src/compaction/core/event.js";
import {
  type CompactionPlan,
  type CompactionSegment,
  type PlanCompactionOptions,
  planCompaction,
  ruleRange,
} from "../../src/compaction/core/plan.js";
import {
  type CompactionRule,
  DEFAULT_COMPACTION_RULE,
  readCompactionRules,
} from "../../src/compaction/core/rules.js";
import { parseCompactSpec, specToRule } from "../../src/compaction/core/spec.js";
import { type ConversationEvent, parseEvent } from "../../src/core/conversation/events.js";
import { projectConversation } from "../../src/core/conversation/projection.js";
import { type Bound, isCycleBound, isPreciseRange, OPEN_START } from "../../src/core/position/bound.js";
import { parseFlagBound, parseKeep } from "../../src/core/position/parse.js";
import { createEventBuilder, type EventBuilder, eventsOfType } from "../helpers/builders.js";
import { agentTurn, cycleCompaction } from "../helpers/cycles.js";

const NOW = "2026-01-01T12:00:00Z";

function spec(text: string): CompactionRule {
  const parsed = parseCompactSpec(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return specToRule(parsed.value);
}

function plan(
  events: readonly ConversationEvent[],
  rules: CompactionRule[],
  options: Partial<PlanCompactionOptions> & {
    readonly flags?: CompactFlags;
    readonly supplied?: boolean;
  } = {},
): CompactionPlan {
  const { flags, supplied, ...rest } = options;
  // A supplied summary: the rule's summary is given text, never widened.
  const withText = supplied
    ? rules.map(({ summary, ...rule }) =>
        summary === undefined ? rule : { ...rule, supplied: { text: "given", author: "user" as const } },
      )
    : rules;
  return planCompaction(events, {
    now: NOW,
    ...rest,
    rules: flags === undefined ? withText : applyRange(withText, parseRangeFlags(flags, NOW)),
  });
}

const calls = (count: number, from: "start" | "end" = "end"): Bound => ({
  kind: "count",
  unit: "calls",
  count,
  from,
});
const cycles = (count: number, from: "start" | "end" = "end"): Bound => ({
  kind: "count",
  unit: "cycles",
  count,
  from,
});

type Range = Pick<CompactionSegment, "from" | "to" | "fromCycle" | "toCycle">;

function segmentsOf(result: CompactionPlan): readonly CompactionSegment[] {
  if (result.kind !== "planned") throw new Error(`expected a plan, got ${JSON.stringify(result)}`);
  return result.segments;
}

function rangesOf(result: CompactionPlan): Range[] {
  return segmentsOf(result).map(({ from, to, fromCycle, toCycle }) => ({
    from,
    to,
    ...(fromCycle === undefined ? {} : { fromCycle }),
    ...(toCycle === undefined ? {} : { toCycle }),
  }));
}

/** Applies a plan with a fixed summary text per segment. */
function apply(build: EventBuilder, events: readonly ConversationEvent[], result: CompactionPlan) {
  const compactions = segmentsOf(result).map((segment, index) =>
    buildCompactionEvent(segment, {
      id: `planned-${index}`,
      ts: build.now(),
      source: "user",
      ...(segment.summary === undefined ? {} : { summary: { summary: `S${index}`, source: "derived" } }),
    }),
  );
  return [...events, ...compactions];
}

/** A single-turn agent session: `cycles` cycles of one call each, then the answer (a cycle too). */
function session(cycles: number, callsPerCycle = 1) {
  const build = createEventBuilder();
  const events: ConversationEvent[] = agentTurn(
    build,
    "task",
    Array.from({ length: cycles }, (_, index) => ({ reasoning: `r${index}`, calls: callsPerCycle })),
  );
  return { build, events };
}

describe("cycle bound spellings", () => {
  it("parses counts of calls and cycles, and turn.cycle positions", () => {
    const cases: [string, "start" | "end", Bound][] = [
      ["5 calls", "end", calls(5)],
      ["5calls", "end", calls(5)],
      ["1 call", "end", calls(1)],
      ["3 cycles", "end", cycles(3)],
      ["1cycle", "start", cycles(1, "start")],
      ["0 calls", "start", calls(0, "start")],
      ["@4.37", "end", { kind: "turn", turn: 3, cycle: 36 }],
      ["@4", "start", { kind: "turn", turn: 3 }],
    ];
    for (const [text, side, bound] of cases)
      expect(parseKeep(text, side)).toEqual({ ok: true, value: bound });
  });

  it("refuses zero cycles in a position and unknown units", () => {
    expect(parseKeep("@4.0", "end")).toEqual({
      ok: false,
      message: "cycles are 1-based; `@4.0` is not a valid cycle",
    });
    expect(parseKeep("@0.3", "end")).toEqual({
      ok: false,
      message: "absolute turns are 1-based; `@0.3` is not a valid turn",
    });
    expect(parseKeep("@4.x", "end").ok).toBe(false);
    expect(parseKeep("5 calories", "end").ok).toBe(false);
  });

  it("reads them from config and tells cycle bounds from turn bounds", () => {
    const read = readCompactionRules([{ keep_last: "5 calls", tool_calls: "strip-responses" }]);
    expect(read).toEqual({
      ok: true,
      value: [{ keep_last: calls(5), tool_calls: "strip-responses" }],
    });
    expect(isCycleBound(calls(5))).toBe(true);
    expect(isCycleBound({ kind: "turn", turn: 1, cycle: 0 })).toBe(true);
    expect(isCycleBound({ kind: "turn", turn: 1 })).toBe(false);
    expect(isCycleBound({ kind: "count", unit: "turns", count: 1, from: "end" })).toBe(false);
  });

  it("spells masking in the -k DSL", () => {
    expect(parseCompactSpec("t=sres:-5calls")).toEqual({
      ok: true,
      value: {
        reasoning: false,
        summarize: false,
        toolCalls: "strip-responses",
        range: { start: OPEN_START, end: calls(5) },
      },
    });
    expect(spec("r+t=sres:..-5calls")).toEqual({
      keep_first: OPEN_START,
      keep_last: calls(5),
      reasoning: "strip",
      tool_calls: "strip-responses",
    });
    expect(spec("s:..-3cycles").keep_last).toEqual(cycles(3));
    expect(spec("s:2.5..4.37")).toMatchObject({
      keep_first: { kind: "turn", turn: 1, cycle: 4 },
      keep_last: { kind: "turn", turn: 3, cycle: 36 },
    });
    expect(spec("r:3.2").keep_first).toEqual({ kind: "turn", turn: 2, cycle: 1 });
  });

  it("refuses a from-end count at the start of a range and zero positions", () => {
    expect(parseCompactSpec("t:-5calls..")).toEqual({
      ok: false,
      message: "'-5calls' counts from the end, so it can only end a range (..-5calls)",
    });
    expect(parseCompactSpec("s:0.3..").ok).toBe(false);
    expect(parseCompactSpec("s:..3.0")).toEqual({
      ok: false,
      message: "cycles are 1-based; `3.0` is not a valid cycle",
    });
    expect(parseCompactSpec("s:..-5calories").ok).toBe(false);
  });
});

describe("planning observation masking", () => {
  it("strips every result but the last N in a single-turn session", () => {
    const { build, events } = session(12);
    const result = plan(events, [spec("t=sres:-5calls")]);
    // 12 cycles with a call, then the answer: the 5th call from the end is in cycle 7.
    expect(rangesOf(result)).toEqual([{ from: 0, to: 0, toCycle: 6 }]);
    const view = projectConversation(apply(build, events, result));
    const results = eventsOfType(view.events, "tool_call_response").map((event) => event.content);
    const raw = eventsOfType(events, "tool_call_response").map((event) => event.content);
    expect(results.slice(0, 7).every((text) => text.startsWith("[compacted] read_file {"))).toBe(true);
    expect(results.slice(7)).toEqual(raw.slice(7));
  });

  it("cuts at a cycle boundary, so parallel results stay together and at least N stay verbatim", () => {
    const { events } = session(6, 3);
    // Calls per cycle: 3, 3, 3, 3, 3, 3, then the answer. The 5th call from the end is in cycle 4.
    expect(rangesOf(plan(events, [spec("t=sres:-5calls")]))).toEqual([{ from: 0, to: 0, toCycle: 3 }]);
  });

  it("reaches back across turns; the config rule keeps the first turn's user message", () => {
    const build = createEventBuilder();
    const events: ConversationEvent[] = [
      ...agentTurn(build, "q0", [{ calls: 3 }]),
      ...agentTurn(build, "q1", [{ calls: 2 }, { calls: 2 }]),
    ];
    const configRule: CompactionRule = { keep_last: calls(2), tool_calls: "strip-responses" };
    expect(rangesOf(plan(events, [configRule]))).toEqual([{ from: 0, to: 1, fromCycle: 0, toCycle: 0 }]);
    expect(rangesOf(plan(events, [spec("t=sres:-2calls")]))).toEqual([{ from: 0, to: 1, toCycle: 0 }]);
    expect(
      rangesOf(
        plan(events, [
          { ...configRule, keep_first: { kind: "count", unit: "turns", count: 1, from: "start" } },
        ]),
      ),
    ).toEqual([{ from: 1, to: 1, toCycle: 0 }]);
  });

  it("never covers the conversation's last cycle", () => {
    const build = createEventBuilder();
    const events: ConversationEvent[] = agentTurn(build, "q", [{ calls: 1 }, { calls: 1 }], null);
    // The last cycle's call waits for nothing here, but it is the cycle in progress.
    expect(rangesOf(plan(events, [spec("t=sres:-0calls")]))).toEqual([{ from: 0, to: 0, toCycle: 0 }]);
    expect(
      plan(agentTurn(createEventBuilder(), "q", [{ calls: 1 }], null), [spec("t=sres:-0calls")]),
    ).toEqual({
      kind: "nothing-to-compact",
      message: "Nothing to compact.",
      why: [{ kind: "outside", ruleIndex: 0 }],
    });
  });

  it("compacts nothing when the conversation has fewer calls than it keeps", () => {
    expect(plan(session(3).events, [spec("t=sres:-5calls")]).kind).toBe("nothing-to-compact");
  });

  it("counts cycles, and keeps calls or cycles at the start", () => {
    const { events } = session(6);
    expect(rangesOf(plan(events, [spec("r:..-3cycles")]))).toEqual([{ from: 0, to: 0, toCycle: 3 }]);
    const keepFirst: CompactionRule = {
      keep_first: calls(2, "start"),
      keep_last: cycles(1),
      reasoning: "strip",
    };
    expect(rangesOf(plan(events, [keepFirst]))).toEqual([{ from: 0, to: 0, fromCycle: 2, toCycle: 5 }]);
    const cyclesFirst: CompactionRule = { ...keepFirst, keep_first: cycles(4, "start") };
    expect(rangesOf(plan(events, [cyclesFirst]))).toEqual([{ from: 0, to: 0, fromCycle: 4, toCycle: 5 }]);
  });

  it("takes turn.cycle positions on both sides, and refuses a cycle its turn does not have", () => {
    const build = createEventBuilder();
    const events: ConversationEvent[] = [
      ...agentTurn(build, "q0", [{ calls: 1 }]),
      ...agentTurn(build, "q1", [{ calls: 1 }, { calls: 1 }, { calls: 1 }]),
      ...agentTurn(build, "q2", [{ calls: 1 }]),
    ];
    expect(rangesOf(plan(events, [spec("t=o:2.2..2.3")]))).toEqual([
      { from: 1, to: 1, fromCycle: 1, toCycle: 2 },
    ]);
    // Turn 2 has its three tool cycles and the answer: four cycles.
    expect(rangesOf(plan(events, [spec("t=o:1.2..2.4")]))).toEqual([
      { from: 0, to: 1, fromCycle: 1, toCycle: 3 },
    ]);
    // Past a turn's cycles is an error naming how many the turn has, never a silent clamp.
    expect(plan(events, [spec("t=o:1.2..2.99")])).toEqual({
      kind: "invalid",
      ruleIndex: 0,
      message: "turn 2 has 4 cycles; there is no cycle 99",
    });
    expect(plan(events, [spec("t=o:1.9..3.1")])).toMatchObject({
      kind: "invalid",
      message: "turn 1 has 2 cycles; there is no cycle 9",
    });
  });

  it('lets `--keep-last "5 calls"` make the configured rule cycle-precise, and turn flags win their side', () => {
    const { events } = session(10);
    // The built-in rule keeps its first turn whole (its keep_first is set), so a single-turn
    // session needs `--keep-first 0` as well.
    const keepLast = "5 calls";
    expect(plan(events, [DEFAULT_COMPACTION_RULE], { flags: { keepLast } }).kind).toBe("nothing-to-compact");
    const masked = plan(events, [DEFAULT_COMPACTION_RULE], { flags: { keepLast, keepFirst: "0" } });
    expect(rangesOf(masked)).toEqual([{ from: 0, to: 0, toCycle: 4 }]);
    expect(rangesOf(plan(events, [{ tool_calls: "strip" }], { flags: { keepLast } }))).toEqual([
      { from: 0, to: 0, fromCycle: 0, toCycle: 4 },
    ]);
    expect(segmentsOf(masked)[0]).toMatchObject({
      reasoning: "strip",
      toolCalls: { policy: "strip", request: true, response: true },
    });
    const build = createEventBuilder();
    const twoTurns: ConversationEvent[] = [
      ...agentTurn(build, "q0", [{ calls: 4 }]),
      ...agentTurn(build, "q1", [{ calls: 1 }, { calls: 1 }, { calls: 1 }]),
      ...agentTurn(build, "q2", [{ calls: 1 }]),
    ];
    const rule = spec("t=sres:-3calls");
    expect(isPreciseRange(ruleRange(rule))).toBe(true);
    // `--turn 2` sets both ends by turns: the rule's call count no longer decides anything.
    const [byTurn] = applyRange([rule], parseRangeFlags({ turn: "2" }, NOW));
    expect(isPreciseRange(ruleRange(byTurn!))).toBe(false);
    expect(rangesOf(plan(twoTurns, [rule], { flags: { turn: "2" } }))).toEqual([{ from: 1, to: 1 }]);
    // `--from 2` sets only the start.
    expect(rangesOf(plan(twoTurns, [rule], { flags: { from: "2" } }))).toEqual([
      { from: 1, to: 1, toCycle: 0 },
    ]);
  });
});

describe("planning summaries inside a turn", () => {
  it("summarizes the cycles of a single-turn session in place, keeping the user's message", () => {
    const { build, events } = session(10);
    const result = plan(events, [spec("s:-3cycles")]);
    expect(rangesOf(result)).toEqual([{ from: 0, to: 0, fromCycle: 0, toCycle: 7 }]);
    const view = projectConversation(apply(build, events, result));
    expect(eventsOfType(view.events, "chat_request").map((event) => event.content)).toEqual([
      "task",
      "[Summary of earlier steps in this turn]\n\nS0\n\n[Facts of these turns, from their raw events]\n" +
        "Files read: task-0-0.ts, task-1-0.ts, task-2-0.ts, task-3-0.ts, task-4-0.ts, task-5-0.ts, task-6-0.ts, task-7-0.ts",
    ]);
  });

  it("splits a range that crosses turns: the rest of the first, whole turns, the start of the last", () => {
    const build = createEventBuilder();
    const events: ConversationEvent[] = [
      ...agentTurn(build, "q0", [{ calls: 1 }, { calls: 1 }]),
      ...agentTurn(build, "q1", [{ calls: 1 }]),
      ...agentTurn(build, "q2", [{ calls: 1 }]),
      ...agentTurn(build, "q3", [{ calls: 1 }, { calls: 1 }, { calls: 1 }]),
    ];
    expect(rangesOf(plan(events, [spec("s:1.2..4.2")]))).toEqual([
      { from: 0, to: 0, fromCycle: 1, toCycle: 2 },
      { from: 1, to: 2 },
      { from: 3, to: 3, fromCycle: 0, toCycle: 1 },
    ]);
    // The DSL's open start is turn 1's head: whole turns, then the last turn's start.
    expect(rangesOf(plan(events, [spec("s:-2cycles")]))).toEqual([
      { from: 0, to: 2 },
      { from: 3, to: 3, fromCycle: 0, toCycle: 1 },
    ]);
    // Ending at a finished turn's last cycle ends with the turn.
    expect(rangesOf(plan(events, [spec("s:..3.2")]))).toEqual([{ from: 0, to: 2 }]);
  });

  it("grows over a summary it touches: inside a turn to the union, over a whole-turn one to its turns", () => {
    const build = createEventBuilder();
    const events: ConversationEvent[] = [
      ...agentTurn(build, "q0", [{ calls: 1 }, { calls: 1 }]),
      ...agentTurn(
        build,
        "q1",
        Array.from({ length: 8 }, () => ({ calls: 1 })),
      ),
    ];
    const inTurn = [
      ...events,
      cycleCompaction(build, { from: 1, to: 1, fromCycle: 2, toCycle: 4, summary: "x" }),
    ];
    expect(rangesOf(plan(inTurn, [spec("s:2.4..2.7")]))).toEqual([
      { from: 1, to: 1, fromCycle: 2, toCycle: 6 },
    ]);
    expect(rangesOf(plan(inTurn, [spec("s:2.7..2.8")]))).toEqual([
      { from: 1, to: 1, fromCycle: 6, toCycle: 7 },
    ]);
    const whole = [...events, build.compaction({ from: 0, to: 0, summary: "y" })];
    expect(rangesOf(plan(whole, [spec("s:1.2..2.3")]))).toEqual([
      { from: 0, to: 0 },
      { from: 1, to: 1, fromCycle: 0, toCycle: 2 },
    ]);
    // Summaries planned earlier in the same run count too.
    expect(rangesOf(plan(events, [spec("s:2.1..2.3"), spec("s:2.3..2.5")]))).toEqual([
      { from: 1, to: 1, fromCycle: 0, toCycle: 2 },
      { from: 1, to: 1, fromCycle: 0, toCycle: 4 },
    ]);
  });

  it("is a conflict when a supplied summary would split an existing one", () => {
    const build = createEventBuilder();
    const events: ConversationEvent[] = [
      ...agentTurn(
        build,
        "q0",
        Array.from({ length: 8 }, () => ({ calls: 1 })),
      ),
      cycleCompaction(build, { id: "old", from: 0, to: 0, fromCycle: 2, toCycle: 4, summary: "x" }),
    ];
    expect(plan(events, [spec("s:1.4..1.6")], { supplied: true })).toEqual({
      kind: "conflict",
      ruleIndex: 0,
      message:
        "summary of turn 1, cycles 4..6 partially overlaps the existing summary of turn 1, cycles 3..5; " +
        "a supplied summary must cover an existing summary entirely or leave it alone (covering it takes turn 1, cycles 3..6)",
      conflicts: [{ from: 0, to: 0, compactionId: "old" }],
      needed: { from: { turn: 0, cycle: 2 }, to: { turn: 0, cycle: 5 } },
    });
    expect(rangesOf(plan(events, [spec("s:1.2..1.6")], { supplied: true }))).toEqual([
      { from: 0, to: 0, fromCycle: 1, toCycle: 5 },
    ]);
  });

  it("is refused when a supplied text would remove the user message of a turn that goes on", () => {
    const build = createEventBuilder();
    const turns: ConversationEvent[] = [
      ...agentTurn(build, "q0", [{ calls: 1 }, { calls: 1 }]),
      ...agentTurn(build, "q1", [{ calls: 1 }, { calls: 1 }, { calls: 1 }]),
      ...agentTurn(build, "q2", [{ calls: 1 }]),
    ];
    expect(plan(turns, [spec("s:..2.2")], { supplied: true })).toEqual({
      kind: "invalid",
      ruleIndex: 0,
      message:
        "a summary of turns 1..2, turn 2 to cycle 2 would remove the user message of turn 2, which goes " +
        "on after it; end the range at a turn, or start it inside turn 2",
    });
    // A derived summary of the same range is two pieces, each with its own text.
    expect(rangesOf(plan(turns, [spec("s:..2.2")]))).toEqual([
      { from: 0, to: 0 },
      { from: 1, to: 1, fromCycle: 0, toCycle: 1 },
    ]);
    expect(rangesOf(plan(turns, [spec("s:2.1..2.2")], { supplied: true }))).toEqual([
      { from: 1, to: 1, fromCycle: 0, toCycle: 1 },
    ]);
    // From a cycle through a whole later turn: one range for one text (derived: two pieces).
    expect(rangesOf(plan(turns, [spec("s:1.2..2")], { supplied: true }))).toEqual([
      { from: 0, to: 1, fromCycle: 1, toCycle: 3 },
    ]);
    expect(rangesOf(plan(turns, [spec("s:1.2..2")]))).toEqual([
      { from: 0, to: 0, fromCycle: 1, toCycle: 2 },
      { from: 1, to: 1 },
    ]);
  });
});

describe("--from T.C and --to T.C", () => {
  it("start and end a rule at cycles, and conflict with the selectors as turn bounds do", () => {
    const build = createEventBuilder();
    const events: ConversationEvent[] = [
      ...agentTurn(build, "q0", [{ calls: 1 }, { calls: 1 }, { calls: 1 }, { calls: 1 }]),
      ...agentTurn(build, "q1", [{ calls: 1 }]),
    ];
    expect(rangesOf(plan(events, [spec("t=sres")], { flags: { from: "1.2", to: "1.4" } }))).toEqual([
      { from: 0, to: 0, fromCycle: 1, toCycle: 3 },
    ]);
    expect(rangesOf(plan(events, [spec("s")], { flags: { to: "1.4" } }))).toEqual([
      { from: 0, to: 0, fromCycle: 0, toCycle: 3 },
    ]);
    // As for turn bounds, --turn cannot be used with --to.
    expect(() => plan(events, [spec("t=sres")], { flags: { turn: "2", to: "1.4" } })).toThrow(
      "--turn cannot be used with --to",
    );
    expect(parseFlagBound("1.0", "end", NOW)).toEqual({
      ok: false,
      message: "cycles are 1-based; `1.0` is not a valid cycle",
    });
    expect(parseFlagBound("0.3", "start", NOW)).toEqual({
      ok: false,
      message: "turn numbers are 1-based; `0.3` is not a valid turn",
    });
  });
});

describe("events of cycle-precise segments", () => {
  it("nest the policies in `cycles`, validate, and project what was planned", () => {
    const { build, events } = session(8);
    const result = plan(events, [spec("r+t=sres:-3calls")], { note: "mask" });
    const [segment] = segmentsOf(result);
    const event = buildCompactionEvent(segment!, { id: "m1", ts: build.now(), source: "user", note: "mask" });
    expect(event).toEqual({
      type: "compaction",
      id: "m1",
      ts: build.now(),
      from_turn: 0,
      to_turn: 0,
      cycles: { to: 4, reasoning: "strip", tool_calls: { policy: "strip", request: false, response: true } },
      source: "user",
      note: "mask",
    });
    expect(parseEvent(JSON.parse(JSON.stringify(event)))).toEqual({ ok: true, event });
    const summary = segmentsOf(plan(events, [spec("s:1.2..1.3")]))[0]!;
    const summarized = buildCompactionEvent(summary, {
      id: "s1",
      ts: build.now(),
      source: "assistant",
      summary: { summary: "text", source: "supplied", author: "assistant" },
      deferredUntilTurn: 1,
    });
    expect(summarized.cycles).toEqual({
      from: 1,
      to: 2,
      summary: {
        summary: "text",
        source: "supplied",
        author: "assistant",
        facts: "[Facts of these turns, from their raw events]\nFiles read: task-1-0.ts, task-2-0.ts",
      },
    });
    expect(summarized.deferred_until_turn).toBe(1);
    expect(() => buildCompactionEvent(summary, { id: "s2", ts: build.now(), source: "user" })).toThrow(
      /needs its text/,
    );
  });
});
