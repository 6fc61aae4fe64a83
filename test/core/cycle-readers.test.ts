/**
 * Everything that reads a compaction's range, with cycle-precise ranges
 * (docs/decisions/006-tool-cycle-bounds.md): labels, the timeline, reset messages, token counts,
 * the digest and the summary check, forks and jp export.
 */
import { describe, expect, it } from "vitest";
import { describeReset } from "../../src/core/conversation/compactions.js";
import { HEAD, TURN_END } from "../../src/core/conversation/cycles.js";
import { digestTurns } from "../../src/compaction/core/summary/digest.js";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import { copyEventsForFork } from "../../src/core/conversation/fork.js";
import { exportJpConversation } from "../../src/core/interop/jp-export.js";
import { eventProblem, validateEvent } from "../../src/core/interop/jp.js";
import {
  describeCompaction,
  describeCompactionRanges,
  describeRange,
  describeSizedRange,
  describeSpan,
  rangeSlug,
} from "../../src/core/present/labels.js";
import type { CompactionSegment } from "../../src/compaction/core/plan.js";
import { inTurnSummaryContent, projectConversation } from "../../src/core/conversation/projection.js";
import { DEFAULT_KEEPING, factsBlock } from "../../src/compaction/core/keeping.js";
import { summaryTurns } from "../../src/compaction/core/summary/summarizer.js";
import {
  existingTimelineSegments,
  formatTimeline,
  plannedTimelineSegment,
} from "../../src/compaction/core/timeline.js";
import { countTurnTokens } from "../../src/core/conversation/tokens.js";
import { groupTurns } from "../../src/core/conversation/turns.js";
import { createEventBuilder } from "../helpers/builders.js";
import { agentTurn, cycleCompaction } from "../helpers/cycles.js";

describe("describeSpan and describeCompaction", () => {
  it("names whole turns as before and cycle ranges by turn and cycle, 1-based", () => {
    const at = (turn: number, cycle: number) => ({ turn, cycle });
    expect(describeSpan({ from: at(3, HEAD), to: at(3, TURN_END) })).toBe("turns 4..4");
    expect(describeSpan({ from: at(1, HEAD), to: at(7, TURN_END) })).toBe("turns 2..8");
    expect(describeSpan({ from: at(3, 0), to: at(3, 36) })).toBe("turn 4, cycles 1..37");
    expect(describeSpan({ from: at(3, HEAD), to: at(3, 36) })).toBe("turn 4, cycles 1..37");
    expect(describeSpan({ from: at(3, 4), to: at(3, 4) })).toBe("turn 4, cycle 5");
    expect(describeSpan({ from: at(3, 4), to: at(3, TURN_END) })).toBe("turn 4, from cycle 5");
    expect(describeSpan({ from: at(0, HEAD), to: at(3, 36) })).toBe("turns 1..4, turn 4 to cycle 37");
    expect(describeSpan({ from: at(1, 4), to: at(3, TURN_END) })).toBe("turns 2..4, turn 2 from cycle 5");
    expect(describeSpan({ from: at(1, 4), to: at(3, 36) })).toBe(
      "turns 2..4, turn 2 from cycle 5, turn 4 to cycle 37",
    );
  });

  it("labels a cycle-precise compaction with its range, its size and its policies", () => {
    const build = createEventBuilder();
    const masked = cycleCompaction(build, { from: 3, to: 3, toCycle: 36, tools: "strip-responses" });
    expect(describeCompaction(masked)).toBe("turn 4, cycles 1..37 (37 cycles, tool responses)");
    const across = cycleCompaction(build, { from: 0, to: 3, toCycle: 36, reasoning: true, tools: "strip" });
    expect(describeCompaction(across)).toBe("turns 1..4, turn 4 to cycle 37 (4 turns, reasoning + tools)");
    const summary = cycleCompaction(build, { from: 2, to: 2, fromCycle: 0, toCycle: 0, summary: "s" });
    expect(describeCompaction(summary)).toBe("turn 3, cycle 1 (1 cycle, summary)");
    expect(describeCompaction(build.compaction({ from: 1, to: 4, reasoning: true }))).toBe(
      "turns 2..5 (4 total, reasoning)",
    );
  });

  it("names the removed compaction after a reset", () => {
    const build = createEventBuilder();
    const masked = cycleCompaction(build, { from: 3, to: 3, toCycle: 36, tools: "strip-responses" });
    expect(describeReset([masked], { index: 2, dryRun: false })).toBe(
      "Removed compaction 2 (turn 4, cycles 1..37).",
    );
    expect(describeReset([build.compaction({ from: 0, to: 1 })], { index: 1, dryRun: true })).toBe(
      "Would remove compaction 1 (turns 1..2).",
    );
  });
});

describe("ranges of segments and shapes", () => {
  it("say jp's `turns A..B` for whole turns and the cycle range otherwise", () => {
    expect(describeRange({ from: 2, to: 2 })).toBe("turns 3..3");
    expect(describeRange({ from: 3, to: 3, fromCycle: 0, toCycle: 36 })).toBe("turn 4, cycles 1..37");
    expect(describeSizedRange({ from: 1, to: 7 }, "tools")).toBe("turns 2..8 (7 total, tools)");
    expect(describeSizedRange({ from: 3, to: 3, toCycle: 36 }, "summary")).toBe(
      "turn 4, cycles 1..37 (37 cycles, summary)",
    );
    expect(rangeSlug({ from: 2, to: 5 })).toBe("turns-3-6");
    expect(rangeSlug({ from: 3, to: 3, fromCycle: 0, toCycle: 36 })).toBe("turn-4-cycles-1-37");
  });

  it("list several compactions in one phrase", () => {
    const build = createEventBuilder();
    const whole = [build.compaction({ from: 0, to: 2 }), build.compaction({ from: 4, to: 5 })];
    expect(describeCompactionRanges(whole)).toBe("turns 1..3, 5..6");
    const mixed = [
      whole[0]!,
      cycleCompaction(build, { from: 3, to: 3, fromCycle: 0, toCycle: 5, tools: "strip" }),
    ];
    expect(describeCompactionRanges(mixed)).toBe("turns 1..3; turn 4, cycles 1..6");
  });
});

describe("what a model summarizer reads for a range inside a turn", () => {
  it("is the turn's user message, then only the covered cycles", () => {
    const build = createEventBuilder();
    const events = agentTurn(build, "fix it", [{ calls: 1 }, { calls: 1 }, { calls: 1 }, { calls: 1 }]);
    const turns = groupTurns(events);
    const shown = summaryTurns(turns, { from: 0, to: 0, fromCycle: 1, toCycle: 2 });
    expect(shown.inTurn).toBe(true);
    expect(shown.turns).toHaveLength(1);
    const types = shown.turns[0]!.events.map((event) => event.type);
    expect(types).toEqual([
      "turn_start",
      "chat_request",
      "tool_call_request",
      "tool_call_response",
      "tool_call_request",
      "tool_call_response",
    ]);
    const paths = shown.turns[0]!.events.flatMap((event) =>
      event.type === "tool_call_request" ? [event.arguments.path] : [],
    );
    expect(paths).toEqual(["fix-it-1-0.ts", "fix-it-2-0.ts"]);
    const whole = summaryTurns(turns, { from: 0, to: 0 });
    expect(whole).toEqual({ turns, inTurn: false });
  });
});

describe("validating a cycle-precise compaction", () => {
  it("refuses a range inside one turn that runs backwards", () => {
    const build = createEventBuilder();
    const backwards = cycleCompaction(build, { from: 2, to: 2, fromCycle: 5, toCycle: 3, tools: "strip" });
    expect(eventProblem(backwards)).toBe(
      "cycles.from 5 is after cycles.to 3 in turn 2 (a range runs forwards)",
    );
    const { type: _type, ...fields } = backwards;
    expect(validateEvent({ type: "compaction", ...fields }, "event 7")).toEqual({
      ok: false,
      message: "event 7: cycles.from 5 is after cycles.to 3 in turn 2 (a range runs forwards)",
    });
    const across = cycleCompaction(build, { from: 1, to: 2, fromCycle: 5, toCycle: 3, tools: "strip" });
    expect(eventProblem(across)).toBeUndefined();
    const mixed = { ...across, summary: { summary: "x", source: "derived" as const } };
    expect(validateEvent(mixed, "event 8")).toMatchObject({ ok: false });
  });
});

describe("the timeline with cycle ranges", () => {
  it("names the kept rest of a turn a compaction ends inside", () => {
    const build = createEventBuilder();
    const events: ConversationEvent[] = [
      ...agentTurn(build, "q0", [{ calls: 1 }]),
      ...agentTurn(build, "q1", [{ calls: 1 }, { calls: 1 }, { calls: 1 }]),
      cycleCompaction(build, { from: 0, to: 1, toCycle: 1, tools: "strip-responses" }),
    ];
    expect(formatTimeline(existingTimelineSegments(events), { turnCount: 2, dryRun: false })).toEqual([
      "Compacted turns 1..2, turn 2 to cycle 2 (2 turns, already compacted).",
      "Kept turn 2, from cycle 3.",
    ]);
  });

  it("prints planned cycle segments between kept turns and cycles", () => {
    const segment: CompactionSegment = {
      ruleIndex: 0,
      from: 2,
      to: 2,
      fromCycle: 3,
      toCycle: 9,
      requested: { from: 2, to: 2 },
      summary: {},
    };
    expect(
      formatTimeline([plannedTimelineSegment(segment, "summary")], { turnCount: 4, dryRun: true }),
    ).toEqual([
      "Would have kept turns 1..3, turn 3 to cycle 3.",
      "Would have compacted turn 3, cycles 4..10 (7 cycles, summary).",
      "Would have kept turns 3..4, turn 3 from cycle 11.",
    ]);
    // Knowing the turn has 10 cycles, the gap after it starts at the next turn.
    expect(
      formatTimeline([plannedTimelineSegment(segment)], {
        turnCount: 4,
        dryRun: false,
        cycleCounts: [1, 1, 10, 2],
      }),
    ).toEqual([
      "Kept turns 1..3, turn 3 to cycle 3.",
      "Compacted turn 3, cycles 4..10 (7 cycles).",
      "Kept turn 4.",
    ]);
  });

  it("leaves out a gap that is only the user's message before a summary from cycle 1", () => {
    const segment: CompactionSegment = {
      ruleIndex: 0,
      from: 0,
      to: 0,
      fromCycle: 0,
      toCycle: 4,
      requested: { from: 0, to: 0 },
    };
    expect(formatTimeline([plannedTimelineSegment(segment)], { turnCount: 1, dryRun: false })).toEqual([
      "Compacted turn 1, cycles 1..5 (5 cycles).",
      "Kept turn 1, from cycle 6.",
    ]);
  });
});

describe("token counts, the digest and the summary check over cycle ranges", () => {
  it("counts a summary standing inside a turn as summary", () => {
    const build = createEventBuilder();
    const events = [
      ...agentTurn(build, "q", [{ calls: 1 }, { calls: 1 }]),
      cycleCompaction(build, { from: 0, to: 0, fromCycle: 0, toCycle: 0, summary: "read one file" }),
    ];
    const [turn] = projectConversation(events).turns;
    const counted = countTurnTokens({ index: 0, events: turn!.events }, (text) => text.length);
    expect(counted.byKind.summary).toBe(inTurnSummaryContent("read one file").length);
    expect(counted.byKind.user).toBe(1);
  });

  it("digests and lists the facts of only the cycles of the range, titled by the range", () => {
    const build = createEventBuilder();
    const events = agentTurn(build, "please fix src/parser.ts", [
      { calls: [{ name: "read_file", arguments: { path: "src/lexer.ts" }, result: "lexer" }] },
      { calls: [{ name: "read_file", arguments: { path: "src/parser.ts" }, result: "parser" }] },
      { calls: [{ name: "edit_file", arguments: { path: "src/ast.ts" }, result: "ok" }] },
    ]);
    const turns = groupTurns(events);
    const range = { from: 0, to: 0, fromCycle: 1, toCycle: 1 };
    const digest = digestTurns(turns, range);
    expect(digest.split("\n")[0]).toBe("## Digest of turn 1, cycle 2 (builtin/digest)");
    expect(digest).toContain("src/parser.ts");
    expect(digest).not.toContain("src/lexer.ts");
    expect(digest).not.toContain("src/ast.ts");
    // The user's request stays in the view, so the digest of its cycles does not repeat it.
    expect(digest).not.toContain("please fix");
    // The facts block after its summary: the files of those cycles only.
    expect(factsBlock(turns, range, DEFAULT_KEEPING)).toBe(
      "[Facts of these turns, from their raw events]\nFiles read: src/parser.ts",
    );
    expect(digestTurns(turns, { from: 0, to: 0 })).toContain("src/lexer.ts");
  });
});

describe("forks and jp export of cycle-precise compactions", () => {
  it("renumbers a cycle-precise compaction by its turns in a fork, cycles unchanged", () => {
    const build = createEventBuilder();
    const events: ConversationEvent[] = [
      ...agentTurn(build, "q0", [{ calls: 1 }]),
      ...agentTurn(build, "q1", [{ calls: 1 }, { calls: 1 }]),
      cycleCompaction(build, { id: "m", from: 1, to: 1, fromCycle: 0, toCycle: 1, tools: "strip-responses" }),
    ];
    const forked = copyEventsForFork(events, { start: 1, end: 2 }, (id) => `f-${id}`).events;
    const copied = forked.find((event) => event.type === "compaction");
    expect(copied).toMatchObject({ id: "f-m", from_turn: 0, to_turn: 0, cycles: { from: 0, to: 1 } });
    const original = projectConversation(events).events.filter(
      (event) => event.type === "tool_call_response",
    );
    const fork = projectConversation(forked).events.filter((event) => event.type === "tool_call_response");
    expect(fork.map((event) => event.type === "tool_call_response" && event.content)).toEqual(
      original.slice(1).map((event) => event.type === "tool_call_response" && event.content),
    );
  });

  it("writes turn-aligned ones as jp's whole-turn compactions and leaves the others out, listed", () => {
    const build = createEventBuilder();
    const events: ConversationEvent[] = [
      ...agentTurn(build, "q0", [{ calls: 1 }]),
      ...agentTurn(build, "q1", [{ calls: 1 }]),
      ...agentTurn(build, "q2", [{ calls: 1 }]),
      build.compaction({ from: 0, to: 0, reasoning: true }),
      cycleCompaction(build, { id: "partial", from: 1, to: 1, toCycle: 0, tools: "strip-responses" }),
      // Turns 1..2 to the last cycle of turn 2: whole turns after all.
      cycleCompaction(build, { id: "aligned", from: 0, to: 1, toCycle: 1, tools: "strip" }),
      // From cycle 1 (0-based 0) with a mechanical policy: as good as from the turn's start.
      cycleCompaction(build, { id: "mechanical", from: 2, to: 2, fromCycle: 0, toCycle: 1, reasoning: true }),
      // A summary from cycle 1 keeps the user's message: jp would drop it, so it stays out.
      cycleCompaction(build, { id: "summary", from: 2, to: 2, fromCycle: 0, toCycle: 1, summary: "s" }),
    ];
    const exported = exportJpConversation({ createdAt: "2026-01-01T00:00:00Z", meta: {}, events });
    if (!exported.ok) throw new Error(exported.message);
    const compactions = exported.value.events.filter((entry) => entry.type === "compaction");
    const at = expect.any(String);
    expect(compactions).toEqual([
      { type: "compaction", timestamp: at, from_turn: 0, to_turn: 0, reasoning: "strip" },
      {
        type: "compaction",
        timestamp: at,
        from_turn: 0,
        to_turn: 1,
        tool_calls: { policy: "strip", request: true, response: true },
      },
      { type: "compaction", timestamp: at, from_turn: 2, to_turn: 2, reasoning: "strip" },
    ]);
    expect(exported.value.leftOut.map((compaction) => compaction.id)).toEqual(["partial", "summary"]);
  });
});
