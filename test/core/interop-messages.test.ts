/**
 * OpenAI and Anthropic message arrays ↔ cxc events (pure): mapping, tool-call pairing, and round
 * trips (import → export gives the same messages).
 */
import { describe, expect, it } from "vitest";
import { countTurns } from "../../src/core/conversation/turns.js";
import {
  ANTHROPIC_SIGNATURE_KEY,
  exportAnthropicMessages,
  importAnthropicMessages,
} from "../../src/core/interop/anthropic-messages.js";
import {
  exportOpenAiMessages,
  importOpenAiMessages,
  INTERRUPTED_TOOL_RESULT,
  type NewEventSource,
} from "../../src/core/interop/openai-messages.js";
import type { ConversationEvent } from "../../src/core/conversation/events.js";

function counterSource(): NewEventSource {
  let counter = 0;
  return { newId: () => `E${++counter}`, now: () => "2026-01-01T00:00:00.000Z" };
}

function importOpenAi(value: unknown): ConversationEvent[] {
  const result = importOpenAiMessages(value, counterSource());
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

function importAnthropic(value: unknown): ConversationEvent[] {
  const result = importAnthropicMessages(value, counterSource());
  if (!result.ok) throw new Error(result.message);
  return result.value.events;
}

const openAiMessages = [
  { role: "system", content: "You are terse." },
  { role: "user", content: "Read the config." },
  {
    role: "assistant",
    content: "Reading it.",
    tool_calls: [
      { id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"a.toml"}' } },
      { id: "call_2", type: "function", function: { name: "read_file", arguments: '{ "path": "b.toml" }' } },
    ],
  },
  { role: "tool", tool_call_id: "call_1", content: "x = 1" },
  { role: "tool", tool_call_id: "call_2", content: "y = 2" },
  { role: "assistant", content: "x is 1 and y is 2." },
  { role: "user", content: [{ type: "text", text: "Thanks" }] },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "c3", type: "function", function: { name: "done", arguments: "{}" } }],
  },
  { role: "tool", tool_call_id: "c3", content: "ok" },
];

describe("OpenAI messages", () => {
  it("maps roles to events, one turn per user message", () => {
    const events = importOpenAi({ model: "gpt-x", messages: openAiMessages });
    expect(events.map((event) => event.type)).toEqual([
      "config_delta",
      "turn_start",
      "chat_request",
      "chat_response",
      "tool_call_request",
      "tool_call_request",
      "tool_call_response",
      "tool_call_response",
      "chat_response",
      "turn_start",
      "chat_request",
      "tool_call_request",
      "tool_call_response",
    ]);
    expect(countTurns(events)).toBe(2);
    expect(events[4]).toMatchObject({ call_id: "call_1", name: "read_file", arguments: { path: "a.toml" } });
    expect(events[0]).toMatchObject({ delta: { assistant: { system_prompt: "You are terse." } } });
  });

  it("round-trips: import then export gives the same messages", () => {
    expect(exportOpenAiMessages(importOpenAi(openAiMessages))).toEqual({ messages: openAiMessages });
    expect(exportOpenAiMessages(importOpenAi(openAiMessages), { model: "m" })).toMatchObject({ model: "m" });
  });

  it("pairs an unanswered tool call and drops an orphan result", () => {
    const events = importOpenAi([
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "a", type: "function", function: { name: "t", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "ghost", content: "nobody asked" },
      { role: "user", content: "and?" },
    ]);
    const exported = exportOpenAiMessages(events).messages as Record<string, unknown>[];
    expect(exported).toEqual([
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "a", type: "function", function: { name: "t", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "a", content: INTERRUPTED_TOOL_RESULT },
      { role: "user", content: "and?" },
    ]);
  });

  it("rejects what it cannot read, naming the message", () => {
    expect(importOpenAiMessages({ nope: true }, counterSource())).toMatchObject({ ok: false });
    expect(importOpenAiMessages([{ role: "wizard", content: "x" }], counterSource())).toEqual({
      ok: false,
      message: "message 1: unsupported role 'wizard'",
    });
    expect(importOpenAiMessages([{ role: "tool", content: "x" }], counterSource())).toMatchObject({
      ok: false,
      message: 'message 1: tool message has no "tool_call_id"',
    });
    // The input's own field names, and that they are missing.
    expect(importOpenAiMessages([{ role: "user" }], counterSource())).toEqual({
      ok: false,
      message: 'message 1: user message has no "content"',
    });
    expect(importOpenAiMessages([{ content: "x" }], counterSource())).toEqual({
      ok: false,
      message: 'message 1: message has no "role"',
    });
    const call = (toolCall: unknown) =>
      importOpenAiMessages([{ role: "assistant", content: null, tool_calls: [toolCall] }], counterSource());
    expect(call({ type: "function", function: { name: "x", arguments: "{}" } })).toEqual({
      ok: false,
      message: 'message 1, tool call 1: tool call has no "id"',
    });
    expect(call({ id: "a", type: "function", function: { arguments: "{}" } })).toEqual({
      ok: false,
      message: 'message 1, tool call 1: tool call has no "function.name"',
    });
    expect(call({ id: "a", function: "x" })).toEqual({
      ok: false,
      message: 'message 1, tool call 1: tool call "function" must be an object',
    });
  });

  it("refuses content parts it would otherwise drop unseen", () => {
    const parts = (content: unknown) => importOpenAiMessages([{ role: "user", content }], counterSource());
    expect(parts([{ type: "text", text: 5 }])).toEqual({
      ok: false,
      message: 'message 1: content part 1 "text" must be a string',
    });
    expect(parts([{ text: "no type" }])).toEqual({
      ok: false,
      message: 'message 1: content part 1 has no "type"',
    });
    expect(parts(["bare"])).toEqual({ ok: false, message: "message 1: content part 1 must be an object" });
    expect(
      parts([
        { type: "image_url", image_url: { url: "x" } },
        { type: "text", text: "ok" },
      ]).ok,
    ).toBe(true);
  });
});

const anthropicBody = {
  system: "You are terse.",
  messages: [
    { role: "user", content: "Read the config." },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "I should read it.", signature: "sig-1" },
        { type: "text", text: "Reading it." },
        { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.toml" } },
        { type: "tool_use", id: "toolu_2", name: "read_file", input: { path: "b.toml" } },
      ],
    },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_1", content: "x = 1" },
        { type: "tool_result", tool_use_id: "toolu_2", content: "missing", is_error: true },
        { type: "text", text: "Also check c.toml" },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "redacted_thinking", data: "opaque" },
        { type: "text", text: "Done." },
      ],
    },
    { role: "user", content: "Thanks" },
  ],
};

describe("Anthropic messages", () => {
  it("maps blocks to events; tool results continue the turn", () => {
    const events = importAnthropic(anthropicBody);
    expect(countTurns(events)).toBe(2);
    expect(events.find((event) => event.type === "chat_response")).toMatchObject({
      reasoning: "I should read it.",
      metadata: { [ANTHROPIC_SIGNATURE_KEY]: "sig-1" },
    });
    expect(events.filter((event) => event.type === "tool_call_response")[1]).toMatchObject({
      call_id: "toolu_2",
      is_error: true,
    });
  });

  it("round-trips: import then export gives the same body", () => {
    expect(exportAnthropicMessages(importAnthropic(anthropicBody))).toEqual(anthropicBody);
  });

  it("exports OpenAI-imported events as an alternating Anthropic body", () => {
    const body = exportAnthropicMessages(importOpenAi(openAiMessages));
    expect(body.system).toBe("You are terse.");
    const messages = body.messages as { role: string }[];
    expect(messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
    ]);
  });

  it("reports blocks it leaves out and rejects bad shapes", () => {
    const result = importAnthropicMessages(
      [
        {
          role: "user",
          content: [
            { type: "image", source: {} },
            { type: "text", text: "see" },
          ],
        },
      ],
      counterSource(),
    );
    expect(result.ok && result.value.warnings).toEqual(["message 1, block 1: a image block was left out"]);
    expect(
      importAnthropicMessages({ messages: [{ role: "user", content: 5 }] }, counterSource()),
    ).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^message 1: `content`/),
    });
    expect(importAnthropicMessages([{ role: "user", content: [{ text: "hi" }] }], counterSource())).toEqual({
      ok: false,
      message: 'message 1, block 1 has no "type"',
    });
    // A block of a known type names the field it lacks, as the input calls it.
    const assistant = (block: unknown) =>
      importAnthropicMessages([{ role: "assistant", content: [block] }], counterSource());
    expect(assistant({ type: "tool_use", name: "read", input: {} })).toEqual({
      ok: false,
      message: 'message 1, block 1: tool_use has no "id"',
    });
    expect(assistant({ type: "tool_use", id: "t1", name: "read", input: "x" })).toEqual({
      ok: false,
      message: 'message 1, block 1: tool_use "input" must be an object',
    });
    expect(assistant({ type: "thinking" })).toEqual({
      ok: false,
      message: 'message 1, block 1: thinking has no "thinking"',
    });
    expect(
      importAnthropicMessages(
        [{ role: "user", content: [{ type: "tool_result", content: "x" }] }],
        counterSource(),
      ),
    ).toEqual({ ok: false, message: 'message 1, block 1: tool_result has no "tool_use_id"' });
    expect(
      importAnthropicMessages({ system: [{ type: "text", text: 1 }], messages: [] }, counterSource()),
    ).toEqual({ ok: false, message: 'system block 1 "text" must be a string' });
  });
});
