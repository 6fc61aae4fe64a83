/** The pure request builder: visibility, alternation, tool pairing, reasoning rendering. */
import { describe, expect, it } from "vitest";
import type { TurnEvent } from "../../src/core/conversation/events.js";
import { buildLlmRequest, INTERRUPTED_TOOL_RESULT } from "../../src/core/conversation/request.js";
import { toAnthropicRequest } from "../../src/llm/anthropic-request.js";
import { createEventBuilder } from "../helpers/builders.js";

function requestFor(events: TurnEvent[]) {
  return buildLlmRequest([{ events }]);
}

describe("buildLlmRequest", () => {
  it("alternates roles, merging adjacent content of one role", () => {
    const build = createEventBuilder();
    const events = [
      build.turnStart(),
      build.request("q0"),
      build.message("a0"),
      build.message("a0 again"),
      build.turnStart(),
      build.request("q1"),
      build.request("q1 more"),
    ];
    expect(requestFor(events).messages).toEqual([
      { role: "user", parts: [{ type: "text", text: "q0" }] },
      {
        role: "assistant",
        parts: [
          { type: "text", text: "a0" },
          { type: "text", text: "a0 again" },
        ],
      },
      {
        role: "user",
        parts: [
          { type: "text", text: "q1" },
          { type: "text", text: "q1 more" },
        ],
      },
    ]);
  });

  it("keeps reasoning as reasoning, with its signature when signed, and Gemini's signatures on their parts", () => {
    const build = createEventBuilder();
    const signed = {
      ...build.reasoning("signed thought"),
      metadata: { anthropic_thinking_signature: "sig" },
    };
    const gemini = { ...build.message("a"), metadata: { google_thought_signature: "g-sig" } };
    const events = [
      build.request("q"),
      build.reasoning("plain thought"),
      signed,
      gemini,
      build.request("more"),
    ];
    expect(requestFor(events).messages[1]).toEqual({
      role: "assistant",
      parts: [
        { type: "reasoning", text: "plain thought" },
        { type: "reasoning", text: "signed thought", signature: "sig" },
        { type: "text", text: "a", thoughtSignature: "g-sig" },
      ],
    });
    // Only signed reasoning goes to Anthropic as thinking; the rest as jp's `<think>` text.
    expect(toAnthropicRequest(requestFor(events), "claude", { cache: false }).messages[1]!.content).toEqual([
      { type: "text", text: "<think>\nplain thought\n</think>\n\n" },
      { type: "thinking", thinking: "signed thought", signature: "sig" },
      { type: "text", text: "a" },
    ]);
  });

  it("sends structured data as JSON text and drops empty and invisible events", () => {
    const build = createEventBuilder();
    const data = { ...build.message("x"), message: undefined, data: { answer: 42 } } as unknown as TurnEvent;
    const inquiry: TurnEvent = {
      type: "inquiry_request",
      id: "i1",
      ts: build.now(),
      inquiry_id: "i",
      source: "tool",
      question: "?",
    };
    const events = [
      build.turnStart(),
      build.request(""),
      build.request("q"),
      inquiry,
      data,
      build.message(""),
    ];
    expect(requestFor(events).messages).toEqual([
      { role: "user", parts: [{ type: "text", text: "q" }] },
      { role: "assistant", parts: [{ type: "text", text: '{"answer":42}' }] },
    ]);
  });

  it("pairs tool results with calls, tool results leading their user message", () => {
    const build = createEventBuilder();
    const call = build.toolRequest({ name: "read_file", callId: "c1", arguments: { path: "a" } });
    const events = [build.request("q"), call, build.toolResponse("c1", "contents"), build.request("next")];
    expect(requestFor(events).messages).toEqual([
      { role: "user", parts: [{ type: "text", text: "q" }] },
      {
        role: "assistant",
        parts: [{ type: "tool-call", id: "c1", name: "read_file", arguments: { path: "a" } }],
      },
      {
        role: "user",
        parts: [
          { type: "tool-result", callId: "c1", toolName: "read_file", content: "contents", isError: false },
          { type: "text", text: "next" },
        ],
      },
    ]);
  });

  it("answers an unanswered call with a synthetic error and drops an orphan result", () => {
    const build = createEventBuilder();
    const events = [
      build.request("q"),
      build.toolRequest({ name: "run", callId: "c1" }),
      build.message("interrupted"),
      build.request("q2"),
      build.toolResponse("c1", "late result"),
      build.toolResponse("ghost", "orphan"),
      build.message("a2"),
    ];
    const messages = requestFor(events).messages;
    expect(messages).toHaveLength(4);
    expect(messages[2]).toEqual({
      role: "user",
      parts: [
        { type: "tool-result", callId: "c1", toolName: "run", content: "late result", isError: false },
        { type: "text", text: "q2" },
      ],
    });
    const trailing = requestFor([
      build.request("q"),
      build.toolRequest({ name: "run", callId: "c9" }),
    ]).messages;
    expect(trailing.at(-1)).toEqual({
      role: "user",
      parts: [
        {
          type: "tool-result",
          callId: "c9",
          toolName: "run",
          content: INTERRUPTED_TOOL_RESULT,
          isError: true,
        },
      ],
    });
    const orphanOnly = requestFor([build.request("q"), build.toolResponse("nobody", "x")]).messages;
    expect(orphanOnly).toEqual([{ role: "user", parts: [{ type: "text", text: "q" }] }]);
  });

  it("gives the synthetic result when the next assistant content starts before any answer", () => {
    const build = createEventBuilder();
    const events = [
      build.request("q"),
      build.toolRequest({ name: "run", callId: "c1" }),
      build.request("interjection"),
      build.message("a"),
      build.toolResponse("c1", "too late"),
    ];
    const messages = requestFor(events).messages;
    expect(messages[2]).toEqual({
      role: "user",
      parts: [
        {
          type: "tool-result",
          callId: "c1",
          toolName: "run",
          content: INTERRUPTED_TOOL_RESULT,
          isError: true,
        },
        { type: "text", text: "interjection" },
      ],
    });
    expect(messages).toHaveLength(4);
  });

  it("carries system, tools, tool choice and output limit", () => {
    const build = createEventBuilder();
    const request = buildLlmRequest([{ events: [build.request("q")] }], {
      system: "sys",
      tools: [{ name: "t", parameters: { type: "object" } }],
      toolChoice: { type: "tool", name: "t" },
      maxOutputTokens: 100,
    });
    expect(request).toMatchObject({
      system: "sys",
      toolChoice: { type: "tool", name: "t" },
      maxOutputTokens: 100,
    });
    expect(buildLlmRequest([], { system: "" })).toEqual({ messages: [], tools: [] });
  });
});
