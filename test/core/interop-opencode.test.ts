/**
 * opencode sessions → cxc events and back (src/core/interop/opencode.ts, opencode-export.ts), on
 * the shapes opencode 1.18 writes (test/agents/opencode.test.ts runs the real agent; the committed
 * fixture is one of its sessions): a compaction with a kept tail, a reverted message, failed and
 * interrupted tool calls, usage, bad documents.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import { projectConversation } from "../../src/core/conversation/projection.js";
import { exportOpencodeSession } from "../../src/core/interop/opencode-export.js";
import {
  checkOpencodeDocument,
  convertOpencodeSession,
  type OpencodeDocument,
} from "../../src/core/interop/opencode.js";
import { PROJECT_ROOT } from "../helpers/cli.js";

type Json = Record<string, unknown>;

let clock = 1_796_284_000_000;
const user = (id: string, parts: Json[]) => ({
  info: {
    id,
    role: "user",
    time: { created: clock++ },
    agent: "build",
    model: { providerID: "fake", modelID: "m" },
  },
  parts,
});
const assistant = (id: string, parts: Json[], extra: Json = {}) => ({
  info: {
    id,
    role: "assistant",
    time: { created: clock++ },
    providerID: "anthropic",
    modelID: "claude-x",
    tokens: { input: 100, output: 20, reasoning: 5, cache: { read: 50, write: 10 } },
    ...extra,
  },
  parts: [{ type: "step-start" }, ...parts, { type: "step-finish", reason: "stop" }],
});
const text = (value: string, extra: Json = {}) => ({ type: "text", text: value, ...extra });
const tool = (callID: string, name: string, state: Json) => ({ type: "tool", tool: name, callID, state });
const session = (messages: OpencodeDocument["messages"], info: Json = {}): OpencodeDocument => ({
  info: {
    id: "ses_test",
    title: "A test",
    directory: "/home/user/project",
    version: "1.18.33",
    time: { created: clock },
    ...info,
  },
  messages,
});

function converted(document: OpencodeDocument) {
  const result = convertOpencodeSession(document, "db#ses_test");
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

describe("opencode sessions", () => {
  it("reads prompts, signed reasoning, tool calls with their results, failed and interrupted ones, usage and the model", () => {
    const end = converted(
      session([
        user("msg_1", [
          text("Never touch the migrations folder. Read the notes."),
          text("ignored", { ignored: true }),
        ]),
        assistant("msg_2", [
          { type: "reasoning", text: "Read them.", metadata: { anthropic: { signature: "sig-1" } } },
          tool("toolu_1", "read", { status: "completed", input: { filePath: "notes.txt" }, output: "milk" }),
          tool("toolu_2", "bash", { status: "error", input: { command: "false" }, error: "exit 1" }),
          tool("toolu_3", "bash", { status: "running", input: { command: "sleep 9" } }),
        ]),
        assistant("msg_3", [text("Done.")]),
        assistant("msg_4", [], { error: { name: "APIError" } }),
      ]),
    );
    expect(texts(end.events)).toEqual([
      'model {"assistant":{"model":{"id":"anthropic/claude-x"}}}',
      "user: Never touch the migrations folder. Read the notes.",
      "thought: Read them.",
      'call read {"filePath":"notes.txt"}',
      'call bash {"command":"false"}',
      'call bash {"command":"sleep 9"}',
      "result: milk",
      "result (error): exit 1",
      "assistant: Done.",
    ]);
    const thought = end.events.find(
      (event) => event.type === "chat_response" && event.reasoning !== undefined,
    );
    expect(thought?.type === "chat_response" && thought.metadata?.anthropic_thinking_signature).toBe("sig-1");
    const answer = end.events.at(-1);
    expect(answer?.type === "chat_response" && answer.metadata?.usage).toEqual({
      input_tokens: 100,
      output_tokens: 25,
      cache_read_input_tokens: 50,
      cache_creation_input_tokens: 10,
    });
    expect(end.summary).toMatchObject({
      agent: "opencode",
      turns: 1,
      skipped: { "failed reply": 1, "ignored text": 1 },
    });
    expect(end.title).toBe("A test");
  });

  it("makes its compaction an overlay over the turns before its kept tail, and keeps its synthetic continue as a turn", () => {
    const end = converted(
      session([
        user("msg_01", [text("first")]),
        assistant("msg_02", [text("one")]),
        user("msg_03", [text("second")]),
        assistant("msg_04", [text("two")]),
        user("msg_05", [{ type: "compaction", auto: true, overflow: false, tail_start_id: "msg_03" }]),
        assistant("msg_06", [text("SUMMARY of the first")], {
          summary: true,
          agent: "compaction",
          mode: "compaction",
        }),
        user("msg_07", [
          text("Continue if you have next steps.", {
            synthetic: true,
            metadata: { compaction_continue: true },
          }),
        ]),
        assistant("msg_08", [text("Going on.")]),
      ]),
    );
    expect(texts(end.events).slice(1)).toEqual([
      "user: first",
      "assistant: one",
      "user: second",
      "assistant: two",
      "compaction 0..0: SUMMARY of the first",
      "user: Continue if you have next steps.",
      "assistant: Going on.",
    ]);
    const synthetic = end.events.filter((event) => event.type === "chat_request").at(-1);
    expect(synthetic?.metadata).toEqual({ opencode_synthetic: true });
    expect(projectConversation(end.events).turns.map((turn) => turn.origin.kind)).toEqual([
      "summary",
      "kept",
      "kept",
    ]);
  });

  it("leaves out what a pending revert hides, as an abandoned branch", () => {
    const end = converted(
      session(
        [
          user("msg_1", [text("keep me")]),
          assistant("msg_2", [text("ok")]),
          user("msg_3", [text("undone")]),
          assistant("msg_4", [text("gone")]),
        ],
        { revert: { messageID: "msg_3" } },
      ),
    );
    expect(texts(end.events).slice(1)).toEqual(["user: keep me", "assistant: ok"]);
    expect(end.summary).toMatchObject({ abandonedBranches: 1, abandonedRecords: 2 });
  });

  it("counts parts of kinds it does not know, in a prompt and in a reply, and reads everything else", () => {
    const end = converted(
      session([
        user("msg_1", [text("Read the notes."), { type: "hologram", data: "?" }]),
        assistant("msg_2", [
          { type: "hologram", data: "?" },
          { type: "future-part" },
          tool("toolu_1", "read", { status: "completed", input: { filePath: "notes.txt" }, output: "milk" }),
        ]),
        assistant("msg_3", [text("Done.")]),
      ]),
    );
    expect(texts(end.events).slice(1)).toEqual([
      "user: Read the notes.",
      'call read {"filePath":"notes.txt"}',
      "result: milk",
      "assistant: Done.",
    ]);
    expect(end.summary.unknownFields).toEqual({ "part hologram": 2, "part future-part": 1 });
  });

  it("says what is wrong with a document, naming the message and part", () => {
    expect(checkOpencodeDocument({ info: { id: "nope" }, messages: [] }, "s.json")).toEqual({
      ok: false,
      message: "s.json: an opencode session's `info.id` must be a session id (`ses_…`)",
    });
    expect(checkOpencodeDocument(session([user("msg_1", [{ text: "no type" }])]), "s.json")).toEqual({
      ok: false,
      message: "s.json: message 1, part 1: needs a string `type`",
    });
    expect(convertOpencodeSession(session([assistant("msg_1", [text("alone")])]), "s.json")).toEqual({
      ok: false,
      message: "s.json: an opencode session without a single prompt; nothing to import",
    });
  });

  it("writes the projected view as a document that reads back the same, ids growing, opencode's compaction in its own shape", () => {
    const fixture = JSON.parse(
      readFileSync(join(PROJECT_ROOT, "fixtures", "agents", "opencode", "session.json"), "utf8"),
    );
    const document = checkOpencodeDocument(fixture, "session.json");
    if (!document.ok) throw new Error(document.message);
    const original = converted(document.value);
    let counter = 0;
    const written = exportOpencodeSession(original.events, {
      sessionId: "ses_new",
      directory: "/home/user/project",
      title: "Again",
      timestamp: "2026-12-04T00:00:00.000Z",
      version: "1.18.33",
      providerID: "fake",
      modelID: "fake-model",
      newId: (kind) => `${kind}_${String(++counter).padStart(6, "0")}`,
    });
    if (!written.ok) throw new Error(written.message);
    const again = converted(written.value.document);
    // The view opencode sees: its own summary opens it (read back as the question and the summary
    // opencode sends), then the turns after.
    const view = (events: readonly ConversationEvent[]) =>
      texts(projectConversation(events).turns.flatMap((turn) => turn.events));
    expect(view(again.events)).toEqual(["user: What did we do so far?", ...view(original.events).slice(1)]);
    expect(written.value.nativeSummaries).toBe(1);
    expect(written.value.document.messages[0]!.parts).toEqual([
      expect.objectContaining({
        type: "compaction",
        auto: false,
        id: "prt_000002",
        messageID: "msg_000001",
        sessionID: "ses_new",
      }),
    ]);
  });
});
