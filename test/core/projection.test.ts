/**
 * Projection unit tests: jp's projection_tests.rs (reference §10.2) ported, plus cxc's additions
 * (origins with compaction ids, deferred and retired compactions, synthetic ids).
 */
import { describe, expect, it } from "vitest";
import type {
  ChatResponse,
  ConversationEvent,
  ToolCallRequest,
  ToolCallResponse,
} from "../../src/core/conversation/events.js";
import { projectConversation, SUMMARY_REQUEST_TEXT } from "../../src/core/conversation/projection.js";
import { assignTurnIndices, countTurns } from "../../src/core/conversation/turns.js";
import { createEventBuilder, type EventBuilder, eventsOfType, visibleEvents } from "../helpers/builders.js";

/** Two turns, each: turn_start, request, reasoning, tool pair, message (5 visible-ish events). */
function twoTurnStream(build: EventBuilder): ConversationEvent[] {
  return [
    ...build.turn("q0", { reasoning: "r0", tools: [{ name: "fs_read_file", arguments: { path: "a.rs" } }] }),
    ...build.turn("q1", {
      reasoning: "r1",
      tools: [{ name: "cargo_test", result: "failed", isError: true }],
    }),
  ];
}

function messageTurns(build: EventBuilder, count: number): ConversationEvent[] {
  return build.turns(count);
}

function reasoningTexts(events: readonly ConversationEvent[]): string[] {
  return eventsOfType(events, "chat_response").flatMap((event) => (event.reasoning ? [event.reasoning] : []));
}

function messageTexts(events: readonly ConversationEvent[]): string[] {
  return eventsOfType(events, "chat_response").flatMap((event) => (event.message ? [event.message] : []));
}

describe("projection without compactions", () => {
  it("leaves the events unchanged (no_compaction_is_noop)", () => {
    const events = twoTurnStream(createEventBuilder());
    const view = projectConversation(events);
    expect(view.events).toEqual(events);
  });

  it("reports kept origins (no_compaction_returns_kept_origins)", () => {
    const view = projectConversation(twoTurnStream(createEventBuilder()));
    expect(view.turns.map((turn) => turn.origin)).toEqual([
      { kind: "kept", turn: 0 },
      { kind: "kept", turn: 1 },
    ]);
  });

  it("returns an empty view for an empty stream with a compaction (empty_stream_with_compaction)", () => {
    const build = createEventBuilder();
    const view = projectConversation([build.compaction({ from: 0, to: 3, summary: "nothing" })]);
    expect(view.events).toEqual([]);
    expect(view.turns).toEqual([]);
  });
});

describe("projection origins", () => {
  it("keeps raw turn numbers around a summary (summary_origins_preserve_raw_turn_numbers)", () => {
    const build = createEventBuilder();
    const events = [
      ...messageTurns(build, 6),
      build.compaction({ id: "c1", from: 1, to: 4, summary: "middle" }),
    ];
    const view = projectConversation(events);
    expect(view.turns.map((turn) => turn.origin)).toEqual([
      { kind: "kept", turn: 0 },
      { kind: "summary", from: 1, to: 4, compactionId: "c1" },
      { kind: "kept", turn: 5 },
    ]);
    expect(
      visibleEvents(view.events).map(
        (event) => (event as { content?: string }).content ?? messageTexts([event])[0],
      ),
    ).toEqual(["q0", "a:q0", SUMMARY_REQUEST_TEXT, "middle", "q5", "a:q5"]);
  });

  it("keeps one origin per turn under a mechanical policy (mechanical_compaction_keeps_one_to_one_origins)", () => {
    const build = createEventBuilder();
    const events = [...twoTurnStream(build), build.compaction({ from: 0, to: 1, reasoning: true })];
    const view = projectConversation(events);
    expect(view.turns.map((turn) => turn.origin)).toEqual([
      { kind: "kept", turn: 0 },
      { kind: "kept", turn: 1 },
    ]);
  });

  it("reports the actual runs of a nested summary (contained_summary_origins_reflect_actual_runs)", () => {
    const build = createEventBuilder();
    const events = [
      ...messageTurns(build, 4),
      build.compaction({ id: "outer", from: 0, to: 3, summary: "OUTER" }),
      build.compaction({ id: "inner", from: 1, to: 2, summary: "INNER" }),
    ];
    const view = projectConversation(events);
    expect(view.turns.map((turn) => turn.origin)).toEqual([
      { kind: "summary", from: 0, to: 0, compactionId: "outer" },
      { kind: "summary", from: 1, to: 2, compactionId: "inner" },
      { kind: "summary", from: 3, to: 3, compactionId: "outer" },
    ]);
  });

  it("gives synthetic events deterministic ids and the timestamp of the first replaced event", () => {
    const build = createEventBuilder();
    const events = [...messageTurns(build, 3), build.compaction({ id: "c9", from: 1, to: 1, summary: "S" })];
    const view = projectConversation(events);
    const summaryTurn = view.turns[1]!;
    expect(summaryTurn.events.map((event) => event.id)).toEqual([
      "c9:summary:1:turn_start",
      "c9:summary:1:request",
      "c9:summary:1:response",
    ]);
    const firstOfTurnOne = events[assignTurnIndices(events).indexOf(1)]!;
    expect(summaryTurn.events.every((event) => event.ts === (firstOfTurnOne as { ts: string }).ts)).toBe(
      true,
    );
    expect(projectConversation(events)).toEqual(view);
  });
});

describe("mechanical policies", () => {
  it("strips reasoning and keeps messages and tool requests (strip_reasoning_removes_reasoning_events)", () => {
    const build = createEventBuilder();
    const view = projectConversation([
      ...twoTurnStream(build),
      build.compaction({ from: 0, to: 1, reasoning: true }),
    ]);
    expect(reasoningTexts(view.events)).toEqual([]);
    expect(messageTexts(view.events)).toEqual(["a:q0", "a:q1"]);
    expect(eventsOfType(view.events, "tool_call_request")).toHaveLength(2);
  });

  it("blanks request arguments only (strip_request_only_blanks_args_and_keeps_response)", () => {
    const build = createEventBuilder();
    const events = [...twoTurnStream(build), build.compaction({ from: 0, to: 1, tools: "strip-requests" })];
    const view = projectConversation(events);
    const requests = eventsOfType(view.events, "tool_call_request");
    expect(requests.map((request) => request.arguments)).toEqual([{}, {}]);
    expect(requests.map((request) => request.name)).toEqual(["fs_read_file", "cargo_test"]);
    for (const response of eventsOfType(view.events, "tool_call_response")) {
      expect(response.content.startsWith("[compacted]")).toBe(false);
    }
  });

  it("strips requests and responses (strip_tool_calls_replaces_content)", () => {
    const build = createEventBuilder();
    const view = projectConversation([
      ...twoTurnStream(build),
      build.compaction({ from: 0, to: 1, tools: "strip" }),
    ]);
    expect(
      eventsOfType(view.events, "tool_call_request").every((r) => Object.keys(r.arguments).length === 0),
    ).toBe(true);
    expect(eventsOfType(view.events, "tool_call_response").map((r) => r.content)).toEqual([
      "[compacted] fs_read_file: success",
      "[compacted] cargo_test: error",
    ]);
  });

  it("strips responses only (strip_tool_response_only)", () => {
    const build = createEventBuilder();
    const view = projectConversation([
      ...twoTurnStream(build),
      build.compaction({ from: 0, to: 0, tools: "strip-responses" }),
    ]);
    const request = eventsOfType(view.events, "tool_call_request")[0]!;
    expect(request.arguments).toEqual({ path: "a.rs" });
    expect(eventsOfType(view.events, "tool_call_response")[0]!.content).toBe(
      "[compacted] fs_read_file: success",
    );
  });

  it("keeps the error status of a stripped response (strip_tool_response_preserves_error_status)", () => {
    const build = createEventBuilder();
    const view = projectConversation([
      ...twoTurnStream(build),
      build.compaction({ from: 1, to: 1, tools: "strip-responses" }),
    ]);
    const response = eventsOfType(view.events, "tool_call_response")[1]!;
    expect(response.is_error).toBe(true);
    expect(response.content).toBe("[compacted] cargo_test: error");
  });

  it("names an unpaired response's tool `unknown`", () => {
    const build = createEventBuilder();
    const events = [
      build.turnStart(),
      build.request("q"),
      build.toolResponse("orphan", "text"),
      build.compaction({ from: 0, to: 0, tools: "strip" }),
    ];
    expect(eventsOfType(projectConversation(events).events, "tool_call_response")[0]!.content).toBe(
      "[compacted] unknown: success",
    );
  });

  it("removes tool calls under omit (omit_tool_calls_removes_them)", () => {
    const build = createEventBuilder();
    const view = projectConversation([
      ...twoTurnStream(build),
      build.compaction({ from: 0, to: 1, tools: "omit" }),
    ]);
    expect(eventsOfType(view.events, "tool_call_request")).toEqual([]);
    expect(eventsOfType(view.events, "tool_call_response")).toEqual([]);
    expect(messageTexts(view.events)).toEqual(["a:q0", "a:q1"]);
  });

  it("keeps metadata on modified events", () => {
    const build = createEventBuilder();
    const request: ToolCallRequest = {
      ...build.toolRequest({ name: "x", callId: "k" }),
      metadata: { signature: "s" },
    };
    const response: ToolCallResponse = { ...build.toolResponse("k", "out"), metadata: { cache: true } };
    const events = [
      build.turnStart(),
      build.request("q"),
      request,
      response,
      build.compaction({ from: 0, to: 0, tools: "strip" }),
    ];
    const view = projectConversation(events);
    expect(eventsOfType(view.events, "tool_call_request")[0]!.metadata).toEqual({ signature: "s" });
    expect(eventsOfType(view.events, "tool_call_response")[0]!.metadata).toEqual({ cache: true });
  });
});

describe("summaries", () => {
  it("replaces every event in range (summary_replaces_all_events_in_range)", () => {
    const build = createEventBuilder();
    const view = projectConversation([
      ...twoTurnStream(build),
      build.compaction({ from: 0, to: 1, summary: "all of it" }),
    ]);
    const visible = visibleEvents(view.events);
    expect(visible).toHaveLength(2);
    expect((visible[0] as { content: string }).content).toContain("Summary");
    expect((visible[1] as ChatResponse).message).toBe("all of it");
  });

  it("ignores mechanical policies in summarized turns (summary_ignores_per_type_policies)", () => {
    const build = createEventBuilder();
    const events = [
      ...twoTurnStream(build),
      build.compaction({ from: 0, to: 1, summary: "S", reasoning: true, tools: "strip" }),
    ];
    expect(visibleEvents(projectConversation(events).events)).toHaveLength(2);
  });

  it("summarizes part of the conversation (summary_partial_range)", () => {
    const build = createEventBuilder();
    const view = projectConversation([
      ...twoTurnStream(build),
      build.compaction({ from: 0, to: 0, summary: "S" }),
    ]);
    const visible = visibleEvents(view.events);
    expect(visible).toHaveLength(7);
    expect((visible[2] as { content: string }).content).toBe("q1");
  });

  it("injects the summary as its own turn (summary_is_injected_as_its_own_turn)", () => {
    const build = createEventBuilder();
    const view = projectConversation([
      ...twoTurnStream(build),
      build.compaction({ from: 1, to: 1, summary: "S" }),
    ]);
    expect(countTurns(view.events)).toBe(2);
    expect(view.turns[1]!.events[0]!.type).toBe("turn_start");
  });

  it("keeps adjacent summaries with identical text apart (distinct_adjacent_summaries_with_identical_text_stay_separate)", () => {
    const build = createEventBuilder();
    const events = [
      ...messageTurns(build, 2),
      build.compaction({ from: 0, to: 0, summary: "same" }),
      build.compaction({ from: 1, to: 1, summary: "same" }),
    ];
    const view = projectConversation(events);
    expect(countTurns(view.events)).toBe(2);
    expect(messageTexts(view.events)).toEqual(["same", "same"]);
  });

  it("re-injects the outer summary after a nested newer one (contained_summary_reinjects_outer_summary_tail)", () => {
    const build = createEventBuilder();
    const events = [
      ...messageTurns(build, 4),
      build.compaction({ from: 0, to: 3, summary: "OUTER" }),
      build.compaction({ from: 1, to: 2, summary: "INNER" }),
    ];
    expect(messageTexts(projectConversation(events).events)).toEqual(["OUTER", "INNER", "OUTER"]);
  });

  it("beats an older mechanical policy on the same turns (summary_wins_over_mechanical_for_same_turns)", () => {
    const build = createEventBuilder();
    const events = [
      ...twoTurnStream(build),
      build.compaction({ from: 0, to: 1, reasoning: true, tools: "strip" }),
      build.compaction({ from: 0, to: 1, summary: "S" }),
    ];
    expect(visibleEvents(projectConversation(events).events)).toHaveLength(2);
  });

  it("drops inquiry events in summarized turns", () => {
    const build = createEventBuilder();
    const inquiry = {
      type: "inquiry_request",
      id: "i1",
      ts: build.now(),
      inquiry_id: "x",
      source: "tool",
      question: "?",
    } as const;
    const events = [
      ...build.turn("q0"),
      inquiry,
      ...build.turn("q1"),
      build.compaction({ from: 0, to: 0, summary: "S" }),
    ];
    expect(eventsOfType(projectConversation(events).events, "inquiry_request")).toEqual([]);
  });
});

describe("latest wins", () => {
  it("breaks timestamp ties by stream order (timestamp_tie_breaks_by_stream_order)", () => {
    const build = createEventBuilder();
    const ts = "2026-02-01T00:00:00Z";
    const events = [
      ...twoTurnStream(build),
      build.compaction({ from: 0, to: 1, tools: "omit", ts }),
      build.compaction({ from: 0, to: 1, tools: "strip", ts: "2026-02-01T00:00:00.000000Z" }),
    ];
    expect(eventsOfType(projectConversation(events).events, "tool_call_request")).toHaveLength(2);
  });

  it("applies an older reasoning strip and a newer tool strip together (later_compaction_wins_for_same_turn)", () => {
    const build = createEventBuilder();
    const events = [
      ...twoTurnStream(build),
      build.compaction({ from: 0, to: 1, reasoning: true }),
      build.compaction({ from: 0, to: 1, tools: "strip" }),
    ];
    const view = projectConversation(events);
    expect(reasoningTexts(view.events)).toEqual([]);
    expect(
      eventsOfType(view.events, "tool_call_response").every((r) => r.content.startsWith("[compacted]")),
    ).toBe(true);
  });

  it("lets a newer policy of the same type override (later_compaction_overrides_earlier_for_same_type)", () => {
    const build = createEventBuilder();
    const events = [
      ...twoTurnStream(build),
      build.compaction({ from: 0, to: 1, tools: "omit" }),
      build.compaction({ from: 0, to: 1, tools: "strip" }),
    ];
    expect(eventsOfType(projectConversation(events).events, "tool_call_request")).toHaveLength(2);
  });

  it("orders by timestamp, not by stream position", () => {
    const build = createEventBuilder();
    const events = [
      ...twoTurnStream(build),
      build.compaction({ from: 0, to: 1, tools: "strip", ts: "2027-01-01T00:00:00Z" }),
      build.compaction({ from: 0, to: 1, tools: "omit", ts: "2026-06-01T00:00:00Z" }),
    ];
    expect(eventsOfType(projectConversation(events).events, "tool_call_request")).toHaveLength(2);
  });
});

describe("ranges", () => {
  it("touches only covered turns (compaction_applies_only_to_covered_turns)", () => {
    const build = createEventBuilder();
    const view = projectConversation([
      ...twoTurnStream(build),
      build.compaction({ from: 0, to: 0, reasoning: true }),
    ]);
    expect(reasoningTexts(view.events)).toEqual(["r1"]);
    expect(
      visibleEvents(view.events).filter(
        (event) => assignTurnIndices(view.events)[view.events.indexOf(event)] === 1,
      ),
    ).toHaveLength(5);
  });

  it("clamps a range past the end (compaction_beyond_max_turn_is_clamped)", () => {
    const build = createEventBuilder();
    const view = projectConversation([
      ...twoTurnStream(build),
      build.compaction({ from: 0, to: 99, reasoning: true }),
    ]);
    expect(reasoningTexts(view.events)).toEqual([]);
  });

  it("ignores a range starting past the end", () => {
    const build = createEventBuilder();
    const events = [...twoTurnStream(build), build.compaction({ from: 5, to: 9, reasoning: true })];
    expect(reasoningTexts(projectConversation(events).events)).toEqual(["r0", "r1"]);
  });

  it("targets the right turn with an implicit leading turn (compaction_targets_correct_turn_with_implicit_leading_turn)", () => {
    const build = createEventBuilder();
    const events = [
      ...build.turn("q0", { reasoning: "r0", withoutTurnStart: true }),
      ...build.turn("q1", { reasoning: "r1" }),
      build.compaction({ from: 1, to: 1, reasoning: true }),
    ];
    expect(reasoningTexts(projectConversation(events).events)).toEqual(["r0"]);
  });
});

describe("stream handling", () => {
  it("keeps config deltas and unknown entries in place (config_deltas_preserved_through_projection)", () => {
    const build = createEventBuilder();
    const delta = build.configDelta({ assistant: { model: { id: "openai/gpt" } } });
    const unknown = build.unknown();
    const events = [
      ...build.turn("q0"),
      delta,
      unknown,
      ...build.turn("q1"),
      build.compaction({ from: 0, to: 1, summary: "S" }),
    ];
    const view = projectConversation(events);
    expect(eventsOfType(view.events, "config_delta")).toEqual([delta]);
    expect(view.events.filter((event) => event.type === "unknown")).toEqual([unknown]);
  });

  it("consumes compaction events (compaction_events_consumed_by_projection)", () => {
    const build = createEventBuilder();
    const events = [...twoTurnStream(build), build.compaction({ from: 0, to: 0, reasoning: true })];
    expect(eventsOfType(events, "compaction")).toHaveLength(1);
    expect(eventsOfType(projectConversation(events).events, "compaction")).toHaveLength(0);
  });

  it("applies only the new overlay when re-projecting (recompact_projected_stream_with_new_compaction)", () => {
    const build = createEventBuilder();
    const first = projectConversation([
      ...twoTurnStream(build),
      build.compaction({ from: 0, to: 1, reasoning: true }),
    ]);
    const second = projectConversation([
      ...first.events,
      build.compaction({ from: 0, to: 1, tools: "omit" }),
    ]);
    expect(reasoningTexts(second.events)).toEqual([]);
    expect(eventsOfType(second.events, "tool_call_request")).toEqual([]);
    expect(messageTexts(second.events)).toEqual(["a:q0", "a:q1"]);
  });

  it("never mutates its input", () => {
    const build = createEventBuilder();
    const events = [
      ...twoTurnStream(build),
      build.compaction({ from: 0, to: 1, tools: "strip", reasoning: true }),
    ];
    const snapshot = structuredClone(events);
    projectConversation(events);
    expect(events).toEqual(snapshot);
  });

  it("numbers turns as jp does (turn_indices_basic, turn_indices_with_implicit_leading_turn)", () => {
    const build = createEventBuilder();
    const basic = [
      build.turnStart(),
      build.request("a"),
      build.turnStart(),
      build.request("b"),
      build.turnStart(),
      build.request("c"),
    ];
    expect(assignTurnIndices(basic)).toEqual([0, 0, 1, 1, 2, 2]);
    expect(assignTurnIndices([build.request("orphan"), build.turnStart(), build.request("q1")])).toEqual([
      0, 1, 1,
    ]);
  });
});

describe("deferred and retired compactions", () => {
  it("ignores a deferred compaction until the highest turn index reaches it", () => {
    const build = createEventBuilder();
    const base = [
      ...twoTurnStream(build),
      build.compaction({ from: 0, to: 0, reasoning: true, deferredUntilTurn: 2 }),
    ];
    expect(reasoningTexts(projectConversation(base).events)).toEqual(["r0", "r1"]);
    const later = [...base, ...build.turn("q2")];
    expect(reasoningTexts(projectConversation(later).events)).toEqual(["r1"]);
  });

  it("ignores a retired compaction and restores it when the reset is undone", () => {
    const build = createEventBuilder();
    const compaction = build.compaction({ from: 0, to: 1, reasoning: true });
    const reset = build.reset([compaction.id]);
    const retired = [...twoTurnStream(build), compaction, reset];
    expect(reasoningTexts(projectConversation(retired).events)).toEqual(["r0", "r1"]);
    const undone = [...retired, build.reset([reset.id])];
    expect(reasoningTexts(projectConversation(undone).events)).toEqual([]);
    expect(eventsOfType(projectConversation(undone).events, "compaction_reset")).toEqual([]);
  });
});
