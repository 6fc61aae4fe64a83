/**
 * Projection of cycle-precise compactions (docs/decisions/006-tool-cycle-bounds.md): masking
 * results with a placeholder, policies inside a turn, summaries standing where the cycles were,
 * priorities against whole-turn compactions, and the requests providers receive.
 */
import { describe, expect, it } from "vitest";
import { parseEvent, type ConversationEvent, type TurnEvent } from "../../src/core/conversation/events.js";
import {
  IN_TURN_SUMMARY_HEADING,
  inTurnSummaryContent,
  projectConversation,
  SUMMARY_REQUEST_TEXT,
  shortArguments,
  strippedResultPlaceholder,
} from "../../src/core/conversation/projection.js";
import { buildLlmRequest } from "../../src/core/conversation/request.js";
import { createEventBuilder, eventsOfType, tickTime } from "../helpers/builders.js";
import { agentTurn, cycleCompaction } from "../helpers/cycles.js";

function resultTexts(events: readonly ConversationEvent[]): string[] {
  return eventsOfType(events, "tool_call_response").map((event) => event.content);
}

function requestTexts(events: readonly ConversationEvent[]): string[] {
  return eventsOfType(events, "chat_request").map((event) => event.content);
}

/** One agent turn of `cycles` cycles with one call each (long results), then the answer. */
function agentSession(cycles: number) {
  const build = createEventBuilder();
  const events: ConversationEvent[] = agentTurn(
    build,
    "fix the parser",
    Array.from({ length: cycles }, (_, index) => ({ reasoning: `r${index}`, calls: 1 })),
  );
  return { build, events };
}

describe("strippedResultPlaceholder", () => {
  it("names the tool, its arguments in short, the outcome and the size dropped", () => {
    expect(
      strippedResultPlaceholder({ name: "read_file", arguments: { path: "src/a.ts" } }, false, 9812),
    ).toBe('[compacted] read_file {"path":"src/a.ts"}: success, 9812 chars dropped');
    expect(strippedResultPlaceholder({ name: "run", arguments: {} }, true, 12)).toBe(
      "[compacted] run: error, 12 chars dropped",
    );
    expect(strippedResultPlaceholder(undefined, false, 3)).toBe(
      "[compacted] unknown: success, 3 chars dropped",
    );
  });

  it("cuts long string values and long argument texts, on one line", () => {
    const long = shortArguments({ command: `echo ${"x".repeat(100)}\nsecond line`, n: 3 });
    expect(long).toBe(`{"command":"echo ${"x".repeat(34)}…","n":3}`);
    const wide = shortArguments(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`key${i}`, i])));
    expect(wide).toHaveLength(120);
    expect(wide.endsWith("…")).toBe(true);
    expect(shortArguments({ text: "line one\nline two" })).not.toContain("\n");
  });

  it("never cuts a surrogate pair in half", () => {
    const text = shortArguments({ emoji: `${"a".repeat(38)}😀😀` });
    expect(text).toBe(`{"emoji":"${"a".repeat(38)}…"}`);
  });
});

describe("masking tool results inside a turn", () => {
  it("strips the results up to the compaction's last cycle and keeps the later ones verbatim", () => {
    const { build, events } = agentSession(8);
    const raw = resultTexts(events);
    const view = projectConversation([
      ...events,
      cycleCompaction(build, { from: 0, to: 0, toCycle: 4, tools: "strip-responses" }),
    ]);
    const results = resultTexts(view.events);
    for (let call = 0; call < 5; call++) {
      expect(results[call]).toBe(
        strippedResultPlaceholder(
          { name: "read_file", arguments: { path: `fix-the-parser-${call}-0.ts` } },
          false,
          raw[call]!.length,
        ),
      );
    }
    expect(results.slice(5)).toEqual(raw.slice(5));
    // Requests, the user's message, reasoning and the answer are untouched.
    expect(eventsOfType(view.events, "tool_call_request")).toEqual(eventsOfType(events, "tool_call_request"));
    expect(requestTexts(view.events)).toEqual(["fix the parser"]);
    expect(eventsOfType(view.events, "chat_response")).toEqual(eventsOfType(events, "chat_response"));
    expect(view.turns).toHaveLength(1);
    expect(view.turns[0]!.strippedResults).toBe(5);
  });

  it("keeps a result that is no longer than its placeholder", () => {
    const build = createEventBuilder();
    const events = [
      ...agentTurn(build, "q", [{ calls: [{ name: "ls", result: "ok" }] }, { calls: 1 }]),
      cycleCompaction(build, { from: 0, to: 0, toCycle: 0, tools: "strip-responses" }),
    ];
    const view = projectConversation(events);
    expect(resultTexts(view.events)[0]).toBe("ok");
    expect(view.turns[0]!.strippedResults).toBeUndefined();
    // Longer than the shortest placeholder, shorter than this call's: kept as well.
    const build2 = createEventBuilder();
    const medium = "x".repeat(45);
    const withArguments = projectConversation([
      ...agentTurn(build2, "q", [
        { calls: [{ name: "read_file", arguments: { path: "src/a.ts" }, result: medium }] },
        { calls: 1 },
      ]),
      cycleCompaction(build2, { from: 0, to: 0, toCycle: 0, tools: "strip-responses" }),
    ]);
    expect(resultTexts(withArguments.events)[0]).toBe(medium);
  });

  it("reaches across turns: whole earlier turns and the start of the last one", () => {
    const build = createEventBuilder();
    const events: ConversationEvent[] = [
      ...agentTurn(build, "q0", [{ calls: 2 }]),
      ...agentTurn(build, "q1", [{ calls: 1 }, { calls: 1 }, { calls: 1 }]),
    ];
    const raw = resultTexts(events);
    const view = projectConversation([
      ...events,
      cycleCompaction(build, { from: 0, to: 1, toCycle: 1, tools: "strip-responses" }),
    ]);
    const results = resultTexts(view.events);
    expect(results.slice(0, 4).every((text) => text.startsWith("[compacted] read_file {"))).toBe(true);
    expect(results[4]).toBe(raw[4]);
    expect(view.turns.map((turn) => turn.strippedResults)).toEqual([2, 2]);
  });

  it("strips reasoning and omits calls of the covered cycles only, results with their calls", () => {
    const build = createEventBuilder();
    const events: ConversationEvent[] = agentTurn(build, "q", [
      { reasoning: "r0", calls: 2 },
      { reasoning: "r1", calls: 2 },
      { reasoning: "r2", calls: 1 },
    ]);
    const view = projectConversation([
      ...events,
      cycleCompaction(build, { from: 0, to: 0, fromCycle: 1, toCycle: 1, reasoning: true, tools: "omit" }),
    ]);
    const reasoning = eventsOfType(view.events, "chat_response").flatMap((event) =>
      event.reasoning === undefined ? [] : [event.reasoning],
    );
    expect(reasoning).toEqual(["r0", "r2"]);
    const calls = eventsOfType(view.events, "tool_call_request").map((event) => event.call_id);
    const results = eventsOfType(view.events, "tool_call_response").map((event) => event.call_id);
    expect(calls).toHaveLength(3);
    expect(results).toEqual(calls);
  });

  it("describes the call a result answers when call ids repeat", () => {
    const build = createEventBuilder();
    const first = build.toolRequest({ name: "fs_modify_file", callId: "dup", arguments: { path: "a.rs" } });
    const events: ConversationEvent[] = [
      build.turnStart(),
      build.request("q"),
      first,
      build.toolResponse("dup", "patched a.rs ".repeat(10)),
      build.toolRequest({ name: "fs_modify_file", callId: "dup", arguments: { path: "b.rs" } }),
      build.toolResponse("dup", "patched b.rs ".repeat(10)),
      build.message("done"),
    ];
    const view = projectConversation([
      ...events,
      cycleCompaction(build, { from: 0, to: 0, toCycle: 1, tools: "strip-responses" }),
    ]);
    expect(resultTexts(view.events)).toEqual([
      '[compacted] fs_modify_file {"path":"a.rs"}: success, 130 chars dropped',
      '[compacted] fs_modify_file {"path":"b.rs"}: success, 130 chars dropped',
    ]);
  });

  it("keeps jp's placeholder for whole-turn compactions", () => {
    const build = createEventBuilder();
    const events = [
      ...agentTurn(build, "q0", [{ calls: 1 }]),
      ...agentTurn(build, "q1", [{ calls: 1 }]),
      build.compaction({ from: 0, to: 0, tools: "strip-responses" }),
    ];
    expect(resultTexts(projectConversation(events).events)[0]).toBe("[compacted] read_file: success");
  });

  it("clamps positions past a turn's cycles and a `to_turn` past the conversation", () => {
    const { build, events } = agentSession(3);
    const past = projectConversation([
      ...events,
      cycleCompaction(build, { from: 0, to: 0, toCycle: 40, tools: "strip-responses" }),
    ]);
    expect(resultTexts(past.events).every((text) => text.startsWith("[compacted]"))).toBe(true);
    const beyond = projectConversation([
      ...events,
      cycleCompaction(build, { from: 0, to: 0, fromCycle: 9, toCycle: 12, tools: "strip-responses" }),
    ]);
    expect(resultTexts(beyond.events)).toEqual(resultTexts(events));
  });
});

describe("summaries inside a turn", () => {
  it("stand where the cycles were, after the user's message, before the cycles that follow", () => {
    const { build, events } = agentSession(6);
    const view = projectConversation([
      ...events,
      cycleCompaction(build, { id: "c1", from: 0, to: 0, fromCycle: 0, toCycle: 3, summary: "did 4 reads" }),
    ]);
    expect(view.turns).toHaveLength(1);
    const turn = view.turns[0]!;
    expect(turn.origin).toEqual({ kind: "kept", turn: 0 });
    expect(turn.cycleSummaries).toEqual([
      {
        from: { turn: 0, cycle: 0 },
        to: { turn: 0, cycle: 3 },
        compactionId: "c1",
        eventId: "c1:summary:0.0",
      },
    ]);
    expect(turn.events[2]!.id).toBe("c1:summary:0.0");
    expect(turn.events.map((event) => event.type)).toEqual([
      "turn_start",
      "chat_request",
      "chat_request",
      "chat_response",
      "tool_call_request",
      "tool_call_response",
      "chat_response",
      "tool_call_request",
      "tool_call_response",
      "chat_response",
    ]);
    expect(requestTexts(turn.events)).toEqual(["fix the parser", inTurnSummaryContent("did 4 reads")]);
    expect(inTurnSummaryContent("x")).toBe(`${IN_TURN_SUMMARY_HEADING}\n\nx`);
    expect(eventsOfType(turn.events, "chat_response")[0]!.reasoning).toBe("r4");
  });

  it("make a valid request: results follow their calls, text after results, roles alternate", () => {
    const { build, events } = agentSession(6);
    const view = projectConversation([
      ...events,
      cycleCompaction(build, { from: 0, to: 0, fromCycle: 2, toCycle: 3, summary: "middle" }),
    ]);
    const request = buildLlmRequest(view.turns);
    const roles = request.messages.map((message) => message.role);
    expect(roles.every((role, index) => index === 0 || role !== roles[index - 1])).toBe(true);
    // The summary shares the user message holding cycle 2's result, after it.
    const withSummary = request.messages.find((message) =>
      message.parts.some((part) => part.type === "text" && part.text.startsWith(IN_TURN_SUMMARY_HEADING)),
    )!;
    expect(withSummary.parts.map((part) => part.type)).toEqual(["tool-result", "text"]);
    const callIds = request.messages.flatMap((message) =>
      message.parts.flatMap((part) => (part.type === "tool-call" ? [part.id] : [])),
    );
    const resultIds = request.messages.flatMap((message) =>
      message.parts.flatMap((part) => (part.type === "tool-result" ? [part.callId] : [])),
    );
    expect(resultIds).toEqual(callIds);
    expect(callIds).toHaveLength(4);
  });

  it("lose to a newer whole-turn summary, and split an older one they stand inside", () => {
    const build = createEventBuilder();
    const events: ConversationEvent[] = [
      ...agentTurn(build, "q0", [{ calls: 1 }]),
      ...agentTurn(build, "q1", [{ calls: 1 }, { calls: 1 }, { calls: 1 }]),
      ...agentTurn(build, "q2", [{ calls: 1 }]),
    ];
    const inner = cycleCompaction(build, {
      id: "inner",
      from: 1,
      to: 1,
      fromCycle: 1,
      toCycle: 1,
      summary: "inner",
      ts: tickTime(1000),
    });
    const outer = build.compaction({ id: "outer", from: 0, to: 1, summary: "outer", ts: tickTime(2000) });
    const newerOuter = projectConversation([...events, inner, outer]);
    expect(newerOuter.turns.map((turn) => turn.origin)).toEqual([
      { kind: "summary", from: 0, to: 1, compactionId: "outer" },
      { kind: "kept", turn: 2 },
    ]);
    const olderOuter = projectConversation([...events, { ...outer, ts: tickTime(500) }, inner]);
    const texts = olderOuter.events.flatMap((event) =>
      event.type === "chat_request" ? [event.content] : event.type === "chat_response" ? [event.message] : [],
    );
    expect(texts.filter((text) => text !== undefined)).toEqual([
      SUMMARY_REQUEST_TEXT,
      "outer",
      inTurnSummaryContent("inner"),
      inTurnSummaryContent("outer"),
      "q2",
      "a:q2",
    ]);
  });

  it("inject once even when a late result of a summarized cycle stands after the run", () => {
    const build = createEventBuilder();
    const slow = build.toolRequest({ name: "slow" });
    const events: ConversationEvent[] = [
      build.turnStart(),
      build.request("q"),
      slow,
      build.toolResponse("other", "?"),
      build.message("second"),
      build.toolRequest({ name: "quick" }),
      build.toolResponse(slow.call_id, "late"),
      build.message("done"),
    ];
    const view = projectConversation([
      ...events,
      cycleCompaction(build, { from: 0, to: 0, fromCycle: 0, toCycle: 0, summary: "first" }),
    ]);
    expect(requestTexts(view.events).filter((text) => text.startsWith(IN_TURN_SUMMARY_HEADING))).toHaveLength(
      1,
    );
    expect(resultTexts(view.events)).toEqual([]);
  });
});

describe("cycle-precise compactions in force", () => {
  it("wait for their deferral and are retired by resets like any compaction", () => {
    const { build, events } = agentSession(3);
    const masked = cycleCompaction(build, { id: "m", from: 0, to: 0, toCycle: 1, tools: "strip-responses" });
    const deferred = projectConversation([...events, { ...masked, deferred_until_turn: 1 }]);
    expect(resultTexts(deferred.events)).toEqual(resultTexts(events));
    const retired = projectConversation([...events, masked, build.reset(["m"])]);
    expect(resultTexts(retired.events)).toEqual(resultTexts(events));
    expect(resultTexts(projectConversation([...events, masked]).events)[0]).toMatch(/^\[compacted\]/);
  });

  it("compete with whole-turn compactions per cycle: the later one wins", () => {
    const { build, events } = agentSession(3);
    const whole = build.compaction({ from: 0, to: 0, tools: "strip-responses", ts: tickTime(900) });
    const precise = cycleCompaction(build, { from: 0, to: 0, toCycle: 0, tools: "omit", ts: tickTime(901) });
    const view = projectConversation([...events, whole, precise]);
    expect(resultTexts(view.events)).toEqual([
      "[compacted] read_file: success",
      "[compacted] read_file: success",
    ]);
    expect(eventsOfType(view.events, "tool_call_request")).toHaveLength(2);
  });
});

describe("the `cycles` field on disk", () => {
  it("parses and keeps unknown nested fields; refuses policies at both levels", () => {
    const line = {
      type: "compaction",
      id: "c",
      ts: "2026-01-01T00:00:00Z",
      from_turn: 0,
      to_turn: 1,
      cycles: { from: 2, to: 7, tool_calls: { policy: "omit" }, future: true },
    };
    const parsed = parseEvent(line);
    expect(parsed.ok && parsed.event).toMatchObject({
      cycles: { from: 2, to: 7, future: true },
      source: "user",
    });
    const both = parseEvent({ ...line, reasoning: "strip" });
    expect(both).toEqual({
      ok: false,
      error:
        "invalid compaction event: a compaction with `cycles` keeps its policies inside `cycles`, not at the top level",
    });
    expect(parseEvent({ ...line, cycles: { from: 1 } }).ok).toBe(false);
  });

  it("means nothing to a reader that only knows top-level policies", () => {
    // An older cxc sees a compaction without policy; so does projection of its top level here.
    const { build, events } = agentSession(3);
    const { cycles: _cycles, ...topLevelOnly } = cycleCompaction(build, {
      from: 0,
      to: 0,
      toCycle: 1,
      tools: "strip",
    });
    const view = projectConversation([...events, topLevelOnly]);
    expect(view.events).toEqual(events as TurnEvent[]);
  });
});
