/**
 * The pure stream fold: which events come out, when, and what a cut stream leaves behind.
 */
import { describe, expect, it } from "vitest";
import {
  createStreamFold,
  type EventDraft,
  type FoldableStreamEvent,
  foldStreamEvent,
  interruptStreamFold,
  type StreamOutcome,
  stampDraft,
} from "../../src/core/conversation/fold-stream.js";

const usage = { inputTokens: 12, outputTokens: 7, cacheReadTokens: 3, cacheWriteTokens: 0 };

/** Folds a list of events and records after which input each draft came out. */
function fold(events: FoldableStreamEvent[]): {
  drafts: { after: number; draft: EventDraft }[];
  outcome: StreamOutcome | undefined;
} {
  let state = createStreamFold();
  const drafts: { after: number; draft: EventDraft }[] = [];
  let outcome: StreamOutcome | undefined;
  events.forEach((event, position) => {
    const step = foldStreamEvent(state, event);
    state = step.state;
    for (const draft of step.drafts) drafts.push({ after: position, draft });
    if (step.outcome) outcome = step.outcome;
  });
  return { drafts, outcome };
}

describe("foldStreamEvent", () => {
  it("joins text deltas into one message stored at message-end with the usage", () => {
    const result = fold([
      { type: "text-delta", text: "Hel" },
      { type: "usage", usage },
      { type: "text-delta", text: "lo" },
      { type: "message-end", finishReason: "stop", providerReason: "end_turn", usage },
    ]);
    expect(result.drafts).toEqual([
      {
        after: 3,
        draft: {
          type: "chat_response",
          message: "Hello",
          metadata: {
            usage: {
              input_tokens: 12,
              output_tokens: 7,
              cache_read_input_tokens: 3,
              cache_creation_input_tokens: 0,
            },
          },
        },
      },
    ]);
    expect(result.outcome).toEqual({ kind: "finished", finishReason: "stop", providerReason: "end_turn" });
  });

  it("stores a signed reasoning block as soon as its signature arrives, before the text", () => {
    const result = fold([
      { type: "reasoning-delta", text: "think " },
      { type: "reasoning-delta", text: "hard" },
      { type: "reasoning-delta", text: "", signature: "sig-1" },
      { type: "text-delta", text: "answer" },
      { type: "message-end", finishReason: "stop", usage },
    ]);
    expect(result.drafts.map((entry) => [entry.after, entry.draft])).toEqual([
      [
        2,
        {
          type: "chat_response",
          reasoning: "think hard",
          metadata: { anthropic_thinking_signature: "sig-1" },
        },
      ],
      [4, expect.objectContaining({ type: "chat_response", message: "answer" })],
    ]);
  });

  it("closes unsigned reasoning when text starts, and text when a tool call arrives; the last call gets the usage", () => {
    const result = fold([
      { type: "reasoning-delta", text: "plan" },
      { type: "text-delta", text: "Let me look." },
      { type: "tool-call", id: "call-1", name: "read", arguments: { path: "a.ts" } },
      { type: "tool-call", id: "call-2", name: "read", arguments: { path: "b.ts" } },
      { type: "message-end", finishReason: "tool-calls", usage: { ...usage, reasoningTokens: 2 } },
    ]);
    expect(result.drafts.map((entry) => [entry.after, entry.draft])).toEqual([
      [1, { type: "chat_response", reasoning: "plan" }],
      [2, { type: "chat_response", message: "Let me look." }],
      // A call is held until the next one arrives or the answer ends, so the last carries the usage.
      [3, { type: "tool_call_request", call_id: "call-1", name: "read", arguments: { path: "a.ts" } }],
      [
        4,
        {
          type: "tool_call_request",
          call_id: "call-2",
          name: "read",
          arguments: { path: "b.ts" },
          metadata: {
            usage: {
              input_tokens: 12,
              output_tokens: 7,
              cache_read_input_tokens: 3,
              cache_creation_input_tokens: 0,
              reasoning_tokens: 2,
            },
          },
        },
      ],
    ]);
  });

  it("flushes a held call when the stream fails or is given up", () => {
    const call = { type: "tool-call", id: "c", name: "run", arguments: {} } as const;
    const failed = fold([call, { type: "error", error: { kind: "network", message: "cut" } }]);
    expect(failed.drafts.map((entry) => entry.draft.type)).toEqual(["tool_call_request"]);
    const state = foldStreamEvent(createStreamFold(), call).state;
    expect(interruptStreamFold(state).drafts).toEqual([
      { type: "tool_call_request", call_id: "c", name: "run", arguments: {} },
    ]);
  });

  it("keeps invalid tool arguments in metadata", () => {
    const result = fold([
      { type: "tool-call", id: "c", name: "run", arguments: {}, invalidArguments: "{not json" },
      { type: "message-end", finishReason: "tool-calls", usage },
    ]);
    expect(result.drafts[0]!.draft).toEqual({
      type: "tool_call_request",
      call_id: "c",
      name: "run",
      arguments: {},
      metadata: { invalid_arguments: "{not json", usage: expect.objectContaining({ input_tokens: 12 }) },
    });
  });

  it("stores redacted reasoning opaque", () => {
    const result = fold([{ type: "redacted-reasoning", data: "opaque" }]);
    expect(result.drafts[0]!.draft).toEqual({
      type: "chat_response",
      reasoning: "",
      metadata: { anthropic_redacted_thinking: "opaque" },
    });
  });

  it("marks the partial block interrupted when the stream fails, and ignores anything after", () => {
    const result = fold([
      { type: "text-delta", text: "half an ans" },
      { type: "error", error: { kind: "network", message: "cut" } },
      { type: "text-delta", text: "ignored" },
    ]);
    expect(result.drafts).toEqual([
      { after: 1, draft: { type: "chat_response", message: "half an ans", interrupted: true } },
    ]);
    expect(result.outcome).toEqual({ kind: "failed", error: { kind: "network", message: "cut" } });
  });

  it("stores nothing for an empty block", () => {
    expect(
      fold([
        { type: "text-delta", text: "" },
        { type: "message-end", finishReason: "stop", usage },
      ]).drafts,
    ).toEqual([]);
  });
});

describe("interruptStreamFold", () => {
  it("flushes the open block as interrupted, once", () => {
    let state = foldStreamEvent(createStreamFold(), { type: "text-delta", text: "partial" }).state;
    const step = interruptStreamFold(state);
    expect(step.drafts).toEqual([{ type: "chat_response", message: "partial", interrupted: true }]);
    state = step.state;
    expect(interruptStreamFold(state).drafts).toEqual([]);
    expect(foldStreamEvent(state, { type: "text-delta", text: "late" }).drafts).toEqual([]);
  });
});

describe("stampDraft", () => {
  it("adds id and timestamp", () => {
    expect(stampDraft({ type: "chat_response", message: "x" }, { id: "e1", ts: "t" })).toEqual({
      type: "chat_response",
      message: "x",
      id: "e1",
      ts: "t",
    });
  });
});
