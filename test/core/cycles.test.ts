/** Cycles inside turns and the positions that name them (docs/decisions/006-tool-cycle-bounds.md). */
import { describe, expect, it } from "vitest";
import {
  assignCycles,
  compactionPolicies,
  compactionSpan,
  describeCycles,
  flatIndexOf,
  HEAD,
  layoutCycles,
  positionOfCycle,
  selectRange,
  TURN_END,
} from "../../src/core/conversation/cycles.js";
import { groupTurns } from "../../src/core/conversation/turns.js";
import { createEventBuilder } from "../helpers/builders.js";
import { agentTurn, cycleCompaction } from "../helpers/cycles.js";

describe("assignCycles", () => {
  it("puts the turn_start and the request in the head and opens a cycle per model response", () => {
    const build = createEventBuilder();
    const events = agentTurn(build, "q", [
      { reasoning: "r", calls: 1 },
      { message: "m", calls: 1 },
    ]);
    // turn_start, request | reasoning, call, result | message, call, result | answer
    expect(assignCycles(events)).toEqual([HEAD, HEAD, 0, 0, 0, 1, 1, 1, 2]);
  });

  it("keeps parallel calls and their results in one cycle", () => {
    const build = createEventBuilder();
    const events = agentTurn(build, "q", [{ calls: 3 }, { calls: 2 }], null);
    expect(assignCycles(events)).toEqual([HEAD, HEAD, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1]);
  });

  it("gives a result standing after later cycles to the cycle of its call", () => {
    const build = createEventBuilder();
    const early = build.toolRequest({ name: "slow" });
    const events = [
      build.turnStart(),
      build.request("q"),
      early,
      build.message("meanwhile"),
      build.toolResponse("unrelated", "x"),
      build.message("next round"),
      build.toolResponse(early.call_id, "late"),
    ];
    expect(assignCycles(events)).toEqual([HEAD, HEAD, 0, 0, 0, 1, 0]);
  });

  it("gives a result to the latest call with its id when ids repeat (jp's `fs_modify_file_0`)", () => {
    const build = createEventBuilder();
    const events = [
      build.turnStart(),
      build.request("q"),
      build.toolRequest({ name: "fs_modify_file", callId: "fs_modify_file_0" }),
      build.toolResponse("fs_modify_file_0", "first"),
      build.toolRequest({ name: "fs_modify_file", callId: "fs_modify_file_0" }),
      build.toolResponse("fs_modify_file_0", "second"),
    ];
    expect(assignCycles(events)).toEqual([HEAD, HEAD, 0, 0, 1, 1]);
  });

  it("counts a request inside the turn as user-side content of the cycle before it", () => {
    const build = createEventBuilder();
    const events = [
      build.turnStart(),
      build.request("q"),
      build.message("first try"),
      build.request("no, the other file"),
      build.message("second try"),
    ];
    expect(assignCycles(events)).toEqual([HEAD, HEAD, 0, 0, 1]);
  });

  it("starts cycle 0 at once when a turn opens with a response", () => {
    const build = createEventBuilder();
    expect(assignCycles([build.message("hello"), build.request("hi")])).toEqual([0, 0]);
  });
});

describe("layoutCycles and describeCycles", () => {
  it("lays out every turn of a stream, global entries in the head and head-only turns with none", () => {
    const build = createEventBuilder();
    const events = [
      ...agentTurn(build, "q0", [{ calls: 1 }]),
      build.configDelta({ x: 1 }),
      ...agentTurn(build, "q1", [{ calls: 2 }, { calls: 1 }, { message: "one more", calls: 1 }]),
      build.turnStart(),
      build.request("pending"),
    ];
    const layout = layoutCycles(events);
    expect(layout.cycleCounts).toEqual([2, 4, 0]);
    const configPosition = events.findIndex((event) => event.type === "config_delta");
    expect(layout.cycles[configPosition]).toBe(HEAD);
    const facts = describeCycles(events, layout);
    expect(facts.firstCycle).toEqual([0, 2, 6]);
    expect(facts.turnOf).toEqual([0, 0, 1, 1, 1, 1]);
    expect(facts.calls).toEqual([1, 0, 2, 1, 1, 0]);
    expect(positionOfCycle(facts, 4)).toEqual({ turn: 1, cycle: 2 });
    expect(flatIndexOf(facts, { turn: 1, cycle: 2 })).toBe(4);
    expect(flatIndexOf(facts, { turn: 1, cycle: 99 })).toBe(5);
  });
});

describe("compactionSpan and compactionPolicies", () => {
  it("spans whole turns for a plain compaction and reads its top-level policies", () => {
    const build = createEventBuilder();
    const plain = build.compaction({ from: 1, to: 3, reasoning: true });
    expect(compactionSpan(plain)).toEqual({
      from: { turn: 1, cycle: HEAD },
      to: { turn: 3, cycle: TURN_END },
    });
    expect(compactionPolicies(plain).reasoning).toBe("strip");
  });

  it("spans the cycle positions of a cycle-precise compaction and reads the policies inside `cycles`", () => {
    const build = createEventBuilder();
    const precise = cycleCompaction(build, { from: 0, to: 2, toCycle: 5, tools: "strip-responses" });
    expect(compactionSpan(precise)).toEqual({ from: { turn: 0, cycle: HEAD }, to: { turn: 2, cycle: 5 } });
    expect(compactionPolicies(precise).tool_calls).toEqual({
      policy: "strip",
      request: false,
      response: true,
    });
    const inside = cycleCompaction(build, { from: 2, to: 2, fromCycle: 1, toCycle: 3, summary: "s" });
    expect(compactionSpan(inside).from).toEqual({ turn: 2, cycle: 1 });
  });
});

describe("selectRange", () => {
  it("keeps whole turns, and of a turn at a cycle-bounded end only the covered cycles", () => {
    const build = createEventBuilder();
    const events = [
      ...agentTurn(build, "q0", [{ calls: 1 }]),
      ...agentTurn(build, "q1", [{ calls: 1 }, { calls: 1 }, { calls: 1 }]),
    ];
    const turns = groupTurns(events);
    const inside = selectRange(turns, { from: 1, to: 1, fromCycle: 1, toCycle: 2 });
    expect(inside).toHaveLength(1);
    expect(inside[0]!.events.map((event) => event.type)).toEqual([
      "tool_call_request",
      "tool_call_response",
      "tool_call_request",
      "tool_call_response",
    ]);
    const across = selectRange(turns, { from: 0, to: 1, toCycle: 0 });
    expect(across[0]).toBe(turns[0]);
    // The end turn's head (its request) is inside a range that starts in an earlier turn.
    expect(across[1]!.events.map((event) => event.type)).toEqual([
      "turn_start",
      "chat_request",
      "tool_call_request",
      "tool_call_response",
    ]);
    expect(selectRange(turns, { from: 0, to: 1 })).toEqual(turns);
  });
});
