/**
 * Active compactions, resets and undo: jp's stream_tests.rs
 * compaction tests (reference §10.5) in cxc's append-only form, plus the `--reset=N` tests of
 * compact_tests.rs.
 */
import { describe, expect, it } from "vitest";
import {
  activeCompactions,
  buildResetEvent,
  describeReset,
  parseCompactionIndex,
  planReset,
  planUndoReset,
} from "../../src/core/conversation/compactions.js";
import { type ConversationEvent, parseEvent, serializeEvent } from "../../src/core/conversation/events.js";
import { buildCompactionEvent } from "../../src/compaction/core/event.js";
import { countTurns } from "../../src/core/conversation/turns.js";
import { createEventBuilder } from "../helpers/builders.js";

function threeCompactions() {
  const build = createEventBuilder();
  const compactions = [
    build.compaction({ from: 0, to: 1, reasoning: true }),
    build.compaction({ from: 2, to: 4, reasoning: true }),
    build.compaction({ from: 4, to: 5, reasoning: true }),
  ];
  return { build, compactions, events: [...build.turns(6), ...compactions] as ConversationEvent[] };
}

function ranges(events: readonly ConversationEvent[]): [number, number][] {
  return activeCompactions(events).map(({ compaction }) => [compaction.from_turn, compaction.to_turn]);
}

describe("activeCompactions", () => {
  it("lists compactions in stream order, numbered from 1 (test_compactions_accessor)", () => {
    const { events, compactions } = threeCompactions();
    expect(activeCompactions(events).map((entry) => [entry.number, entry.compaction.id])).toEqual(
      compactions.map((compaction, index) => [index + 1, compaction.id]),
    );
  });

  it("does not count compactions as events or turns (test_compaction_not_counted_by_len)", () => {
    const { build } = threeCompactions();
    expect(countTurns([build.compaction({ from: 0, to: 0 })])).toBe(0);
  });

  it("skips retired compactions and renumbers the rest", () => {
    const { build, events, compactions } = threeCompactions();
    const withReset = [...events, build.reset([compactions[1]!.id])];
    expect(activeCompactions(withReset).map((entry) => [entry.number, entry.compaction.id])).toEqual([
      [1, compactions[0]!.id],
      [2, compactions[2]!.id],
    ]);
  });

  it("ignores a reset that is itself retired, and a reset of that reset restores it", () => {
    const { build, events, compactions } = threeCompactions();
    const first = build.reset([compactions[0]!.id]);
    const undo = build.reset([first.id]);
    expect(activeCompactions([...events, first, undo])).toHaveLength(3);
    const redo = build.reset([undo.id]);
    expect(activeCompactions([...events, first, undo, redo])).toHaveLength(2);
  });
});

describe("planReset", () => {
  it("retires every active compaction", () => {
    const { events, compactions } = threeCompactions();
    const plan = planReset(events);
    expect(plan).toEqual({ ok: true, retires: compactions.map((c) => c.id), removed: compactions });
    if (plan.ok) expect(describeReset(plan.removed, { dryRun: false })).toBe("Removed 3 compaction events.");
    if (plan.ok)
      expect(describeReset(plan.removed, { dryRun: true })).toBe("Would remove 3 compaction events.");
  });

  it("removes the N-th one, leaving the others (test_remove_compaction_by_index)", () => {
    const { build, events } = threeCompactions();
    const plan = planReset(events, { index: 2 });
    if (!plan.ok) throw new Error(plan.message);
    const after = [...events, buildResetEvent(plan.retires, { id: "r1", ts: build.now() })];
    expect(ranges(after)).toEqual([
      [0, 1],
      [4, 5],
    ]);
  });

  it("addresses compactions in stream order (reset_index_addresses_compactions_in_stream_order)", () => {
    const build = createEventBuilder();
    const events = [
      ...build.turns(6),
      build.compaction({ from: 0, to: 1, reasoning: true }),
      build.compaction({ from: 2, to: 4, reasoning: true }),
    ];
    for (const [index, label] of [
      [1, "turns 1..2"],
      [2, "turns 3..5"],
    ] as const) {
      const plan = planReset(events, { index });
      if (!plan.ok) throw new Error(plan.message);
      expect(describeReset(plan.removed, { index, dryRun: false })).toBe(
        `Removed compaction ${index} (${label}).`,
      );
    }
    expect(planReset(events, { index: 3 })).toEqual({
      ok: false,
      kind: "out-of-range",
      message: "compaction 3 out of range (conversation has 2 compaction events)",
    });
    const plan = planReset(events, { index: 1 });
    if (plan.ok)
      expect(describeReset(plan.removed, { index: 1, dryRun: true })).toBe(
        "Would remove compaction 1 (turns 1..2).",
      );
  });

  it("says there is nothing to remove (test_remove_compaction_out_of_range_is_a_no_op)", () => {
    const build = createEventBuilder();
    expect(planReset(build.turns(3))).toEqual({
      ok: false,
      kind: "nothing-to-remove",
      message: "No compaction events to remove.",
    });
  });

  it("parses --reset=N with jp's texts (reset_takes_an_optional_compaction_index)", () => {
    expect(parseCompactionIndex("2")).toEqual({ ok: true, index: 2 });
    expect(parseCompactionIndex("0")).toEqual({
      ok: false,
      message: "compaction indices are 1-based; `0` is not a valid index",
    });
    expect(parseCompactionIndex("x")).toEqual({ ok: false, message: "invalid compaction index 'x'" });
  });
});

describe("planUndoReset", () => {
  it("retires the latest reset in force and reports what comes back", () => {
    const { build, events, compactions } = threeCompactions();
    const first = build.reset([compactions[0]!.id]);
    const second = build.reset([compactions[1]!.id, compactions[2]!.id]);
    const stream = [...events, first, second];
    const plan = planUndoReset(stream);
    expect(plan).toMatchObject({
      ok: true,
      retires: [second.id],
      reset: second,
      restored: [compactions[1], compactions[2]],
    });
    const undone = [...stream, buildResetEvent([second.id], { id: "u1", ts: build.now() })];
    expect(ranges(undone)).toEqual([
      [2, 4],
      [4, 5],
    ]);
    // The undo is itself the latest reset in force, so undoing again re-applies the reset (a redo).
    expect(planUndoReset(undone)).toMatchObject({ ok: true, retires: ["u1"], restored: [] });
  });

  it("fails when no reset is in force", () => {
    const { events } = threeCompactions();
    expect(planUndoReset(events)).toEqual({
      ok: false,
      kind: "nothing-to-undo",
      message: "No compaction reset to undo.",
    });
  });
});

describe("compaction events on disk (compaction_tests.rs round trips)", () => {
  const segment = { ruleIndex: 0, from: 0, to: 5, requested: { from: 0, to: 5 } };
  const roundTrip = (event: ConversationEvent) => {
    const parsed = parseEvent(JSON.parse(JSON.stringify(serializeEvent(event))));
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.event;
  };

  it("round-trips a mechanical compaction and omits unset policies (roundtrip_mechanical_compaction, none_policies_omitted_from_json)", () => {
    const event = buildCompactionEvent(
      { ...segment, reasoning: "strip", toolCalls: { policy: "strip", request: false, response: true } },
      { id: "c1", ts: "2026-01-01T00:00:00Z", source: "user" },
    );
    const json = JSON.parse(JSON.stringify(event));
    expect(json.reasoning).toBe("strip");
    expect(json.tool_calls).toEqual({ policy: "strip", request: false, response: true });
    expect("summary" in json).toBe(false);
    expect(roundTrip(event)).toEqual(event);
  });

  it("round-trips a summary compaction and an omit policy (roundtrip_summary_compaction, tool_call_policy_omit_roundtrip)", () => {
    const event = buildCompactionEvent(
      { ...segment, summary: {}, toolCalls: { policy: "omit" } },
      {
        id: "c2",
        ts: "2026-01-01T00:00:00Z",
        source: "assistant",
        note: "n",
        summary: { summary: "text", source: "supplied", author: "assistant" },
      },
    );
    expect(roundTrip(event)).toEqual(event);
    expect(JSON.parse(JSON.stringify(event)).tool_calls).toEqual({ policy: "omit" });
  });
});
