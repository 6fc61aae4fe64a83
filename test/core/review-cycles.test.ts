/**
 * Review proposals that start or end inside a turn (docs/review.md, "Inside a turn"): reading and
 * checking `from_cycle`/`to_cycle`, the one range a summary can stand in, growth over summaries
 * by position, the result text and reading it back, `--continue`'s event and its re-run check,
 * and the cycle markers of the review's history.
 */
import { beforeEach, describe, expect, it } from "vitest";
import type { Compaction, ConversationEvent } from "../../src/core/conversation/events.js";
import { realizePlan } from "../../src/compaction/core/realize.js";
import {
  buildReviewHistory,
  compactionMatchesProposal,
  type ProposalSource,
  proposalRecord,
  type ReviewProposal,
  renderContinuePrompt,
  renderProposalResult,
  reviewCompactionPlan,
  validateProposal,
} from "../../src/compaction/core/review/review.js";
import { createEventBuilder, type EventBuilder } from "../helpers/builders.js";
import { agentTurn, cycleCompaction } from "../helpers/cycles.js";

let build: EventBuilder;
beforeEach(() => {
  build = createEventBuilder();
});

function source(events: readonly ConversationEvent[]): ProposalSource {
  return { kind: "found", id: "src1", events };
}

function validOf(argumentsObject: Record<string, unknown>, events: readonly ConversationEvent[]) {
  const validation = validateProposal(argumentsObject, source(events));
  if (!validation.ok) throw new Error(`expected a valid proposal, got: ${validation.message}`);
  return validation;
}

function errorOf(argumentsObject: Record<string, unknown>, events: readonly ConversationEvent[]): string {
  const validation = validateProposal(argumentsObject, source(events));
  if (validation.ok) throw new Error("expected an invalid proposal");
  return validation.message;
}

/** Two turns of 3 and 5 cycles (the last cycle of each is its answer). */
function twoTurns(): ConversationEvent[] {
  return [
    ...agentTurn(build, "q0", [{ calls: 1 }, { calls: 1 }]),
    ...agentTurn(build, "q1", [{ calls: 1 }, { calls: 2 }, { calls: 1 }, { calls: 1 }]),
  ];
}

describe("validating cycles", () => {
  it("keeps the user's message out of a summary that ends inside a turn", () => {
    const events = twoTurns();
    const validation = validOf({ from_turn: 2, to_turn: 2, to_cycle: 3, summary: "s" }, events);
    expect(validation.proposal).toMatchObject({ fromTurn: 2, toTurn: 2, fromCycle: 1, toCycle: 3 });
    expect(validation.proposal.requested).toEqual({ fromTurn: 2, toTurn: 2, toCycle: 3 });
    expect(renderProposalResult(validation).split("\n")[0]).toBe(
      "Proposed: compact turn 2, cycles 1..3 (summarize)",
    );
  });

  it("refuses a summary that would remove the user message of a turn that goes on", () => {
    expect(errorOf({ from_turn: 1, to_turn: 2, to_cycle: 3, summary: "s" }, twoTurns())).toBe(
      "a summary of turns 1..2, turn 2 to cycle 3 would remove the user message of turn 2, which goes on " +
        "after it; end the range at a turn, or start it inside turn 2",
    );
  });

  it("takes a summary from a cycle through a whole later turn as one range", () => {
    const validation = validOf({ from_turn: 1, to_turn: 2, from_cycle: 2, summary: "s" }, twoTurns());
    expect(validation.proposal).toMatchObject({ fromTurn: 1, toTurn: 2, fromCycle: 2, toCycle: 5 });
    const event = planEvent(validation.proposal, twoTurns());
    expect(event).toMatchObject({ from_turn: 0, to_turn: 1, cycles: { from: 1, to: 4 } });
  });

  it("checks each cycle against its turn and the order inside one turn, all at once", () => {
    expect(
      errorOf({ from_turn: 1, to_turn: 2, from_cycle: 4, to_cycle: 0, tool_calls: "strip" }, twoTurns()),
    ).toBe(
      "`to_cycle` must be a cycle number (1-based, as in the [turn N, cycle C] markers), got 0\n" +
        "`from_cycle`: turn 1 has 3 cycles; there is no cycle 4",
    );
    expect(
      errorOf({ from_turn: 2, to_turn: 2, from_cycle: 4, to_cycle: 2, reasoning: "strip" }, twoTurns()),
    ).toBe("`from_cycle` (4) is after `to_cycle` (2); the range must run forwards");
  });

  it("ends with the turn at the turn's last cycle, and names the last cycle of a range from a cycle", () => {
    const events = twoTurns();
    expect(
      validOf({ from_turn: 1, to_turn: 2, to_cycle: 5, reasoning: "strip" }, events).proposal,
    ).toMatchObject({
      fromTurn: 1,
      toTurn: 2,
    });
    expect(
      validOf({ from_turn: 1, to_turn: 2, to_cycle: 5, reasoning: "strip" }, events).proposal.toCycle,
    ).toBeUndefined();
    expect(
      validOf({ from_turn: 2, to_turn: 2, from_cycle: 2, tool_calls: "omit" }, events).proposal,
    ).toMatchObject({ fromCycle: 2, toCycle: 5 });
  });

  it("grows a summary over an in-turn summary it touches, and says so by cycles", () => {
    const events = [
      ...twoTurns(),
      cycleCompaction(build, { id: "old", from: 1, to: 1, fromCycle: 0, toCycle: 1, summary: "old" }),
    ];
    const validation = validOf(
      { from_turn: 2, to_turn: 2, from_cycle: 2, to_cycle: 4, summary: "new" },
      events,
    );
    expect(validation.proposal).toMatchObject({ fromTurn: 2, toTurn: 2, fromCycle: 1, toCycle: 4 });
    expect(renderProposalResult(validation).split("\n")[1]).toBe(
      "The range grew from turn 2, cycles 2..4 to turn 2, cycles 1..4 so that it covers the existing " +
        "summary of turn 2, cycles 1..2 whole; the summary text should cover the whole range.",
    );
  });
});

describe("the recorded range and --continue", () => {
  it("records the range, cycles included, as data for --continue", () => {
    const { proposal } = validOf(
      { from_turn: 2, to_turn: 2, from_cycle: 2, to_cycle: 3, summary: "s" },
      twoTurns(),
    );
    expect(proposalRecord(proposal)).toEqual({
      from_turn: 2,
      to_turn: 2,
      from_cycle: 2,
      to_cycle: 3,
      summary: "s",
    });
  });

  it("matches the event it wrote, cycles included, and tells what stays", () => {
    const events = twoTurns();
    const { proposal } = validOf({ from_turn: 2, to_turn: 2, to_cycle: 3, summary: "s" }, events);
    const event = planEvent(proposal, events);
    expect(event).toMatchObject({
      from_turn: 1,
      to_turn: 1,
      cycles: { from: 0, to: 2, summary: { summary: "s", source: "supplied", author: "assistant" } },
    });
    expect(compactionMatchesProposal(event, proposal)).toBe(true);
    const other = validOf({ from_turn: 2, to_turn: 2, to_cycle: 2, summary: "s" }, events).proposal;
    expect(compactionMatchesProposal(event, other)).toBe(false);
    expect(renderContinuePrompt(proposal, 2).split("\n")[1]).toBe(
      "The conversation now has 2 turns; turn 2 from cycle 4 stays uncompacted.",
    );
  });
});

describe("the review's history", () => {
  it("marks the first result of each cycle in a turn of several cycles", () => {
    const events = [
      ...agentTurn(build, "q0", [], "plain answer"),
      ...agentTurn(build, "q1", [{ calls: 2 }, { calls: 1 }]),
    ];
    const history = buildReviewHistory(events, { keepCompactions: false });
    const texts = history.flatMap((event) =>
      event.type === "chat_request" || event.type === "tool_call_response"
        ? [event.content.slice(0, 24)]
        : [],
    );
    expect(texts).toEqual([
      "[turn 1] q0",
      "[turn 2] q1",
      "[turn 2, cycle 1] conten",
      "contents of cycle 0 call",
      "[turn 2, cycle 2] conten",
    ]);
  });
});

/** The one event an agreed proposal's plan realizes into. */
function planEvent(proposal: ReviewProposal, events: readonly ConversationEvent[]): Compaction {
  const plan = reviewCompactionPlan(proposal, "r1", events, "2026-01-01T00:00:00Z");
  if (plan.kind !== "planned") throw new Error(plan.kind);
  expect(plan.segments).toHaveLength(1);
  return realizePlan(plan, [], { newEventId: () => "c1", now: () => "2026-01-01T00:00:00Z" })[0]!;
}
