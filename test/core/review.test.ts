/**
 * The pure rules of interactive compaction review (seed D66, Phase 1 and the decisions of
 * Phases 2–3): open-review checks, proposal validation and growth, rendering, the current
 * proposal, `--continue` decisions (incl. the re-run after a crash), and the review's history.
 */
import { beforeEach, describe, expect, it } from "vitest";
import type { Compaction, ConversationEvent } from "../../src/core/conversation/events.js";
import { realizePlan } from "../../src/compaction/core/realize.js";
import { projectConversation } from "../../src/core/conversation/projection.js";
import {
  buildOpeningProposal,
  buildReviewHistory,
  checkNoOpenReview,
  compactionMatchesProposal,
  findLatestProposal,
  findOpenReviews,
  NATIVE_DRAFT_METADATA_KEY,
  nativeDraftOutcome,
  type ProposalSource,
  planContinue,
  PROPOSAL_METADATA_KEY,
  proposalRecord,
  renderContinuePrompt,
  renderProposalLine,
  renderProposalResult,
  type ReviewProposal,
  reviewCompactionPlan,
  validateProposal,
} from "../../src/compaction/core/review/review.js";
import { countTurns } from "../../src/core/conversation/turns.js";
import { createEventBuilder, type EventBuilder } from "../helpers/builders.js";

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

/** Review events holding one propose_compaction call and its result. */
function proposalCall(
  argumentsObject: Record<string, unknown>,
  result: string,
  options: { isError?: boolean; callId?: string } = {},
): ConversationEvent[] {
  const request = build.toolRequest({
    name: "propose_compaction",
    arguments: argumentsObject,
    ...(options.callId === undefined ? {} : { callId: options.callId }),
  });
  return [request, build.toolResponse(request.call_id, result, options.isError ?? false)];
}

/** The event the pipeline builds from an agreed proposal's plan (src/compaction/apply.ts). */
function reviewEvent(
  proposal: ReviewProposal,
  sourceEvents: readonly ConversationEvent[],
  options: { readonly id: string; readonly ts: string; readonly reviewId: string },
): Compaction {
  const plan = reviewCompactionPlan(proposal, options.reviewId, sourceEvents, options.ts);
  if (plan.kind !== "planned") throw new Error(plan.kind);
  expect(plan.segments).toHaveLength(1);
  const [event] = realizePlan(plan, [], { newEventId: () => options.id, now: () => options.ts });
  return event!;
}

describe("one open review per source", () => {
  const records = [
    { id: "rev-b", archived: false, compactionSource: "src1" },
    { id: "rev-a", archived: true, compactionSource: "src1" },
    { id: "other", archived: false },
    { id: "rev-c", archived: false, compactionSource: "src2" },
  ];

  it("finds only live reviews naming the source; archived reviews never block", () => {
    expect(findOpenReviews(records, "src1")).toEqual(["rev-b"]);
    expect(findOpenReviews(records, "other")).toEqual([]);
    expect(checkNoOpenReview(records.slice(1), "src1", "start")).toBeUndefined();
  });

  it("refuses a second review, pointing at the open one", () => {
    const refusal = checkNoOpenReview(records, "src1", "start");
    expect(refusal?.reviewId).toBe("rev-b");
    expect(refusal?.message).toBe("a review of this conversation is already open: rev-b");
    expect(refusal?.hint).toBe(
      "switch to it with `cxc conversation use rev-b`, then discuss, `--continue`, or `--abort`",
    );
  });

  it("refuses compaction writes to a source under review with the finish-it-first message", () => {
    const refusal = checkNoOpenReview(records, "src2", "compact");
    expect(refusal?.message).toBe("a compaction review of this conversation is open: rev-c");
    expect(refusal?.hint).toBe(
      "finish it first: `cxc conversation use rev-c`, then discuss, `--continue`, or `--abort`",
    );
  });

  it("an unarchived old review blocks again", () => {
    const unarchived = records.map((record) =>
      record.id === "rev-a" ? { ...record, archived: false } : record,
    );
    expect(findOpenReviews(unarchived, "src1")).toEqual(["rev-a", "rev-b"]);
  });
});

describe("validateProposal: bounds, order, policy values", () => {
  it("accepts a 1-based summary range and reports the turn count", () => {
    const events = build.turns(20);
    const validation = validOf({ from_turn: 1, to_turn: 17, summary: "S" }, events);
    expect(validation.proposal).toEqual({
      fromTurn: 1,
      toTurn: 17,
      requested: { fromTurn: 1, toTurn: 17 },
      summary: "S",
    });
    expect(validation.turnCount).toBe(20);
    expect(validation.grownOver).toEqual([]);
  });

  it("says how many turns there are when to_turn is past the end", () => {
    expect(errorOf({ from_turn: 1, to_turn: 25, summary: "S" }, build.turns(20))).toBe(
      "the conversation has 20 turns, `to_turn` was 25",
    );
  });

  it("rejects from_turn past the end, below 1, and non-integers", () => {
    const events = build.turns(3);
    expect(errorOf({ from_turn: 4, to_turn: 3, summary: "S" }, events)).toBe(
      "the conversation has 3 turns, `from_turn` was 4",
    );
    expect(errorOf({ from_turn: 0, to_turn: 2, summary: "S" }, events)).toContain(
      "`from_turn` must be at least 1 (turns are numbered from 1), got 0",
    );
    expect(errorOf({ from_turn: 1.5, to_turn: 2, summary: "S" }, events)).toContain(
      "`from_turn` must be a whole turn number, got 1.5",
    );
    expect(errorOf({ to_turn: 2, summary: "S" }, events)).toContain("`from_turn` is required");
  });

  it("rejects a backwards range", () => {
    expect(errorOf({ from_turn: 9, to_turn: 5, summary: "S" }, build.turns(10))).toBe(
      "`from_turn` (9) is after `to_turn` (5); the range must run forwards",
    );
  });

  it("accepts the last turn as the end and a single-turn range", () => {
    const validation = validOf({ from_turn: 3, to_turn: 3, reasoning: "strip" }, build.turns(3));
    expect(renderProposalLine(validation.proposal, validation.turnCount)).toBe(
      "Proposed: compact turn 3 of 3 (strip reasoning)",
    );
  });

  it("parses policy values (aliases included) and rejects unknown ones", () => {
    const events = build.turns(4);
    expect(validOf({ from_turn: 1, to_turn: 2, tool_calls: "sres" }, events).proposal.toolCalls).toBe(
      "strip-responses",
    );
    expect(errorOf({ from_turn: 1, to_turn: 2, reasoning: "keep" }, events)).toContain(
      '`reasoning` must be "strip" or left out, got "keep"',
    );
    expect(errorOf({ from_turn: 1, to_turn: 2, tool_calls: "drop" }, events)).toContain(
      "`tool_calls` must be one of strip, strip-requests, strip-responses, omit",
    );
  });

  it("treats null as absent (strict tool modes) and accepts digit strings as turn numbers", () => {
    const validation = validOf(
      { from_turn: "2", to_turn: 3, summary: "S", reasoning: null, tool_calls: null },
      build.turns(4),
    );
    expect(validation.proposal).toMatchObject({ fromTurn: 2, toTurn: 3, summary: "S" });
    expect(validation.proposal.reasoning).toBeUndefined();
  });

  it("rejects unknown fields, empty summaries and proposals that change nothing", () => {
    const events = build.turns(4);
    expect(errorOf({ from_turn: 1, to_turn: 2, summary: "S", keep_last: 1 }, events)).toContain(
      "unknown field `keep_last`",
    );
    expect(errorOf({ from_turn: 1, to_turn: 2, summary: "  " }, events)).toContain("`summary` is empty");
    expect(errorOf({ from_turn: 1, to_turn: 2 }, events)).toBe(
      "the proposal changes nothing: give a `summary`, or `reasoning` and/or `tool_calls`",
    );
  });

  it("flags dead fields: a summary with reasoning or tool_calls", () => {
    const events = build.turns(4);
    const message = errorOf(
      { from_turn: 1, to_turn: 2, summary: "S", reasoning: "strip", tool_calls: "strip" },
      events,
    );
    expect(message).toContain(
      "a `summary` replaces the turns entirely, so `reasoning` and `tool_calls` would change nothing",
    );
    expect(errorOf({ from_turn: 1, to_turn: 2, summary: "S", tool_calls: "omit" }, events)).toContain(
      "so `tool_calls` would change nothing",
    );
  });

  it("reports every problem at once, one per line", () => {
    const message = errorOf({ from_turn: 0, to_turn: 30, summary: "S", reasoning: "strip" }, build.turns(20));
    expect(message.split("\n")).toHaveLength(3);
    expect(message).toContain("the conversation has 20 turns, `to_turn` was 30");
  });

  it("is an error in a conversation that records no source, and when the source is gone", () => {
    const none = validateProposal({ from_turn: 1, to_turn: 1, summary: "S" }, { kind: "none" });
    expect(none.ok).toBe(false);
    expect(!none.ok && none.message).toMatch(
      /^this conversation records no source: it is not a compaction review/,
    );
    const missing = validateProposal(
      { from_turn: 1, to_turn: 1, summary: "S" },
      { kind: "missing", id: "gone1" },
    );
    expect(!missing.ok && missing.message).toContain("the source conversation gone1 no longer exists");
    expect(!missing.ok && missing.message).toContain("--abort");
  });

  it("validates against the source as it stands: a grown source widens the valid range", () => {
    const events = build.turns(20);
    expect(validateProposal({ from_turn: 1, to_turn: 22, summary: "S" }, source(events)).ok).toBe(false);
    const grown = [...events, ...build.turns(2)];
    expect(validOf({ from_turn: 1, to_turn: 22, summary: "S" }, grown).turnCount).toBe(22);
  });
});

describe("validateProposal: summary-overlap growth is applied at once", () => {
  it("grows a summary range over an existing summary it partially overlaps (transitively)", () => {
    const events: ConversationEvent[] = [
      ...build.turns(12),
      build.compaction({ from: 2, to: 6, summary: "old A" }), // turns 3..7
      build.compaction({ from: 7, to: 9, summary: "old B" }), // turns 8..10
    ];
    const validation = validOf({ from_turn: 5, to_turn: 8, summary: "new" }, events);
    expect(validation.proposal).toMatchObject({
      fromTurn: 3,
      toTurn: 10,
      requested: { fromTurn: 5, toTurn: 8 },
    });
    expect(validation.grownOver).toEqual([
      { fromTurn: 3, toTurn: 7 },
      { fromTurn: 8, toTurn: 10 },
    ]);
    const result = renderProposalResult(validation);
    expect(result.split("\n")[0]).toBe("Proposed: compact turns 3..10 of 12 (summarize)");
    expect(result).toContain("The range grew from 5..8 to 3..10");
    // The final range is recorded as data beside the text, never read back from it.
    expect(proposalRecord(validation.proposal)).toEqual({ from_turn: 3, to_turn: 10, summary: "new" });
  });

  it("does not grow a range that covers or avoids existing summaries, nor a mechanical proposal", () => {
    const events: ConversationEvent[] = [
      ...build.turns(10),
      build.compaction({ from: 2, to: 4, summary: "old" }),
    ];
    expect(validOf({ from_turn: 1, to_turn: 6, summary: "S" }, events).proposal.fromTurn).toBe(1);
    expect(validOf({ from_turn: 6, to_turn: 8, summary: "S" }, events).proposal.fromTurn).toBe(6);
    expect(validOf({ from_turn: 4, to_turn: 8, reasoning: "strip" }, events).proposal.fromTurn).toBe(4);
  });

  it("ignores retired summaries", () => {
    const old = build.compaction({ from: 2, to: 4, summary: "old" });
    const events: ConversationEvent[] = [...build.turns(10), old, build.reset([old.id])];
    expect(validOf({ from_turn: 4, to_turn: 8, summary: "S" }, events).proposal.fromTurn).toBe(4);
  });
});

describe("rendering", () => {
  it("renders the seed's line, with and without the turn count", () => {
    const validation = validOf({ from_turn: 1, to_turn: 17, summary: "S" }, build.turns(20));
    expect(renderProposalLine(validation.proposal, 20)).toBe(
      "Proposed: compact turns 1..17 of 20 (summarize)",
    );
    expect(renderProposalLine(validation.proposal)).toBe("Proposed: compact turns 1..17 (summarize)");
  });

  it("labels mechanical policies", () => {
    const validation = validOf(
      { from_turn: 2, to_turn: 4, reasoning: "strip", tool_calls: "omit" },
      build.turns(5),
    );
    expect(renderProposalLine(validation.proposal, 5)).toBe(
      "Proposed: compact turns 2..4 of 5 (strip reasoning + omit tool calls)",
    );
  });

  it("shows how far the source has grown in the confirmation", () => {
    const validation = validOf({ from_turn: 1, to_turn: 17, summary: "the summary" }, build.turns(20));
    expect(renderContinuePrompt(validation.proposal, 24)).toBe(
      "Proposed: compact turns 1..17 (summarize)\n" +
        "The conversation now has 24 turns; 7 turns stay uncompacted.\n\nthe summary",
    );
    expect(renderContinuePrompt(validation.proposal, 18)).toContain("; 1 turn stays uncompacted.");
  });
});

describe("findLatestProposal", () => {
  it("takes the latest successful call, skipping failed calls and other tools", () => {
    const events: ConversationEvent[] = [
      ...build.turns(2),
      ...proposalCall(
        { from_turn: 1, to_turn: 1, summary: "first" },
        "Proposed: compact turns 1..1 of 2 (summarize)",
      ),
      ...proposalCall(
        { from_turn: 1, to_turn: 2, summary: "second" },
        "Proposed: compact turns 1..2 of 2 (summarize)",
      ),
      ...proposalCall(
        { from_turn: 1, to_turn: 9, summary: "bad" },
        "the conversation has 2 turns, `to_turn` was 9",
        {
          isError: true,
        },
      ),
      ...build.turn("chat after the proposal", { tools: [{ name: "other_tool" }] }),
    ];
    // A result written before proposals were recorded as data: the call's own arguments.
    const latest = findLatestProposal(events);
    expect(latest?.arguments).toEqual({ from_turn: 1, to_turn: 2, summary: "second" });
  });

  it("reads the proposal a result recorded as data, not the call's arguments", () => {
    const [request, response] = proposalCall(
      { from_turn: 5, to_turn: 8, summary: "new" },
      "Proposed: compact turns 3..10 of 12 (summarize)",
    );
    const recorded = {
      ...response!,
      metadata: { [PROPOSAL_METADATA_KEY]: { from_turn: 3, to_turn: 10, summary: "new" } },
    } as ConversationEvent;
    expect(findLatestProposal([...build.turns(12), request!, recorded])?.arguments).toEqual({
      from_turn: 3,
      to_turn: 10,
      summary: "new",
    });
  });

  it("finds nothing in a conversation without a successful call", () => {
    expect(findLatestProposal(build.turns(3))).toBeUndefined();
    const unanswered = build.toolRequest({ name: "propose_compaction", arguments: { from_turn: 1 } });
    expect(findLatestProposal([...build.turns(1), unanswered])).toBeUndefined();
  });
});

describe("planContinue", () => {
  function reviewWith(calls: ConversationEvent[]) {
    return { id: "rev1", compactionSource: "src1", events: [...build.turns(1), ...calls] };
  }

  it("is not a review without a source field", () => {
    const decision = planContinue({ review: { id: "plain", events: [] } });
    expect(decision.kind).toBe("not-a-review");
  });

  it("points at --abort when the source was deleted", () => {
    const decision = planContinue({ review: reviewWith([]) });
    expect(decision.kind).toBe("source-deleted");
    if (decision.kind === "source-deleted") {
      expect(decision.message).toContain("the source conversation src1 no longer exists");
      expect(decision.hint).toContain("--abort");
    }
  });

  it("is a clear error when no proposal was ever recorded", () => {
    const decision = planContinue({
      review: reviewWith([]),
      source: { archived: false, events: build.turns(3) },
    });
    expect(decision.kind).toBe("no-proposal");
    if (decision.kind === "no-proposal") expect(decision.message).toContain("no proposal");
  });

  it("applies the latest proposal with its recorded range, telling how far the source grew", () => {
    const review = reviewWith(
      proposalCall(
        { from_turn: 1, to_turn: 17, summary: "S" },
        "Proposed: compact turns 1..17 of 20 (summarize)",
      ),
    );
    const decision = planContinue({ review, source: { archived: false, events: build.turns(24) } });
    expect(decision.kind).toBe("apply");
    if (decision.kind !== "apply") return;
    expect(decision.proposal).toMatchObject({ fromTurn: 1, toTurn: 17, summary: "S" });
    expect(decision.prompt.split("\n").slice(0, 2)).toEqual([
      "Proposed: compact turns 1..17 (summarize)",
      "The conversation now has 24 turns; 7 turns stay uncompacted.",
    ]);
  });

  it("re-validates the recorded (already grown) range, not the raw arguments", () => {
    const sourceEvents: ConversationEvent[] = [
      ...build.turns(12),
      build.compaction({ from: 2, to: 6, summary: "old" }),
    ];
    const review = reviewWith(
      proposalCall(
        { from_turn: 5, to_turn: 10, summary: "S" },
        "Proposed: compact turns 3..10 of 12 (summarize)",
      ),
    );
    const decision = planContinue({ review, source: { archived: false, events: sourceEvents } });
    expect(decision.kind === "apply" && decision.proposal.fromTurn).toBe(3);
  });

  it("applies to an archived source normally", () => {
    const review = reviewWith(
      proposalCall({ from_turn: 1, to_turn: 2, reasoning: "strip" }, "Proposed: compact turns 1..2 of 3"),
    );
    expect(planContinue({ review, source: { archived: true, events: build.turns(3) } }).kind).toBe("apply");
  });

  it("refuses a proposal that no longer fits the source", () => {
    const review = reviewWith(
      proposalCall({ from_turn: 1, to_turn: 17, summary: "S" }, "Proposed: compact turns 1..17 of 20"),
    );
    const decision = planContinue({ review, source: { archived: false, events: build.turns(5) } });
    expect(decision.kind).toBe("invalid");
    if (decision.kind === "invalid")
      expect(decision.message).toContain("the conversation has 5 turns, `to_turn` was 17");
  });

  it("recognises a re-run after a crash between apply and archive", () => {
    const review = reviewWith(
      proposalCall(
        { from_turn: 1, to_turn: 3, summary: "S" },
        "Proposed: compact turns 1..3 of 5 (summarize)",
      ),
    );
    const sourceEvents = build.turns(5);
    const first = planContinue({ review, source: { archived: false, events: sourceEvents } });
    if (first.kind !== "apply") throw new Error(first.kind);
    const applied = reviewEvent(first.proposal, sourceEvents, {
      id: "c1",
      ts: build.now(),
      reviewId: "rev1",
    });
    const rerun = planContinue({ review, source: { archived: false, events: [...sourceEvents, applied] } });
    expect(rerun.kind).toBe("already-applied");
  });

  it("does not mistake a different latest compaction for the proposal", () => {
    const review = reviewWith(
      proposalCall(
        { from_turn: 1, to_turn: 3, summary: "S" },
        "Proposed: compact turns 1..3 of 5 (summarize)",
      ),
    );
    const other = build.compaction({ from: 0, to: 2, summary: "not S" });
    const decision = planContinue({
      review,
      source: { archived: false, events: [...build.turns(5), other] },
    });
    expect(decision.kind).toBe("apply");
  });
});

describe("reviewCompactionPlan", () => {
  it("translates to 0-based turns only here, with the negotiated policies", () => {
    const source = build.turns(6);
    const validation = validOf({ from_turn: 2, to_turn: 4, summary: "S" }, source);
    const event = reviewEvent(validation.proposal, source, {
      id: "c1",
      ts: "2026-01-01T00:00:00.000000Z",
      reviewId: "r1",
    });
    expect(event).toEqual({
      type: "compaction",
      id: "c1",
      ts: "2026-01-01T00:00:00.000000Z",
      from_turn: 1,
      to_turn: 3,
      summary: { summary: "S", source: "supplied", author: "assistant" },
      source: "user",
      note: "agreed in compaction review r1",
    });
    expect(compactionMatchesProposal(event, validation.proposal)).toBe(true);
  });

  it("writes the mechanical policies in the event's shape", () => {
    const source = build.turns(3);
    const validation = validOf(
      { from_turn: 1, to_turn: 2, reasoning: "strip", tool_calls: "strip-requests" },
      source,
    );
    const event = reviewEvent(validation.proposal, source, { id: "c1", ts: "t", reviewId: "r1" });
    expect(event.reasoning).toBe("strip");
    expect(event.tool_calls).toEqual({ policy: "strip", request: true, response: false });
    expect(event.summary).toBeUndefined();
  });
});

describe("buildReviewHistory", () => {
  it("marks every copied turn's user message with its 1-based source number", () => {
    const events = [...build.turn("first"), ...build.turn("second", { tools: [{ name: "read" }] })];
    const history = buildReviewHistory(events, { keepCompactions: false });
    const requests = history.filter((event) => event.type === "chat_request").map((event) => event.content);
    expect(requests).toEqual(["[turn 1] first", "[turn 2] second"]);
    expect(events[1]).toMatchObject({ content: "first" }); // the input is untouched
  });

  it("drops copied compactions and resets when raw events fit, keeps them otherwise", () => {
    const events: ConversationEvent[] = [
      ...build.turns(4),
      build.compaction({ from: 0, to: 1, summary: "sum" }),
    ];
    const raw = buildReviewHistory(events, { keepCompactions: false });
    expect(raw.some((event) => event.type === "compaction")).toBe(false);
    expect(countTurns(raw)).toBe(4);
    const kept = buildReviewHistory(events, { keepCompactions: true });
    const view = projectConversation(kept);
    expect(view.turns[0]?.origin).toMatchObject({ kind: "summary", from: 0, to: 1 });
    expect(view.turns.map((turn) => turn.origin.kind)).toEqual(["summary", "kept", "kept"]);
  });
});

describe("buildOpeningProposal", () => {
  it("records the summarizer's draft byte for byte as a propose_compaction call with its result", () => {
    const draft = "## Summary\n\n- kept `src/a.ts`\n  trailing spaces  \n";
    const events = build.turns(6);
    const validation = validOf({ from_turn: 2, to_turn: 5, summary: draft }, events);
    let counter = 0;
    const opening = buildOpeningProposal(validation, {
      callId: "call-open",
      stamp: () => ({ id: `o${++counter}`, ts: build.now() }),
    });
    expect(opening.map((event) => event.type)).toEqual([
      "turn_start",
      "chat_request",
      "tool_call_request",
      "tool_call_response",
      "chat_response",
    ]);
    const request = opening[2];
    expect(request?.type === "tool_call_request" && request.arguments).toEqual({
      from_turn: 2,
      to_turn: 5,
      summary: draft,
    });
    const response = opening[3];
    expect(response?.type === "tool_call_response" && response.content.split("\n")[0]).toBe(
      "Proposed: compact turns 2..5 of 6 (summarize)",
    );
    // The review's own turn carries no marker, and the draft is found as the current proposal.
    expect(opening[1]?.type === "chat_request" && opening[1].content.startsWith("[turn")).toBe(false);
    const latest = findLatestProposal([
      ...buildReviewHistory(events, { keepCompactions: false }),
      ...opening,
    ]);
    expect(latest?.arguments.summary).toBe(draft);
  });
});

describe("nativeDraftOutcome: the provider's own draft survives only with its range and text", () => {
  const native = {
    format: "anthropic-compaction" as const,
    provider: "anthropic",
    model: "anthropic/claude-opus-4-6",
    content: "The drafted summary.",
    signature: "sig",
  };
  const opening = (): ConversationEvent[] => {
    const response = build.toolResponse("call_open", "Recorded.");
    return [
      {
        ...response,
        metadata: {
          [NATIVE_DRAFT_METADATA_KEY]: native,
          [PROPOSAL_METADATA_KEY]: { from_turn: 1, to_turn: 6, summary: native.content },
        },
      },
    ];
  };
  const proposal = (fromTurn: number, toTurn: number, summary: string): ReviewProposal => ({
    fromTurn,
    toTurn,
    requested: { fromTurn, toTurn },
    summary,
  });

  it("keeps it unchanged, and says what a proposal changed otherwise", () => {
    expect(nativeDraftOutcome(opening(), proposal(1, 6, native.content))).toEqual({ kind: "kept", native });
    expect(nativeDraftOutcome(opening(), proposal(1, 6, "Edited."))).toEqual({
      kind: "dropped",
      native,
      changed: ["text"],
    });
    expect(nativeDraftOutcome(opening(), proposal(1, 5, native.content))).toEqual({
      kind: "dropped",
      native,
      changed: ["range"],
    });
    expect(nativeDraftOutcome(opening(), proposal(2, 6, "Edited."))).toEqual({
      kind: "dropped",
      native,
      changed: ["text", "range"],
    });
  });

  it("is nothing when the review opened without a native draft", () => {
    expect(nativeDraftOutcome([build.toolResponse("call_open", "Recorded.")], proposal(1, 6, "x"))).toBe(
      undefined,
    );
  });
});
