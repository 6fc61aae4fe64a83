/**
 * Claude Code session files ↔ cxc events (pure), over the committed fixture that the real Claude
 * Code wrote (scripts/make-agent-fixtures.mjs): turns, tool output, thinking, the agent's own
 * compaction as an overlay, what is skipped and counted, errors naming file:line, and the round
 * trip import → export → import.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { viewMessages } from "../../src/core/interop/agent-export.js";
import {
  CLAUDE_CODE_ATTACHMENT_AUTHOR,
  CLAUDE_CODE_CONTEXT_KEY,
  CLAUDE_CODE_LEADING_CONTEXT_KEY,
  CLAUDE_CODE_SUMMARY_KEY,
  importClaudeCodeSession,
} from "../../src/core/interop/claude-code.js";
import { exportClaudeCodeSession } from "../../src/core/interop/claude-code-export.js";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import { ANTHROPIC_SIGNATURE_KEY } from "../../src/core/provider-keys.js";
import { projectConversation, SUMMARY_REQUEST_TEXT } from "../../src/core/conversation/projection.js";
import { groupTurns } from "../../src/core/conversation/turns.js";

const fixture = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../../fixtures/agents/claude-code/${name}`, import.meta.url)), "utf8");
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

function load(text = session, label = "session.jsonl") {
  const result = importClaudeCodeSession(text, label);
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

function errorOf(text: string, label = "bad.jsonl"): string {
  const result = importClaudeCodeSession(text, label);
  if (result.ok) throw new Error("expected an error");
  return result.message;
}

const records = () =>
  session
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
const toJsonl = (items: unknown[]) => `${items.map((item) => JSON.stringify(item)).join("\n")}\n`;

function counterUuids(): () => string {
  let counter = 0;
  return () => `00000000-0000-4000-8000-${String(++counter).padStart(12, "0")}`;
}

function exportSession(events: readonly ConversationEvent[]) {
  const result = exportClaudeCodeSession(events, {
    sessionId: "11111111-2222-4333-8444-555555555555",
    cwd: "/home/user/project",
    model: "claude-sonnet-4-5",
    newUuid: counterUuids(),
  });
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

/** What the model is sent, message by message, with a summary as one item however it is held. */
function visible(events: readonly ConversationEvent[]): unknown[] {
  return viewMessages(events).map((message) => {
    if (message.kind === "summary") return ["summary", message.text];
    if (message.kind === "user") {
      const summary = message.event.metadata?.[CLAUDE_CODE_SUMMARY_KEY] === true;
      return [summary ? "summary" : "user", message.event.content];
    }
    if (message.kind === "results") {
      return ["results", message.events.map((event) => [event.call_id, event.content, event.is_error])];
    }
    return [
      "assistant",
      message.events.map((event) =>
        event.type === "tool_call_request"
          ? ["tool", event.call_id, event.name, event.arguments]
          : [event.reasoning === undefined ? "text" : "thinking", event.message ?? event.reasoning],
      ),
    ];
  });
}

describe("Claude Code import", () => {
  const { conversation, summary, warnings } = load();
  const events = conversation.events;
  const turns = groupTurns(events);

  it("reads the prompts, answers, thinking and model Claude Code wrote", () => {
    expect(warnings).toEqual([]);
    expect(summary.turns).toBe(3);
    expect(turns).toHaveLength(3);
    const prompts = turns.map(
      (turn) => turn.events.find((event) => event.type === "chat_request" && event.author === undefined)!,
    );
    expect(prompts.map((event) => event.type === "chat_request" && event.content)).toEqual(scenario.prompts);
    const answers = turns.map((turn) =>
      turn.events.filter((event) => event.type === "chat_response" && event.message).at(-1),
    );
    expect(answers.map((event) => event?.type === "chat_response" && event.message)).toEqual(
      scenario.answers,
    );
    const thinking = events.find((event) => event.type === "chat_response" && event.reasoning !== undefined);
    expect(thinking).toMatchObject({
      reasoning: scenario.thinking.text,
      metadata: { [ANTHROPIC_SIGNATURE_KEY]: scenario.thinking.signature },
    });
    expect(events[0]).toMatchObject({
      type: "config_delta",
      delta: { assistant: { model: { id: `anthropic/${scenario.model}` } } },
    });
    expect(conversation.title).toBe(scenario.prompts[0]);
    expect(conversation.extra.origin).toMatchObject({
      agent: "claude-code",
      session_id: scenario.sessionId,
      cwd: "/home/user/project",
    });
  });

  it("takes in both results of the parallel tool call and the failed one", () => {
    const requests = events.filter((event) => event.type === "tool_call_request");
    expect(requests.map((event) => [event.call_id, event.name, event.arguments])).toEqual(
      scenario.toolCalls.map((call) => [call.id, call.name, call.input]),
    );
    const responses = new Map(
      events.flatMap((event) => (event.type === "tool_call_response" ? [[event.call_id, event]] : [])),
    );
    const [ls, todo, changelog] = scenario.toolCalls.map((call) => responses.get(call.id)!);
    expect(ls).toMatchObject({ content: "notes.txt\ntodo.md", is_error: false });
    expect(todo!.content).toContain("- write the parser");
    expect(changelog).toMatchObject({ is_error: true });
    expect(changelog!.content).toContain("No such file or directory");
    // Both results belong to the first turn, after both calls.
    expect(turns[0]!.events.filter((event) => event.type === "tool_call_response")).toHaveLength(2);
  });

  it("brings the file the user mentioned in with the prompt and keeps the agent's context in metadata", () => {
    const attached = turns[0]!.events.find(
      (event) => event.type === "chat_request" && event.author === CLAUDE_CODE_ATTACHMENT_AUTHOR,
    );
    expect(attached?.type === "chat_request" && attached.content).toContain("remember the milk");
    const context = events.flatMap((event) =>
      [CLAUDE_CODE_CONTEXT_KEY, CLAUDE_CODE_LEADING_CONTEXT_KEY].flatMap((key) =>
        event.type !== "unknown" && Array.isArray(event.metadata?.[key])
          ? (event.metadata[key] as { attachment: { type: string } }[])
          : [],
      ),
    );
    const kinds = new Set(context.map((attachment) => attachment.attachment.type));
    expect(kinds).toEqual(new Set(["total_tokens_reminder", "date", "file"]));
  });

  it("turns Claude Code's compaction into an overlay that projection shows and a reset undoes", () => {
    const compactions = events.filter((event) => event.type === "compaction");
    expect(summary.compactions).toBe(1);
    expect(compactions).toHaveLength(1);
    const compaction = compactions[0]!;
    // Claude Code kept the second turn's last message verbatim, so the second turn stays whole.
    expect(compaction).toMatchObject({
      from_turn: 0,
      to_turn: 0,
      source: "user",
      summary: { source: "supplied", author: "assistant" },
      origin: { agent: "claude-code" },
    });
    expect(compaction.type === "compaction" && compaction.summary?.summary).toContain(scenario.summary);
    const compacted = projectConversation(events);
    expect(compacted.turns.map((turn) => turn.origin.kind)).toEqual(["summary", "kept", "kept"]);
    expect(JSON.stringify(compacted.events)).not.toContain(scenario.thinking.text);
    const reset: ConversationEvent = {
      type: "compaction_reset",
      id: "RESET",
      ts: "2026-12-31T00:00:00Z",
      retires: [compaction.type === "compaction" ? compaction.id : ""],
    };
    const restored = projectConversation([...events, reset]);
    expect(restored.turns.map((turn) => turn.origin.kind)).toEqual(["kept", "kept", "kept"]);
  });

  it("skips bookkeeping and the /compact echo, and counts them", () => {
    expect(summary.unknown).toEqual({});
    expect(summary.skipped["command echo"]).toBe(3);
    for (const type of ["queue-operation", "last-prompt", "cost-state"]) {
      expect(summary.skipped[type]).toBeGreaterThan(0);
    }
    expect(JSON.stringify(events)).not.toContain("<command-name>");
    expect(summary.sideChainRecords).toBe(0);
    expect(summary.abandonedBranches).toBe(0);
  });

  it("gives the same events for the same file", () => {
    expect(load().conversation).toEqual(conversation);
  });
});

describe("the committed fixtures", () => {
  it("hold neither machine paths nor the agents' own prompts and tool descriptions", () => {
    const pi = readFileSync(
      fileURLToPath(new URL("../../fixtures/agents/pi/session.jsonl", import.meta.url)),
      "utf8",
    );
    for (const text of [session, pi]) {
      expect(text).not.toMatch(/\/tmp\/|\/work\/|\/root\//);
      expect(text).not.toMatch(/"type":"api-request|"type":"prompt_snapshot"|"type":"skill_listing"/);
    }
  });
});

describe("Claude Code import: chains", () => {
  it("leaves side chains and abandoned branches out and counts them", () => {
    const all = records();
    const firstPrompt = all.find((record) => record.type === "user")!;
    const base = {
      sessionId: scenario.sessionId,
      timestamp: "2026-12-01T10:14:26.500Z",
      cwd: "/home/user/project",
    };
    const extra = [
      {
        ...base,
        type: "user",
        uuid: "side-1",
        parentUuid: null,
        isSidechain: true,
        message: { role: "user", content: "a subagent's task" },
      },
      {
        ...base,
        type: "user",
        uuid: "branch-1",
        parentUuid: firstPrompt.uuid,
        message: { role: "user", content: "an edited prompt, abandoned" },
      },
      {
        ...base,
        type: "assistant",
        uuid: "branch-2",
        parentUuid: "branch-1",
        message: { id: "msg_x", role: "assistant", model: "m", content: [{ type: "text", text: "dropped" }] },
      },
    ];
    const { summary, conversation } = load(toJsonl([...all.slice(0, 6), ...extra, ...all.slice(6)]));
    expect(summary).toMatchObject({ sideChainRecords: 1, abandonedBranches: 1, abandonedRecords: 2 });
    expect(JSON.stringify(conversation.events)).not.toContain("abandoned");
    expect(summary.turns).toBe(3);
  });

  it("falls back to the last record when last-prompt names one that is gone, and counts unknown types", () => {
    const edited = records().map((record) =>
      record.type === "last-prompt" ? { ...record, leafUuid: "not-in-the-file" } : record,
    );
    edited.push({ type: "future-record", sessionId: scenario.sessionId });
    const { summary } = load(toJsonl(edited));
    expect(summary.turns).toBe(3);
    expect(summary.unknown).toEqual({ "future-record": 1 });
  });

  it("follows a leaf that the agent went on from without a new last-prompt", () => {
    const all = records().filter((record) => record.type !== "last-prompt");
    const first = all.findIndex((record) => record.type === "user");
    // Only the first last-prompt, naming the first prompt: the rest descends from it.
    const named = { type: "last-prompt", leafUuid: all[first]!.uuid, sessionId: scenario.sessionId };
    const { summary } = load(toJsonl([...all.slice(0, first + 1), named, ...all.slice(first + 1)]));
    expect(summary.turns).toBe(3);
  });

  it("crosses a compaction boundary whose logical parent was never written, by its preserved segment's tail", () => {
    // The pinned Claude Code, resumed with a SessionStart hook, links a `/compact` to the hook's
    // attachment, which it keeps only in memory.
    const edited = records().map((record) =>
      record.subtype === "compact_boundary" ? { ...record, logicalParentUuid: "never-written" } : record,
    );
    const { summary, warnings } = load(toJsonl(edited));
    expect(summary.turns).toBe(3);
    expect(summary.compactions).toBe(1);
    expect(warnings).toEqual([]);
    // Without the tail, the history before the boundary is missing, and the import says so.
    const without = edited.map((record) =>
      record.subtype === "compact_boundary" ? { ...record, compactMetadata: {} } : record,
    );
    const lost = load(toJsonl(without));
    expect(lost.summary.compactions).toBe(0);
    expect(lost.warnings).toEqual([expect.stringMatching(/its parent never-written is not in the file/)]);
  });

  it("leaves out an incomplete last line with a warning", () => {
    const { warnings, summary } = load(`${session}{"type":"assistant","uu`);
    expect(summary.turns).toBe(3);
    expect(warnings).toEqual([expect.stringMatching(/^session\.jsonl:\d+: the last line is incomplete/)]);
  });
});

describe("Claude Code import: bad input", () => {
  it("names the file and line of a line that is not JSON", () => {
    const lines = session.split("\n");
    lines[4] = "{not json";
    expect(errorOf(lines.join("\n"))).toMatch(/^bad\.jsonl:5: not valid JSON/);
  });

  it("names the line where the uuid/parentUuid chain loops back on itself", () => {
    const record = (uuid: string, parentUuid: string, text: string) =>
      JSON.stringify({
        type: "user",
        uuid,
        parentUuid,
        timestamp: "2026-01-01T00:00:00Z",
        message: { role: "user", content: text },
      });
    expect(errorOf(`${record("a", "b", "one")}\n${record("b", "a", "two")}\n`)).toBe(
      "bad.jsonl:2: the uuid/parentUuid chain loops back on itself",
    );
  });

  it("names the line of a record without a type, or a message record without its fields", () => {
    expect(errorOf('{"uuid":"x"}\n')).toBe(
      "bad.jsonl:1: not a Claude Code session record (it has no string `type`)",
    );
    const noMessage = JSON.stringify({
      type: "user",
      uuid: "u",
      parentUuid: null,
      timestamp: "2026-01-01T00:00:00Z",
    });
    expect(errorOf(`{"type":"mode"}\n${noMessage}\n`)).toBe(
      "bad.jsonl:2: a user record needs a `message` object",
    );
    const noUuid = JSON.stringify({
      type: "assistant",
      timestamp: "2026-01-01T00:00:00Z",
      message: { content: [] },
    });
    expect(errorOf(`${noUuid}\n`)).toBe("bad.jsonl:1: a assistant record needs a string `uuid`");
  });

  it("says so when the file is a pi session or holds no Claude Code messages", () => {
    const pi = readFileSync(
      fileURLToPath(new URL("../../fixtures/agents/pi/session.jsonl", import.meta.url)),
      "utf8",
    );
    expect(errorOf(pi, "pi.jsonl")).toMatch(/^pi\.jsonl:1: this is a pi session/);
    expect(errorOf('{"type":"queue-operation"}\n')).toBe(
      "bad.jsonl: not a Claude Code session: it has no user or assistant records (line 1 is a 'queue-operation' record)",
    );
    expect(errorOf("")).toMatch(/the file is empty/);
  });
});

describe("Claude Code export", () => {
  const imported = load().conversation.events;

  it("round trip: import → export → import sends the model the same messages", () => {
    const exported = exportSession(imported);
    expect(exported.nativeSummaries).toBe(1);
    const again = load(`${exported.lines.join("\n")}\n`, "exported.jsonl");
    expect(again.warnings).toEqual([]);
    expect(visible(again.conversation.events)).toEqual(visible(imported));
    // And once more: the summary keeps Claude Code's own shape.
    const twice = load(`${exportSession(again.conversation.events).lines.join("\n")}\n`, "twice.jsonl");
    expect(visible(twice.conversation.events)).toEqual(visible(imported));
  });

  it("writes the records Claude Code resumes from, with the supplied ids, and its summary word for word", () => {
    const lines = exportSession(imported).lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({
      type: "system",
      subtype: "compact_boundary",
      parentUuid: null,
      uuid: "00000000-0000-4000-8000-000000000001",
      sessionId: "11111111-2222-4333-8444-555555555555",
      cwd: "/home/user/project",
    });
    const compaction = imported.find((event) => event.type === "compaction");
    expect(lines[1]).toMatchObject({
      type: "user",
      isCompactSummary: true,
      parentUuid: lines[0]!.uuid,
      message: { content: compaction?.type === "compaction" ? compaction.summary?.summary : "" },
    });
    for (const [index, line] of lines.slice(1, -1).entries())
      expect(line.parentUuid).toBe(lines[index]!.uuid);
    const assistants = lines.filter((line) => line.type === "assistant");
    expect(assistants.length).toBeGreaterThan(0);
    for (const line of assistants) {
      expect(line.message).toMatchObject({
        model: scenario.model,
        usage: { input_tokens: 0, output_tokens: 0 },
      });
    }
    expect(lines.at(-1)).toMatchObject({ type: "last-prompt", leafUuid: lines.at(-2)!.uuid });
    expect(exportSession(imported).lines).toEqual(exportSession(imported).lines);
  });

  it("writes cxc's own summary as a Claude Code compaction, and stripped tool calls as projected", () => {
    const cxcCompaction: ConversationEvent = {
      type: "compaction",
      id: "CXC1",
      ts: "2026-12-31T00:00:00Z",
      from_turn: 0,
      to_turn: 1,
      summary: { summary: "cxc's summary of two turns", source: "derived", recipe: "builtin/digest" },
      source: "user",
    };
    const stripTools: ConversationEvent = {
      type: "compaction",
      id: "CXC2",
      ts: "2026-12-31T00:00:01Z",
      from_turn: 2,
      to_turn: 2,
      tool_calls: { policy: "strip", request: true, response: true },
      reasoning: "strip",
      source: "user",
    };
    const lines = exportSession([...imported, cxcCompaction, stripTools]).lines.map(
      (line) =>
        JSON.parse(line) as { type: string; isCompactSummary?: boolean; message?: { content: unknown } },
    );
    const summary = lines.find((line) => line.isCompactSummary === true)!;
    expect(summary.message!.content).toContain("<summary>\ncxc's summary of two turns\n</summary>");
    expect(JSON.stringify(lines)).not.toContain(scenario.answers[1]!);
    expect(JSON.stringify(lines)).toContain(scenario.answers[2]!);
  });

  it("writes a summary further in as the projection has it", () => {
    const later: ConversationEvent = {
      type: "compaction",
      id: "CXC3",
      ts: "2026-12-31T00:00:00Z",
      from_turn: 2,
      to_turn: 2,
      summary: { summary: "the last turn, summarized", source: "supplied", author: "user" },
      source: "user",
    };
    const own = imported.find((event) => event.type === "compaction");
    const reset: ConversationEvent = {
      type: "compaction_reset",
      id: "RESET",
      ts: "2026-12-31T00:00:01Z",
      retires: [own?.type === "compaction" ? own.id : ""],
    };
    const exported = exportSession([...imported, later, reset]);
    expect(exported.nativeSummaries).toBe(0);
    const texts = exported.lines.map((line) => JSON.parse(line) as { message?: { content: unknown } });
    const request = texts.findIndex((line) => line.message?.content === SUMMARY_REQUEST_TEXT);
    expect(request).toBeGreaterThan(0);
    expect(JSON.stringify(texts[request + 1]!.message!.content)).toContain("the last turn, summarized");
  });
});
