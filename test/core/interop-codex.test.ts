/**
 * Codex rollout files → cxc events (pure), over the committed fixture that the real Codex wrote
 * against the fake provider's Responses API (scripts/make-agent-fixtures.mjs --agent codex): turns,
 * tool calls and their output, reasoning, the model, what is skipped, and bad input naming
 * file:line.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { importCodexSession } from "../../src/core/interop/codex.js";
import { OPENAI_ENCRYPTED_REASONING_KEY, OPENAI_REASONING_ID_KEY } from "../../src/core/provider-keys.js";
import { detectAgentSession } from "../../src/core/interop/agent-session.js";
import { groupTurns } from "../../src/core/conversation/turns.js";

const fixture = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../../fixtures/agents/codex/${name}`, import.meta.url)), "utf8");
const session = fixture("session.jsonl");
const scenario = JSON.parse(fixture("scenario.json")) as {
  sessionId: string;
  version: string;
  prompts: string[];
  answers: string[];
  thinking: { text: string; signature: string };
  summary: string;
  toolCalls: { id: string; name: string; input: Record<string, unknown> }[];
};

type Json = Record<string, unknown>;
const records = () =>
  session
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Json);
const toJsonl = (items: unknown[]) => `${items.map((item) => JSON.stringify(item)).join("\n")}\n`;

function load(text = session) {
  const result = importCodexSession(text, "rollout.jsonl");
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

function failure(text: string): string {
  const result = importCodexSession(text, "rollout.jsonl");
  if (result.ok) throw new Error("expected the import to fail");
  return result.message;
}

describe("Codex import of the real fixture", () => {
  it("is detected from its first line", () => {
    expect(detectAgentSession(session.split("\n")[0]!)).toBe("codex");
  });

  it("gives the prompts, reasoning, tool calls with their output, and the answers, turn by turn", () => {
    const { conversation, summary } = load();
    const turns = groupTurns(conversation.events);
    expect(turns).toHaveLength(3);
    const [first, second, third] = turns.map((turn) => turn.events);
    expect(first!.find((event) => event.type === "chat_request")).toMatchObject({
      content: scenario.prompts[0],
    });
    expect(first!.find((event) => event.type === "chat_response" && "reasoning" in event)).toMatchObject({
      reasoning: scenario.thinking.text,
      metadata: {
        [OPENAI_ENCRYPTED_REASONING_KEY]: scenario.thinking.signature,
        [OPENAI_REASONING_ID_KEY]: expect.stringMatching(/_item_0$/),
        openai_reasoning_model: "fake/gpt-fake",
      },
    });
    const calls = [...first!, ...second!].filter((event) => event.type === "tool_call_request");
    expect(calls.map((call) => [call.call_id, call.name, call.arguments])).toEqual(
      scenario.toolCalls.map((call) => [call.id, call.name, call.input]),
    );
    const results = first!.filter((event) => event.type === "tool_call_response");
    expect(results.map((result) => result.call_id)).toEqual(
      scenario.toolCalls.slice(0, 2).map((call) => call.id),
    );
    expect(results[1]).toMatchObject({
      is_error: false,
      content: expect.stringContaining("remember the milk"),
    });
    expect(first!.at(-1)).toMatchObject({ type: "chat_response", message: scenario.answers[0] });
    expect(second!.at(-1)).toMatchObject({ type: "chat_response", message: scenario.answers[1] });
    expect(third!.map((event) => event.type)).toEqual(["turn_start", "chat_request", "chat_response"]);
    expect(third!.at(-1)).toMatchObject({ message: scenario.answers[2] });
    // The model of each turn, named by its provider as Codex was configured.
    expect(conversation.events[0]).toMatchObject({
      type: "config_delta",
      delta: { assistant: { model: { id: "fake/gpt-fake" } } },
    });
    // Codex's environment context and bookkeeping are skipped and counted; nothing is unknown.
    expect(summary).toMatchObject({ agent: "codex", turns: 3, compactions: 1, unknown: {} });
    expect(summary.skipped["environment context"]).toBe(1);
    expect(summary.skipped["compaction output"]).toBe(1);
    expect(summary.skipped.event_msg).toBeGreaterThan(0);
    expect(conversation.extra.origin).toEqual({
      agent: "codex",
      session_id: scenario.sessionId,
      cwd: "/home/user/project",
      version: scenario.version,
    });
    expect(conversation.title).toBe(scenario.prompts[0]);
  });

  it("makes Codex's own compaction an overlay over the two turns before it, in Codex's words", () => {
    const { conversation } = load();
    const compacted = records().find((record) => record.type === "compacted")!.payload as { message: string };
    expect(compacted.message).toContain(scenario.summary);
    const compactions = conversation.events.filter((event) => event.type === "compaction");
    expect(compactions).toEqual([
      expect.objectContaining({
        from_turn: 0,
        to_turn: 1,
        source: "user",
        summary: {
          summary: `${scenario.prompts[0]}\n\n${scenario.prompts[1]}\n\n${compacted.message}`,
          source: "supplied",
          author: "assistant",
        },
        note: "Codex's own compaction",
        origin: { agent: "codex", record: expect.any(String) },
      }),
    ]);
    // The compaction comes before the third turn, so it covers the two turns before it.
    const types = conversation.events.map((event) => event.type);
    expect(types.indexOf("compaction")).toBeLessThan(types.lastIndexOf("turn_start"));
  });

  it("gives the same conversation when imported twice", () => {
    expect(load().conversation).toEqual(load().conversation);
  });

  it("holds neither machine paths nor Codex's own instructions", () => {
    expect(session).not.toMatch(/\/tmp\/|\/work\/|\/root\//);
    expect(session).not.toContain("base_instructions");
    expect(session).not.toMatch(/"role":"developer"|"type":"world_state"/);
  });
});

describe("Codex import of other records", () => {
  const [meta] = records();
  const item = (payload: Json, ts = "2026-12-01T12:00:00.000Z") => ({
    timestamp: ts,
    type: "response_item",
    payload,
  });

  it("counts unknown records, keeps free-form tool input, and warns about Codex's own compaction", () => {
    const text = toJsonl([
      meta,
      item({ type: "message", role: "user", content: [{ type: "input_text", text: "patch it" }] }),
      item({ type: "custom_tool_call", call_id: "c1", name: "apply_patch", input: "*** Begin Patch" }),
      item({ type: "custom_tool_call_output", call_id: "c1", output: { content: "Done", success: false } }),
      { timestamp: "2026-12-01T12:00:01.000Z", type: "compacted", payload: { message: "a summary" } },
      { timestamp: "2026-12-01T12:00:01.000Z", type: "future_record", payload: {} },
      item({ type: "web_search_call", id: "ws" }),
    ]);
    const { conversation, summary, warnings } = load(text);
    const events = conversation.events.filter(
      (event) => event.type === "tool_call_request" || event.type === "tool_call_response",
    );
    expect(events).toMatchObject([
      { name: "apply_patch", arguments: { input: "*** Begin Patch" } },
      { content: "Done", is_error: true },
    ]);
    expect(summary.unknown).toEqual({ future_record: 1, "response_item web_search_call": 1 });
    expect(warnings).toEqual([
      expect.stringMatching(
        /^rollout\.jsonl:5: Codex's own compaction inside the first turn is not made an overlay/,
      ),
    ]);
  });

  it("refuses what is not a Codex session, naming file and line", () => {
    expect(failure(toJsonl([{ type: "session", id: "x", cwd: "/" }]))).toMatch(
      /^rollout\.jsonl:1: not a Codex session: the first line must be Codex's session_meta record, not a 'session' record$/,
    );
    expect(failure(toJsonl([meta, { timestamp: "2026-12-01T12:00:00.000Z", type: "event_msg" }]))).toMatch(
      /^rollout\.jsonl:2: a Codex record needs a `payload` object$/,
    );
    expect(failure(toJsonl([{ type: "event_msg", payload: {} }]))).toMatch(
      /^rollout\.jsonl:1: not a Codex session: the first line must be Codex's session_meta record, not a 'event_msg' record$/,
    );
    expect(failure(`${JSON.stringify(meta)}\n{oops\n`)).toMatch(
      /^rollout\.jsonl:2: not valid JSON .*not a Codex session line$/,
    );
    expect(failure(toJsonl([meta, { type: "response_item", payload: { type: "message" } }]))).toMatch(
      /^rollout\.jsonl:2: a response_item record needs a `timestamp`$/,
    );
    expect(failure(toJsonl([meta, item({ type: "function_call", name: "x" })]))).toMatch(
      /^rollout\.jsonl:2: a function_call needs a string `call_id` and `name`$/,
    );
    expect(failure(toJsonl([meta]))).toMatch(/^rollout\.jsonl: a Codex session without a single prompt/);
    expect(failure("")).toMatch(/^rollout\.jsonl: not a Codex session: the file is empty$/);
  });
});

describe("rollouts whose session_meta is not on line 1, or comes twice", () => {
  const plain = load();
  const [meta, ...rest] = session.trimEnd().split("\n");
  const shapes: [string, string][] = [
    ["a blank first line", `\n${session}`],
    ["two blank lines", `\n\n${session}`],
    ["a leading CRLF line", `\r\n${session}`],
    ["CRLF line ends throughout", `\r\n${session.replace(/\n/g, "\r\n")}`],
    [
      "a second session_meta (a resumed session)",
      `${[meta, ...rest.slice(0, 3), meta, ...rest.slice(3)].join("\n")}\n`,
    ],
  ];
  for (const [name, text] of shapes) {
    it(`imports with ${name}, the same conversation as the plain file`, () => {
      const { conversation, summary } = load(text);
      expect(conversation.events).toEqual(plain.conversation.events);
      expect(conversation.id).toBe(plain.conversation.id);
      expect(summary.skipped.session_meta).toBe(name.startsWith("a second") ? 2 : 1);
    });
  }
});

describe("Codex's own compactions as overlays", () => {
  const [meta] = records();
  let second = 0;
  const at = () => `2026-12-01T12:00:${String(second++).padStart(2, "0")}.000Z`;
  const item = (payload: Json, extra: Json = {}) => ({
    timestamp: at(),
    type: "response_item",
    payload,
    ...extra,
  });
  const prompt = (text: string) =>
    item({ type: "message", role: "user", content: [{ type: "input_text", text }] });
  const answer = (text: string) =>
    item({ type: "message", role: "assistant", content: [{ type: "output_text", text }] });
  const started = () => ({ timestamp: at(), type: "event_msg", payload: { type: "task_started" } });
  const userMessage = (text: string) => ({
    type: "message",
    role: "user",
    content: [{ type: "input_text", text }],
  });
  const compacted = (history: unknown[], extra: Json = {}) => ({
    timestamp: at(),
    type: "compacted",
    payload: { message: "SUMMARY", replacement_history: history, window_id: "win-2", ...extra },
  });
  const SUMMARY = "Another language model started to solve this problem …\nSUMMARY: the notes say milk.";

  it("covers the turns before a compaction at a turn's start, its summary what Codex's model saw", () => {
    const text = toJsonl([
      meta,
      started(),
      prompt("Read my notes"),
      answer("The notes say milk."),
      started(),
      prompt("And the todo?"),
      answer("Write the parser."),
      started(),
      item(
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "SUMMARY" }] },
        {
          metadata: { compaction_output: true },
        },
      ),
      compacted([
        {
          type: "message",
          role: "developer",
          content: [{ type: "input_text", text: "<skills_instructions>" }],
        },
        userMessage("<environment_context>\n  <cwd>/home/user/project</cwd>"),
        userMessage("Read my notes"),
        userMessage("And the todo?"),
        userMessage(SUMMARY),
      ]),
      prompt("Third question"),
      answer("Third answer."),
    ]);
    const { conversation, summary, warnings } = load(text);
    expect(warnings).toEqual([]);
    expect(summary).toMatchObject({ turns: 3, compactions: 1, unknown: {} });
    expect(summary.skipped["compaction output"]).toBe(1);
    const compactions = conversation.events.filter((event) => event.type === "compaction");
    expect(compactions).toEqual([
      expect.objectContaining({
        from_turn: 0,
        to_turn: 1,
        summary: {
          summary: `Read my notes\n\nAnd the todo?\n\n${SUMMARY}`,
          source: "supplied",
          author: "assistant",
        },
        note: "Codex's own compaction",
        origin: { agent: "codex", record: "win-2" },
      }),
    ]);
    // The summarizer's own answer is not an answer of the conversation.
    expect(JSON.stringify(conversation.events)).not.toContain('"message":"SUMMARY"');
  });

  it("keeps a turn it compacted in the middle of whole, and reads older rollouts' `message`", () => {
    const text = toJsonl([
      meta,
      started(),
      prompt("first"),
      answer("one"),
      started(),
      prompt("second, with a long tool run"),
      item({ type: "function_call", call_id: "c1", name: "exec_command", arguments: '{"cmd":"ls"}' }),
      compacted([userMessage("first"), userMessage("second, with a long tool run"), userMessage(SUMMARY)]),
      item({ type: "function_call_output", call_id: "c1", output: "a.txt" }),
      answer("two"),
      started(),
      prompt("third"),
      { timestamp: at(), type: "compacted", payload: { message: "An old-style summary." } },
      answer("three"),
    ]);
    const { conversation } = load(text);
    const compactions = conversation.events.filter((event) => event.type === "compaction");
    expect(compactions).toMatchObject([
      {
        from_turn: 0,
        to_turn: 0,
        summary: { summary: `first\n\n${SUMMARY}` },
        note: "Codex's own compaction (inside a turn, which is kept whole)",
      },
      { from_turn: 0, to_turn: 1, summary: { summary: "An old-style summary." } },
    ]);
    expect(groupTurns(conversation.events)).toHaveLength(3);
  });

  it("keeps an encrypted compaction as a native overlay: the history verbatim, a plain fallback with the facts", () => {
    const encrypted = { type: "compaction", encrypted_content: "opaque" };
    const text = toJsonl([
      meta,
      started(),
      prompt("first"),
      answer("one"),
      started(),
      compacted([userMessage("first"), encrypted]),
      prompt("second"),
    ]);
    const { conversation, warnings } = load(text);
    expect(warnings).toEqual([]);
    const compaction = conversation.events.find((event) => event.type === "compaction");
    expect(compaction).toMatchObject({
      from_turn: 0,
      to_turn: 0,
      requires: ["native-summary"],
      note: "Codex's own compaction, encrypted by OpenAI",
      summary: {
        source: "supplied",
        native: {
          format: "openai-compaction",
          provider: "fake",
          items: [userMessage("first"), encrypted],
          message: "SUMMARY",
        },
      },
    });
    const summary = (compaction as { summary: { summary: string; native: { items: unknown[] } } }).summary;
    expect(summary.native.items.at(-1)).toEqual(encrypted);
    expect(summary.summary.split("\n\n")).toEqual([
      expect.stringMatching(/^\[encrypted compaction by fake\/.+\]$/),
      "Only fake can read this summary; another model gets this notice instead. The user's messages it kept follow, then cxc's facts of these turns.",
      "first",
    ]);
  });
});
