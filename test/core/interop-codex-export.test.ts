/**
 * cxc events → a Codex rollout (pure): the projected view over the committed fixture, Codex's own
 * compaction written back in its own shape, cxc's summaries framed, reasoning Codex cannot send
 * back left out with a warning, free-form tool calls kept free-form, and the rollout read back.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import { buildPinEvent } from "../../src/core/conversation/pins.js";
import { CXC_PINNED_KEY } from "../../src/core/interop/agents.js";
import { exportCodexSession } from "../../src/core/interop/codex-export.js";
import { importCodexSession } from "../../src/core/interop/codex.js";
import { groupTurns } from "../../src/core/conversation/turns.js";
import { createEventBuilder } from "../helpers/builders.js";

const fixture = readFileSync(
  fileURLToPath(new URL("../../fixtures/agents/codex/session.jsonl", import.meta.url)),
  "utf8",
);
const SESSION = "5b0c9d3e-2f1a-4c8b-9e7d-6a5b4c3d2e1f";
const OPTIONS = {
  sessionId: SESSION,
  cwd: "/home/user/project",
  timestamp: "2026-12-02T09:00:00Z",
  version: "0.169.0",
};

type Json = Record<string, unknown>;
const parse = (lines: readonly string[]) => lines.map((line) => JSON.parse(line) as Json & { payload: Json });

function imported(): ConversationEvent[] {
  const result = importCodexSession(fixture, "rollout.jsonl");
  if (!result.ok) throw new Error(result.message);
  return [...result.value.conversation.events];
}

function exported(
  events: readonly ConversationEvent[],
  options: Partial<typeof OPTIONS> & { provider?: string } = {},
) {
  const result = exportCodexSession(events, { ...OPTIONS, ...options });
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

describe("Codex export", () => {
  it("opens with session_meta and writes Codex's own compaction back word for word", () => {
    const events = imported();
    const session = exported(events);
    const records = parse(session.lines);
    expect(records[0]).toEqual({
      timestamp: "2026-12-02T09:00:00.000Z",
      type: "session_meta",
      payload: {
        id: SESSION,
        timestamp: "2026-12-02T09:00:00.000Z",
        cwd: "/home/user/project",
        originator: "cxc",
        cli_version: "0.169.0",
        source: "cli",
      },
    });
    const compaction = events.find((event) => event.type === "compaction")!;
    const summary = compaction.type === "compaction" ? compaction.summary!.summary : "";
    expect(records[1]).toMatchObject({
      type: "compacted",
      payload: {
        message: summary,
        replacement_history: [
          { type: "message", role: "user", content: [{ type: "input_text", text: summary }] },
        ],
      },
    });
    expect(session.nativeSummaries).toBe(1);
    // What follows is the third turn only: its prompt (with Codex's display record) and answer.
    expect(records.slice(2).map((record) => [record.type, record.payload.type])).toEqual([
      ["response_item", "message"],
      ["event_msg", "user_message"],
      ["response_item", "message"],
      ["event_msg", "agent_message"],
    ]);
    expect(parse(exported(events, { provider: "fake" }).lines)[0]!.payload.model_provider).toBe("fake");
  });

  it("reads back as the same conversation when nothing is compacted", () => {
    const events = imported().filter((event) => event.type !== "compaction");
    const session = exported(events);
    expect(session.warnings).toEqual([]);
    const back = importCodexSession(`${session.lines.join("\n")}\n`, "exported.jsonl");
    if (!back.ok) throw new Error(back.message);
    const strip = (list: readonly ConversationEvent[]) =>
      groupTurns(list).map((turn) =>
        turn.events.flatMap((event) => {
          if (event.type === "turn_start") return [];
          const { id: _id, ts: _ts, metadata, ...rest } = event as Json & { metadata?: Json };
          // The usage Codex recorded is not written back: an exported session's requests are not Codex's.
          const kept = Object.fromEntries(
            Object.entries(metadata ?? {}).filter(
              ([key]) => key !== "openai_reasoning_model" && key !== "usage",
            ),
          );
          return [Object.keys(kept).length === 0 ? rest : { ...rest, metadata: kept }];
        }),
      );
    expect(strip(back.value.conversation.events)).toEqual(strip(events));
  });

  it("marks the lines of pinned messages, and reads the mark back for the restore after Codex compacts", () => {
    const events = imported().filter((event) => event.type !== "compaction");
    const turns = groupTurns(events);
    const last = turns.length - 1;
    const session = exported([
      ...events,
      buildPinEvent({ turn: last, only: "user" }, { id: "pin1", ts: "2026-12-02T10:00:00Z" }),
    ]);
    const records = parse(session.lines);
    const marked = records.filter((record) => record[CXC_PINNED_KEY] === true);
    const prompt = turns[last]!.events.find((event) => event.type === "chat_request")!;
    expect(marked.map((record) => [record.type, record.payload.role, record.payload.content])).toEqual([
      [
        "response_item",
        "user",
        [{ type: "input_text", text: prompt.type === "chat_request" && prompt.content }],
      ],
    ]);
    const back = importCodexSession(`${session.lines.join("\n")}\n`, "exported.jsonl");
    if (!back.ok) throw new Error(back.message);
    const pinnedBack = back.value.conversation.events.filter(
      (event) => event.type !== "unknown" && "metadata" in event && event.metadata?.[CXC_PINNED_KEY] === true,
    );
    expect(pinnedBack.map((event) => event.type)).toEqual(["chat_request"]);
    expect(pinnedBack[0]).toMatchObject({ content: prompt.type === "chat_request" ? prompt.content : "" });
  });

  it("frames cxc's summaries, writes later ones as a request and an answer, and leaves out reasoning Codex cannot send", () => {
    const build = createEventBuilder();
    const events = [
      ...build.turn("first", { reasoning: "thought without a provider's encryption" }),
      ...build.turn("second"),
      ...build.turn("third"),
      ...build.turn("fourth"),
    ];
    const compacted = [
      ...events,
      build.compaction({ from: 0, to: 0, summary: "S1" }),
      build.compaction({ from: 2, to: 2, summary: "S3" }),
    ];
    const records = parse(exported(compacted).lines);
    expect(records[1]!.payload.message).toMatch(
      /^This session continues an earlier conversation that was compacted with cxc\..*<summary>\nS1\n<\/summary>$/s,
    );
    const texts = records
      .filter((record) => record.type === "response_item")
      .map((record) => (record.payload.content as { text: string }[])[0]!.text);
    expect(texts).toEqual([
      "second",
      expect.any(String),
      "[Summary of previous conversation]",
      "S3",
      "fourth",
      expect.any(String),
    ]);
    const session = exported(events);
    expect(session.warnings).toEqual([
      "1 reasoning block without OpenAI's encrypted content was left out (Codex can only send its model's own reasoning back)",
    ]);
    expect(session.lines.join("\n")).not.toContain("thought without");
  });

  it("keeps a free-form tool call free-form, and refuses an empty session id", () => {
    const text = [
      JSON.stringify({ timestamp: "2026-12-01T12:00:00Z", type: "session_meta", payload: { id: "s" } }),
      JSON.stringify({
        timestamp: "2026-12-01T12:00:01Z",
        type: "response_item",
        payload: { type: "message", role: "user", content: [{ type: "input_text", text: "patch it" }] },
      }),
      JSON.stringify({
        timestamp: "2026-12-01T12:00:02Z",
        type: "response_item",
        payload: { type: "custom_tool_call", call_id: "c1", name: "apply_patch", input: "*** Begin Patch" },
      }),
      JSON.stringify({
        timestamp: "2026-12-01T12:00:03Z",
        type: "response_item",
        payload: { type: "custom_tool_call_output", call_id: "c1", output: "Done" },
      }),
    ].join("\n");
    const read = importCodexSession(`${text}\n`, "r.jsonl");
    if (!read.ok) throw new Error(read.message);
    const records = parse(exported(read.value.conversation.events).lines);
    expect(
      records.filter((record) => record.type === "response_item").map((record) => record.payload),
    ).toEqual([
      { type: "message", role: "user", content: [{ type: "input_text", text: "patch it" }] },
      { type: "custom_tool_call", call_id: "c1", name: "apply_patch", input: "*** Begin Patch" },
      { type: "custom_tool_call_output", call_id: "c1", output: "Done" },
    ]);
    expect(exportCodexSession([], { ...OPTIONS, sessionId: "" })).toEqual({
      ok: false,
      message: "the new session needs an id",
    });
  });
});
