/**
 * pi session files ↔ cxc events (pure), over the committed fixture that the real pi wrote
 * (scripts/make-agent-fixtures.mjs) and small hand-made files for the older format versions:
 * turns, tool output, thinking, pi's compaction as an overlay, branches, errors naming file:line,
 * and the round trip: the exported session gives pi the same context as the original.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import { importPiSession, PI_SOURCE_KEY, PI_SUMMARY_KEY } from "../../src/core/interop/pi.js";
import { exportPiSession } from "../../src/core/interop/pi-export.js";
import { ANTHROPIC_SIGNATURE_KEY } from "../../src/core/provider-keys.js";
import { projectConversation } from "../../src/core/conversation/projection.js";
import { groupTurns } from "../../src/core/conversation/turns.js";

const fixture = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../../fixtures/agents/pi/${name}`, import.meta.url)), "utf8");
const session = fixture("session.jsonl");
const scenario = JSON.parse(fixture("scenario.json")) as {
  sessionId: string;
  model: string;
  prompts: string[];
  answers: string[];
  thinking: { text: string; signature: string };
  toolCalls: { id: string; name: string; input: Record<string, unknown> }[];
  summary: string;
};

type Json = Record<string, unknown>;
const entries = () =>
  session
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Json);
const toJsonl = (items: unknown[]) => `${items.map((item) => JSON.stringify(item)).join("\n")}\n`;

function load(text = session, label = "session.jsonl") {
  const result = importPiSession(text, label);
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

function errorOf(text: string, label = "bad.jsonl"): string {
  const result = importPiSession(text, label);
  if (result.ok) throw new Error("expected an error");
  return result.message;
}

function exportSession(events: readonly ConversationEvent[]): Json[] {
  let counter = 0;
  const result = exportPiSession(events, {
    sessionId: "01a23117-0000-7000-8000-000000000001",
    cwd: "/home/user/project",
    timestamp: "2026-12-02T00:00:00.000Z",
    provider: "fake",
    model: "claude-fake",
    newId: () => (++counter).toString(16).padStart(8, "0"),
  });
  if (!result.ok) throw new Error(result.message);
  return result.value.lines.map((line) => JSON.parse(line) as Json);
}

/**
 * What pi sends the model for a session, built the way pi's docs describe: the branch from the
 * last entry, the latest compaction's summary first, then the entries from its first kept one.
 * Roles and content only (timestamps, usage and ids are the writer's).
 */
function piContext(lines: Json[]): unknown[] {
  const byId = new Map(lines.slice(1).map((entry) => [entry.id as string, entry]));
  const path: Json[] = [];
  for (let entry = lines.at(-1); entry !== undefined; ) {
    path.unshift(entry);
    entry = entry.parentId ? byId.get(entry.parentId as string) : undefined;
  }
  const compactionIndex = path.findLastIndex((entry) => entry.type === "compaction");
  const messages: unknown[] = [];
  const add = (entry: Json) => {
    if (entry.type !== "message") return;
    const message = entry.message as Json;
    const content = (message.content as Json[]).map((block) => {
      const { thinkingSignature: _signature, ...rest } = block;
      return rest;
    });
    messages.push([message.role, content, message.toolCallId ?? null, message.isError ?? null]);
  };
  if (compactionIndex < 0) {
    path.forEach(add);
    return messages;
  }
  const compaction = path[compactionIndex]!;
  messages.push(["summary", compaction.summary]);
  const firstKept = path.findIndex((entry) => entry.id === compaction.firstKeptEntryId);
  if (firstKept >= 0 && firstKept < compactionIndex) path.slice(firstKept, compactionIndex).forEach(add);
  path.slice(compactionIndex + 1).forEach(add);
  return messages;
}

describe("pi import", () => {
  const { conversation, summary, warnings } = load();
  const events = conversation.events;
  const turns = groupTurns(events);

  it("reads the prompts, answers, thinking, tool output and model pi wrote", () => {
    expect(warnings).toEqual([]);
    expect(turns).toHaveLength(3);
    expect(summary).toMatchObject({ turns: 3, compactions: 1, abandonedBranches: 0, unknown: {} });
    expect(summary.skipped).toEqual({ thinking_level_change: 1 });
    const texts = (type: "chat_request" | "chat_response") =>
      turns.map((turn) =>
        turn.events
          .filter((event) => event.type === type)
          .map((event) =>
            event.type === "chat_request" ? event.content : event.type === "chat_response" && event.message,
          )
          .filter(Boolean)
          .at(-1),
      );
    expect(texts("chat_request")).toEqual(scenario.prompts);
    expect(texts("chat_response")).toEqual(scenario.answers);
    expect(
      events.find((event) => event.type === "chat_response" && event.reasoning !== undefined),
    ).toMatchObject({
      reasoning: scenario.thinking.text,
      metadata: { [ANTHROPIC_SIGNATURE_KEY]: scenario.thinking.signature },
    });
    expect(events[0]).toMatchObject({
      type: "config_delta",
      delta: { assistant: { model: { id: scenario.model } } },
    });
    const requests = events.filter((event) => event.type === "tool_call_request");
    expect(requests.map((event) => [event.call_id, event.name, event.arguments])).toEqual(
      scenario.toolCalls.map((call) => [call.id, call.name, call.input]),
    );
    const responses = events.filter((event) => event.type === "tool_call_response");
    expect(responses.map((event) => event.call_id)).toEqual(scenario.toolCalls.map((call) => call.id));
    expect(responses[0]).toMatchObject({ content: "notes.txt\ntodo.md\n", is_error: false });
    expect(responses[2]).toMatchObject({ is_error: true });
    expect(conversation.extra.origin).toMatchObject({
      agent: "pi",
      session_id: scenario.sessionId,
      version: 3,
    });
  });

  it("turns pi's compaction into an overlay over the turns before the one it kept from", () => {
    const compaction = events.find((event) => event.type === "compaction");
    expect(compaction).toMatchObject({
      from_turn: 0,
      to_turn: 0,
      summary: { source: "supplied", author: "assistant" },
      origin: { agent: "pi" },
    });
    expect(compaction?.type === "compaction" && compaction.summary?.summary).toContain(scenario.summary);
    const view = projectConversation(events);
    expect(view.turns.map((turn) => turn.origin.kind)).toEqual(["summary", "kept", "kept"]);
    expect(JSON.stringify(view.events)).not.toContain(scenario.thinking.text);
  });

  it("keeps a turn pi split whole, and covers everything when the kept entry is off the branch", () => {
    const all = entries();
    // The second turn's first reply (its tool calls): pi cut that turn in two.
    const secondTurnReply = all.find(
      (entry) =>
        entry.type === "message" &&
        JSON.stringify((entry.message as Json).content).includes("toolu_fixture_changelog") &&
        (entry.message as Json).role === "assistant",
    )!;
    const split = all.map((entry) =>
      entry.type === "compaction" ? { ...entry, firstKeptEntryId: secondTurnReply.id } : entry,
    );
    expect(
      load(toJsonl(split)).conversation.events.find((event) => event.type === "compaction"),
    ).toMatchObject({
      to_turn: 0,
    });
    const gone = all.map((entry) =>
      entry.type === "compaction" ? { ...entry, firstKeptEntryId: "gone" } : entry,
    );
    expect(
      load(toJsonl(gone)).conversation.events.find((event) => event.type === "compaction"),
    ).toMatchObject({
      to_turn: 1,
    });
  });

  it("follows the branch from the last entry and counts the abandoned one", () => {
    const all = entries();
    const firstPrompt = all.find((entry) => entry.type === "message")!;
    const branch = [
      {
        type: "message",
        id: "feed0001",
        parentId: firstPrompt.parentId,
        timestamp: "2026-12-01T10:12:47.000Z",
        message: { role: "user", content: [{ type: "text", text: "an abandoned prompt" }], timestamp: 1 },
      },
    ];
    const { summary, conversation } = load(toJsonl([...all.slice(0, 4), ...branch, ...all.slice(4)]));
    expect(summary).toMatchObject({ abandonedBranches: 1, abandonedRecords: 1, turns: 3 });
    expect(JSON.stringify(conversation.events)).not.toContain("abandoned prompt");
  });

  it("reads version 1 (a plain list) and version 2 (hookMessage) files", () => {
    const v1 = toJsonl([
      { type: "session", id: "v1-session", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/home/user/project" },
      { type: "message", timestamp: "2025-01-01T00:00:01.000Z", message: { role: "user", content: "first" } },
      {
        type: "message",
        timestamp: "2025-01-01T00:00:02.000Z",
        message: { role: "assistant", content: [{ type: "text", text: "one" }], provider: "p", model: "m" },
      },
      {
        type: "message",
        timestamp: "2025-01-01T00:00:03.000Z",
        message: { role: "user", content: "second" },
      },
      {
        type: "message",
        timestamp: "2025-01-01T00:00:04.000Z",
        message: { role: "assistant", content: [{ type: "text", text: "two" }], provider: "p", model: "m" },
      },
      {
        type: "compaction",
        timestamp: "2025-01-01T00:00:05.000Z",
        summary: "about first",
        firstKeptEntryIndex: 3,
      },
    ]);
    const old = load(v1, "v1.jsonl");
    expect(old.summary.turns).toBe(2);
    expect(old.conversation.events.find((event) => event.type === "compaction")).toMatchObject({
      from_turn: 0,
      to_turn: 0,
    });
    expect(old.conversation.extra.origin).toMatchObject({ version: 1 });
    const v2 = toJsonl([
      { type: "session", version: 2, id: "v2", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/" },
      {
        type: "message",
        id: "a",
        parentId: null,
        timestamp: "2025-01-01T00:00:01.000Z",
        message: { role: "hookMessage", customType: "hook", content: "from a hook" },
      },
    ]);
    const hook = load(v2, "v2.jsonl").conversation.events.find((event) => event.type === "chat_request");
    expect(hook).toMatchObject({ content: "from a hook", metadata: { [PI_SOURCE_KEY]: "custom hook" } });
  });

  it("writes bash runs as pi sends them and leaves out failed replies", () => {
    const text = toJsonl([
      { type: "session", version: 3, id: "s", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/" },
      {
        type: "message",
        id: "a",
        parentId: null,
        timestamp: "2025-01-01T00:00:01.000Z",
        message: {
          role: "bashExecution",
          command: "ls",
          output: "x",
          exitCode: 2,
          cancelled: false,
          truncated: false,
        },
      },
      {
        type: "message",
        id: "b",
        parentId: "a",
        timestamp: "2025-01-01T00:00:02.000Z",
        message: { role: "assistant", content: [], stopReason: "error", provider: "p", model: "m" },
      },
    ]);
    const { conversation, summary } = load(text);
    expect(conversation.events.find((event) => event.type === "chat_request")).toMatchObject({
      content: "Ran `ls`\n```\nx\n```\n\nCommand exited with code 2",
    });
    expect(summary.skipped["failed or aborted reply"]).toBe(1);
  });
});

describe("pi import: bad input", () => {
  it("names the file and line", () => {
    expect(errorOf('{"type":"message"}\n')).toMatch(
      /^bad\.jsonl:1: not a pi session: the first line must be/,
    );
    const lines = session.split("\n");
    lines[3] = "{oops";
    expect(errorOf(lines.join("\n"))).toMatch(/^bad\.jsonl:4: not valid JSON/);
    const noId = [lines[0], JSON.stringify({ type: "message", parentId: null, message: { role: "user" } })];
    expect(errorOf(noId.join("\n"))).toBe("bad.jsonl:2: a message entry needs a string `id`");
    expect(errorOf(`${JSON.stringify({ type: "session", version: 2.5, id: "x" })}\n`)).toBe(
      "bad.jsonl:1: the session header's `version` must be a whole number from 1",
    );
    const claude = readFileSync(
      fileURLToPath(new URL("../../fixtures/agents/claude-code/session.jsonl", import.meta.url)),
      "utf8",
    );
    expect(errorOf(claude, "claude.jsonl")).toMatch(/^claude\.jsonl:1: not a pi session/);
    expect(errorOf("")).toBe("bad.jsonl: not a pi session: the file is empty");
  });

  it("names the line where the id/parentId chain loops back or its parent comes later, and warns of a missing parent", () => {
    const header = session.split("\n")[0]!;
    const entry = (id: string, parentId: string | null, text: string) =>
      JSON.stringify({
        type: "message",
        id,
        parentId,
        timestamp: "2026-01-01T00:00:00.000Z",
        message: { role: "user", content: [{ type: "text", text }] },
      });
    expect(errorOf([header, entry("a", null, "one"), entry("b", "b", "two"), ""].join("\n"))).toBe(
      "bad.jsonl:3: the id/parentId chain loops back on itself",
    );
    expect(errorOf([header, entry("a", "b", "one"), entry("b", "a", "two"), ""].join("\n"))).toBe(
      "bad.jsonl:2: its parent b comes later in the file",
    );
    const missing = load([header, entry("a", null, "one"), entry("b", "gone", "two"), ""].join("\n"));
    expect(missing.warnings).toEqual([
      "session.jsonl:3: its parent gone is not in the file; the history before it is missing",
    ]);
    expect(missing.summary).toMatchObject({ turns: 1, abandonedRecords: 1, abandonedBranches: 1 });
  });
});

describe("pi export", () => {
  const imported = load().conversation.events;

  it("round trip: the exported session gives pi the context the original did", () => {
    const exported = exportSession(imported);
    expect(piContext(exported)).toEqual(piContext(entries()));
    const again = load(toJsonl(exported), "exported.jsonl");
    expect(again.warnings).toEqual([]);
    expect(piContext(exportSession(again.conversation.events))).toEqual(piContext(entries()));
    expect(
      again.conversation.events.find((event) => event.type === "chat_request")?.metadata?.[PI_SUMMARY_KEY],
    ).toContain(scenario.summary);
  });

  it("writes pi's header, a model change, usage on every reply, and the summary as pi's compaction", () => {
    const lines = exportSession(imported);
    expect(lines[0]).toEqual({
      type: "session",
      version: 3,
      id: "01a23117-0000-7000-8000-000000000001",
      timestamp: "2026-12-02T00:00:00.000Z",
      cwd: "/home/user/project",
    });
    expect(lines[1]).toMatchObject({
      type: "model_change",
      provider: "fake",
      modelId: "claude-fake",
      parentId: null,
    });
    expect(lines[2]).toMatchObject({
      type: "compaction",
      parentId: lines[1]!.id,
      firstKeptEntryId: lines[3]!.id,
    });
    for (const [index, line] of lines.slice(2).entries()) expect(line.parentId).toBe(lines[index + 1]!.id);
    const replies = lines.filter((line) => (line.message as Json | undefined)?.role === "assistant");
    for (const reply of replies) {
      expect(reply.message).toMatchObject({
        provider: "fake",
        model: "claude-fake",
        usage: { totalTokens: 0 },
      });
    }
  });

  it("writes a cxc summary as pi's compaction and stripped tool output as projected", () => {
    const own = imported.find((event) => event.type === "compaction")!;
    const events: ConversationEvent[] = [
      ...imported,
      {
        type: "compaction_reset",
        id: "R",
        ts: "2026-12-31T00:00:00Z",
        retires: [own.type === "compaction" ? own.id : ""],
      },
      {
        type: "compaction",
        id: "C",
        ts: "2026-12-31T00:00:01Z",
        from_turn: 0,
        to_turn: 1,
        tool_calls: { policy: "strip", request: true, response: true },
        source: "user",
      },
      {
        type: "compaction",
        id: "S",
        ts: "2026-12-31T00:00:02Z",
        from_turn: 0,
        to_turn: 0,
        summary: { summary: "cxc's summary", source: "supplied", author: "user" },
        source: "user",
      },
    ];
    const lines = exportSession(events);
    expect(lines[2]).toMatchObject({ type: "compaction", summary: "cxc's summary" });
    const results = lines.filter((line) => (line.message as Json | undefined)?.role === "toolResult");
    expect(results.map((line) => ((line.message as Json).content as Json[])[0]!.text)).toEqual([
      "[compacted] bash: error",
      "[compacted] read: success",
    ]);
  });
});
