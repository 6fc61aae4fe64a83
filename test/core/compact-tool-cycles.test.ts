/**
 * The `compact` tool's quotes inside the turn in progress (docs/compact-tool.md, "Inside the turn
 * in progress"): a quote in an earlier cycle names that cycle, the calling cycle is never
 * searched nor covered, the user's message always stays, and a summary cannot end inside the turn
 * unless it starts inside it.
 */
import { describe, expect, it } from "vitest";
import { resolveAnchor } from "../../src/compaction/core/tool/anchors.js";
import {
  type CompactToolPlan,
  type CompactToolRule,
  parseCompactArguments,
  planCompactCall,
} from "../../src/compaction/core/tool/compact-tool.js";
import { compactionPolicies, HEAD, layoutCycles } from "../../src/core/conversation/cycles.js";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import { projectConversation } from "../../src/core/conversation/projection.js";
import { createEventBuilder } from "../helpers/builders.js";

function rulesOf(value: unknown): readonly CompactToolRule[] {
  const parsed = parseCompactArguments(value);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.rules;
}

function plan(events: readonly ConversationEvent[], rules: unknown[]): CompactToolPlan {
  let counter = 0;
  return planCompactCall(events, rulesOf({ rules }), {
    countTokens: (text) => text.length,
    newEventId: () => `planned-${++counter}`,
    now: "2026-02-01T00:00:00.000000000Z",
  });
}

function onlyRule(result: CompactToolPlan) {
  if (!result.ok) throw new Error(`expected a plan, got: ${result.message}`);
  expect(result.rules).toHaveLength(1);
  return result.rules[0]!;
}

function failure(result: CompactToolPlan): string {
  if (result.ok) throw new Error("expected a tool error");
  return result.message;
}

/**
 * Two finished turns, then the turn in progress: its user message, four cycles reading files
 * (`read-0` … `read-3`, one of them read twice), and the calling cycle with the compact call.
 */
function session(): ConversationEvent[] {
  const build = createEventBuilder();
  const events: ConversationEvent[] = [
    ...build.turn("first task", { answer: "first answer" }),
    ...build.turn("second task", { answer: "second answer" }),
    build.turnStart(),
    build.request("now debug the flaky test"),
  ];
  const outputs = ["output zero", "output one twice", "output one twice", "output three"];
  outputs.forEach((output, index) => {
    const request = build.toolRequest({ name: "read", arguments: { path: `read-${index}` } });
    events.push(request, build.toolResponse(request.call_id, output));
  });
  events.push(build.message("Compacting after output three"));
  events.push(build.toolRequest({ name: "compact", arguments: { rules: [] }, callId: "compact-call" }));
  return events;
}

describe("quotes in the turn in progress", () => {
  it("name the cycle they are in, and list cycles when ambiguous", () => {
    const events = session();
    const view = projectConversation(events);
    const layout = layoutCycles(events);
    const cycleOf = new Map<string, number>();
    events.forEach((event, position) => {
      if ("id" in event && layout.turnIndices[position] === 2)
        cycleOf.set(event.id, layout.cycles[position]!);
    });
    expect(layout.cycleCounts[2]).toBe(5);
    const options = { inProgressTurn: 2, inProgressCycles: { cycleOf, callingCycle: 4 } };
    expect(resolveAnchor(view, "output zero", options)).toMatchObject({ kind: "found", turn: 2, cycle: 0 });
    expect(resolveAnchor(view, "debug the flaky", options)).toMatchObject({
      kind: "found",
      turn: 2,
      cycle: HEAD,
    });
    const ambiguous = resolveAnchor(view, "output one twice", options);
    expect(ambiguous.kind).toBe("ambiguous");
    expect(ambiguous.kind === "ambiguous" && ambiguous.message).toContain(
      'is ambiguous: it appears in 2 places:\n- turn 3, cycle 2: "read {\\"path\\":\\"read-1\\"} output one twice"\n' +
        '- turn 3, cycle 3: "read {\\"path\\":\\"read-2\\"} output one twice"',
    );
    // The calling cycle (the announcing text) is not searched.
    expect(resolveAnchor(view, "Compacting after output three", options).kind).toBe("not-found");
  });
});

describe("planning ranges inside the turn in progress", () => {
  it("after_quote starts at the next cycle and ends before the calling cycle", () => {
    const rule = onlyRule(plan(session(), [{ after_quote: "output zero", tool_calls: "strip", note: "n" }]));
    expect(rule).toMatchObject({ from: 2, to: 2, fromCycle: 1, toCycle: 3 });
    expect(rule.compaction).toMatchObject({
      from_turn: 2,
      to_turn: 2,
      cycles: { from: 1, to: 3, tool_calls: { policy: "strip" } },
      deferred_until_turn: 3,
    });
  });

  it("after_quote on the user's message starts at the first cycle; before_quote ends at the cycle before", () => {
    const rule = onlyRule(
      plan(session(), [
        {
          after_quote: "now debug the flaky test",
          before_quote: "output three",
          summary: "read three files",
          note: "n",
        },
      ]),
    );
    expect(rule).toMatchObject({ from: 2, to: 2, fromCycle: 0, toCycle: 2 });
    expect(rule.compaction.cycles?.summary).toEqual({
      summary: "read three files",
      source: "supplied",
      author: "assistant",
    });
  });

  it("lists the facts of the cycles a summary inside the turn covers, not of the whole turn", () => {
    // Files worth a summary: their contents outweigh the summary and its facts block.
    const events = session().map((event) =>
      event.type === "tool_call_request" && event.name === "read"
        ? { ...event, arguments: { path: `src/${String(event.arguments.path)}.ts` } }
        : event.type === "tool_call_response"
          ? { ...event, content: `${event.content}\n${"const x = 1;\n".repeat(80)}` }
          : event,
    );
    const rule = onlyRule(
      plan(events, [
        { after_quote: "now debug the flaky test", before_quote: "output three", summary: "read", note: "n" },
      ]),
    );
    expect(rule).toMatchObject({ from: 2, to: 2, fromCycle: 0, toCycle: 2 });
    // The facts block of its cycles: the files they read, not the rest of the turn's.
    expect(compactionPolicies(rule.compaction).summary?.facts).toBe(
      "[Facts of these turns, from their raw events]\nFiles read: src/read-0.ts, src/read-1.ts, src/read-2.ts",
    );
  });

  it("a mechanical range may run from an earlier turn into the turn in progress", () => {
    const rule = onlyRule(
      plan(session(), [{ before_quote: "output three", tool_calls: "strip", note: "n" }]),
    );
    expect(rule).toMatchObject({ from: 0, to: 2, toCycle: 2 });
    expect(rule.fromCycle).toBeUndefined();
  });

  it("a summary that would remove the user's message of the turn in progress is a tool error", () => {
    expect(failure(plan(session(), [{ before_quote: "output three", summary: "s", note: "n" }]))).toBe(
      "rules[0]: a summary of turns 1..3, turn 3 to cycle 3 would remove the user message of turn 3, which " +
        "goes on after it; end the range at a turn, or start it inside turn 3.",
    );
  });

  it("selects nothing when the quote is in the cycle just before the call", () => {
    expect(failure(plan(session(), [{ after_quote: "output three", tool_calls: "strip", note: "n" }]))).toBe(
      "rules[0] selects nothing: the range would start at turn 3, cycle 5 (after_quote (found in turn 3, cycle 4)) " +
        "and end at turn 3, cycle 4 (the cycle before this call); the last turn is in progress and its latest " +
        "cycle holds this call.",
    );
  });
});
