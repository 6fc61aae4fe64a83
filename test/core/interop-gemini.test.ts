/**
 * Gemini CLI sessions → cxc events and back (src/core/interop/gemini.ts, gemini-export.ts), on
 * records in the shapes Gemini CLI 0.61 writes (test/agents/gemini.test.ts runs the real agent):
 * replies rewritten once their tool calls finished, `$set.messages` rewrites, a rewind, its
 * compression with the kept tail under new ids, the older single-document format, bad lines.
 */
import { describe, expect, it } from "vitest";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import { projectConversation } from "../../src/core/conversation/projection.js";
import { exportGeminiSession } from "../../src/core/interop/gemini-export.js";
import { GeminiSessionReader, importGeminiSession } from "../../src/core/interop/gemini.js";

const HEADER = {
  sessionId: "5ccea5e2-0000-4000-8000-000000000001",
  projectHash: "ab12",
  startTime: "2026-12-03T07:38:55.000Z",
  lastUpdated: "2026-12-03T07:38:55.000Z",
  kind: "main",
};
const CONTEXT = {
  id: "ctx",
  timestamp: "2026-12-03T07:38:55.001Z",
  type: "user",
  content: [
    {
      text: "<session_context>\nThis is the Gemini CLI.\n- **Workspace Directories:**\n  - /home/user/project\n</session_context>",
    },
  ],
};

let clock = 0;
const at = () => new Date(Date.UTC(2026, 11, 3, 8, 0, clock++)).toISOString();
const user = (id: string, text: string) => ({ id, timestamp: at(), type: "user", content: [{ text }] });
const reply = (id: string, fields: Record<string, unknown>) => ({
  id,
  timestamp: at(),
  type: "gemini",
  content: "",
  thoughts: [],
  model: "gemini-2.5-flash",
  ...fields,
});
const call = (
  id: string,
  name: string,
  args: Record<string, unknown>,
  output: string,
  status = "success",
) => ({
  id,
  name,
  args,
  result: [{ functionResponse: { id, name, response: { output } } }],
  status,
  timestamp: at(),
});
const lines = (...records: unknown[]) => `${records.map((record) => JSON.stringify(record)).join("\n")}\n`;

function imported(text: string) {
  const result = importGeminiSession(text, "session.jsonl");
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

const texts = (events: readonly ConversationEvent[]) =>
  events.flatMap((event) => {
    switch (event.type) {
      case "chat_request":
        return [`user: ${event.content}`];
      case "chat_response":
        return event.reasoning !== undefined
          ? [`thought: ${event.reasoning}`]
          : [`assistant: ${event.message}`];
      case "tool_call_request":
        return [`call ${event.name} ${JSON.stringify(event.arguments)}`];
      case "tool_call_response":
        return [`result${event.is_error ? " (error)" : ""}: ${event.content}`];
      case "config_delta":
        return [`model ${JSON.stringify(event.delta)}`];
      case "compaction":
        return [`compaction ${event.from_turn}..${event.to_turn}: ${event.summary?.summary}`];
      default:
        return [];
    }
  });

describe("Gemini CLI sessions", () => {
  it("reads a session: prompts, thoughts, tool calls with their results, usage, the model; Gemini's context left out", () => {
    const first = reply("g1", {
      thoughts: [{ subject: "Reading", description: "the notes first.", timestamp: at() }],
    });
    const session = imported(
      lines(
        HEADER,
        { $set: { messages: [CONTEXT], lastUpdated: at() } },
        user("u1", "Never touch the migrations folder. What do my notes say?"),
        first,
        {
          ...first,
          toolCalls: [call("read_file__1", "read_file", { file_path: "notes.txt" }, "remember the milk\n")],
        },
        {
          id: "fr1",
          timestamp: at(),
          type: "user",
          content: [
            {
              functionResponse: {
                id: "read_file__1",
                name: "read_file",
                response: { output: "remember the milk\n" },
              },
            },
          ],
        },
        reply("g2", {
          content: "Your notes say: remember the milk.",
          tokens: { input: 1000, output: 20, cached: 100, thoughts: 5, tool: 0, total: 1025 },
        }),
        { $set: { lastUpdated: at(), summary: "Reading the notes" } },
        user("u2", "/stats"),
        { id: "i1", timestamp: at(), type: "info", content: "Session stats." },
      ),
    );
    expect(texts(session.conversation.events)).toEqual([
      'model {"assistant":{"model":{"id":"google/gemini-2.5-flash"}}}',
      "user: Never touch the migrations folder. What do my notes say?",
      "thought: **Reading** the notes first.",
      'call read_file {"file_path":"notes.txt"}',
      "result: remember the milk\n",
      "assistant: Your notes say: remember the milk.",
    ]);
    const answer = session.conversation.events.at(-1)!;
    expect(answer.type === "chat_response" && answer.metadata?.usage).toEqual({
      input_tokens: 900,
      output_tokens: 25,
      cache_read_input_tokens: 100,
      cache_creation_input_tokens: 0,
      reported_by: "gemini",
    });
    expect(session.conversation.title).toBe("Reading the notes");
    expect(session.conversation.extra.origin).toEqual({
      agent: "gemini",
      session_id: HEADER.sessionId,
      cwd: "/home/user/project",
    });
    expect(session.summary).toMatchObject({
      agent: "gemini",
      turns: 1,
      skipped: { "session context": 1, "function response": 1, command: 1, "info notice": 1 },
      unknown: {},
    });
  });

  it("makes its compression an overlay over the turns before the kept prompt, and knows the kept tail's copies", () => {
    const session = imported(
      lines(
        HEADER,
        { $set: { messages: [CONTEXT] } },
        user("u1", "first task"),
        reply("g1", { content: "done one" }),
        user("u2", "second task"),
        reply("g2", { toolCalls: [call("c2", "read_file", { file_path: "big.txt" }, "big")] }),
        // The compression: the summary, the acknowledgement, the kept tail under new ids.
        {
          $set: {
            messages: [
              CONTEXT,
              user("snap", "<state_snapshot>one and two</state_snapshot>"),
              reply("ack", { content: "Got it. Thanks for the additional context!" }),
              user("u2-copy", "second task"),
              reply("g2-copy", {
                content: [{ functionCall: { name: "read_file", args: { file_path: "big.txt" } } }],
              }),
            ],
          },
        },
        reply("g3", { content: "big holds a table" }),
        // Written again on resume: the snapshot and the copies are known.
        {
          $set: {
            messages: [
              CONTEXT,
              user("snap", "<state_snapshot>one and two</state_snapshot>"),
              reply("ack", { content: "Got it. Thanks for the additional context!" }),
              user("u2-copy", "second task"),
              reply("g2-copy", {}),
              reply("g3", { content: "big holds a table" }),
            ],
          },
        },
        user("u3", "third task"),
        reply("g4", { content: "done three" }),
      ),
    );
    expect(texts(session.conversation.events)).toEqual([
      'model {"assistant":{"model":{"id":"google/gemini-2.5-flash"}}}',
      "user: first task",
      "assistant: done one",
      "user: second task",
      'call read_file {"file_path":"big.txt"}',
      "result: big",
      "compaction 0..0: <state_snapshot>one and two</state_snapshot>",
      "assistant: big holds a table",
      "user: third task",
      "assistant: done three",
    ]);
    expect(session.summary.compactions).toBe(1);
    const view = projectConversation(session.conversation.events);
    expect(view.turns.map((turn) => turn.origin.kind)).toEqual(["summary", "kept", "kept"]);
  });

  it("leaves out what a rewind removed, as an abandoned branch, and keeps a message's last version", () => {
    const session = imported(
      lines(
        HEADER,
        user("u1", "first"),
        reply("g1", { content: "draft" }),
        reply("g1", { content: "final answer" }),
        user("u2", "a prompt the user took back"),
        reply("g2", { content: "an answer to it" }),
        { $rewindTo: "u2" },
        user("u3", "the prompt instead"),
        reply("g3", { content: "its answer" }),
      ),
    );
    expect(texts(session.conversation.events).slice(1)).toEqual([
      "user: first",
      "assistant: final answer",
      "user: the prompt instead",
      "assistant: its answer",
    ]);
    expect(session.summary).toMatchObject({ abandonedBranches: 1, abandonedRecords: 2 });
  });

  it("names the file and line of a line that is not JSON, leaves out a last line still being written, and counts unknown records", () => {
    const bad = importGeminiSession(
      `${JSON.stringify(HEADER)}\n{"id": "u1", "type":\n${JSON.stringify(user("u2", "x"))}\n`,
      "s.jsonl",
    );
    expect(bad).toEqual({
      ok: false,
      message: expect.stringMatching(/^s\.jsonl:2: not valid JSON \(.*\); not a Gemini CLI session line$/),
    });
    const truncated = imported(
      `${lines(HEADER, user("u1", "hello"), reply("g1", { content: "hi" }), { kind: "telemetry", detail: 1 })}{"id":"g2","type":"gem`,
    );
    expect(truncated.warnings).toEqual([
      "session.jsonl:5: the last line is incomplete (Gemini CLI may still be writing); it was left out",
    ]);
    expect(truncated.summary.unknown).toEqual({ "record without an id": 1 });
    expect(texts(truncated.conversation.events).slice(1)).toEqual(["user: hello", "assistant: hi"]);
    expect(importGeminiSession(lines(user("u1", "x")), "s.jsonl")).toEqual({
      ok: false,
      message:
        "s.jsonl:1: not a Gemini CLI session: the first record must be its header (`sessionId`, `projectHash`)",
    });
    expect(importGeminiSession(lines(HEADER, { id: "u1", type: "user", content: "x" }), "s.jsonl")).toEqual({
      ok: false,
      message: "s.jsonl:2: a user message needs a `timestamp`",
    });
    const reader = new GeminiSessionReader("s.jsonl");
    reader.addLine(JSON.stringify(HEADER));
    const plan = reader.finish();
    expect(plan.ok && plan.value.empty).toBe(true);
  });

  it("reads the single JSON document older versions wrote", () => {
    const reader = new GeminiSessionReader("session.json");
    expect(
      reader.addDocument({
        ...HEADER,
        messages: [user("u1", "old prompt"), reply("g1", { content: "old answer" })],
      }).ok,
    ).toBe(true);
    const plan = reader.finish();
    if (!plan.ok) throw new Error(plan.message);
    const end = plan.value.convert().finish();
    expect(end.ok && texts(end.value.events).slice(1)).toEqual(["user: old prompt", "assistant: old answer"]);
  });

  it("takes a call's result from the call, else from the function response written on its own", () => {
    const response = (id: string, output: unknown) => ({
      id: `fr-${id}`,
      timestamp: at(),
      type: "user",
      content: [{ functionResponse: { id, name: "read_file", response: output } }],
    });
    const session = imported(
      lines(
        HEADER,
        user("u1", "read three"),
        reply("g1", {
          toolCalls: [
            call("same", "read_file", { file_path: "a" }, "A"),
            call("other", "read_file", { file_path: "b" }, "B"),
            { id: "bare", name: "read_file", args: { file_path: "c" }, status: "success", timestamp: at() },
          ],
        }),
        response("same", { output: "A" }),
        // A copy that says something else: the call's own result stands.
        response("other", { output: "B, again" }),
        response("bare", { lines: ["C"], more: 1 }),
      ),
    );
    expect(texts(session.conversation.events).filter((text) => text.startsWith("result"))).toEqual([
      "result: A",
      "result: B",
      'result: {"lines":["C"],"more":1}',
    ]);
  });

  it("hands out the events as they settle, the same events as all at once; a call without an id is named by its place", () => {
    const reader = new GeminiSessionReader("s.jsonl");
    const turns = Array.from({ length: 100 }, (_, turn) => [
      user(`u${turn}`, `task ${turn}`),
      reply(`g${turn}`, { content: `done ${turn}` }),
    ]).flat();
    for (const record of [
      HEADER,
      ...turns,
      user("u-last", "list them"),
      reply("g-last", { content: [{ functionCall: { name: "ls", args: { dir: "." } } }] }),
      reply("g-end", { content: "done", model: "gemini-2.5-pro" }),
    ]) {
      expect(reader.addLine(JSON.stringify(record)).ok).toBe(true);
    }
    const plan = reader.finish();
    if (!plan.ok) throw new Error(plan.message);
    const batches: ConversationEvent[][] = [];
    const converter = plan.value.convert();
    expect(converter.convertHeld?.((events) => batches.push([...events])).ok).toBe(true);
    const end = converter.finish();
    if (!end.ok) throw new Error(end.message);
    const streamed = [...batches.flat(), ...end.value.events];
    // Some were handed out before the end: what had settled while the 100 turns were read.
    expect(batches.length).toBeGreaterThan(0);
    const whole = plan.value.convert().finish();
    expect(whole.ok && whole.value.events).toEqual(streamed);
    // The model change, then three events a turn (its start, the prompt, the answer), then the
    // last turn's start and prompt: the call is the 304th event.
    expect(streamed.filter((event) => event.type === "tool_call_request")).toMatchObject([
      { call_id: "ls_303", name: "ls", arguments: { dir: "." } },
    ]);
  });

  it("writes the projected view as a session it reads back the same, each result once with its call", () => {
    const session = imported(
      lines(
        HEADER,
        user("u1", "read it"),
        reply("g1", {
          thoughts: [{ subject: "", description: "Look first.", timestamp: at() }],
          toolCalls: [
            call("c1", "read_file", { file_path: "a" }, "A"),
            call("c2", "run_shell_command", { command: "false" }, "exit 1", "error"),
          ],
        }),
        reply("g2", { content: "done" }),
      ),
    );
    let id = 0;
    const written = exportGeminiSession(session.conversation.events, {
      sessionId: "new-session",
      projectHash: "ab12",
      timestamp: "2026-12-04T00:00:00.000Z",
      model: "gemini-2.5-pro",
      newId: () => `m${++id}`,
    });
    if (!written.ok) throw new Error(written.message);
    const records = written.value.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records[0]).toEqual({
      sessionId: "new-session",
      projectHash: "ab12",
      startTime: "2026-12-04T00:00:00.000Z",
      lastUpdated: "2026-12-04T00:00:00.000Z",
      kind: "main",
    });
    expect(records.filter((record) => record.type === "user")).toHaveLength(1);
    const back = imported(`${written.value.lines.join("\n")}\n`);
    expect(texts(back.conversation.events)).toEqual(texts(session.conversation.events));
    expect(texts(back.conversation.events)).toContain("result (error): exit 1");
  });
});
