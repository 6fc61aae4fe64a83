/**
 * OpenAI's encrypted compaction through cxc (pure): a Codex rollout whose `compacted` record holds
 * an encrypted `compaction` item (fixtures/agents/codex-encrypted, derived from the real Codex
 * session by scripts/make-codex-encrypted-fixture.mjs) is imported as a native overlay, written
 * back to Codex with its replacement history byte for byte, replayed as items only to the provider
 * that wrote it, and sent to every other model as a plain notice, the user's messages and cxc's
 * facts of the turns. Made inside a turn (fixtures/agents/codex-encrypted/mid-turn.jsonl), it is
 * replayed and exported with that turn's prompt once, where Codex's history holds it.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import { projectConversation } from "../../src/core/conversation/projection.js";
import { buildLlmRequest } from "../../src/core/conversation/request.js";
import { exportCodexSession } from "../../src/core/interop/codex-export.js";
import { importCodexSession } from "../../src/core/interop/codex.js";
import { toAnthropicRequest } from "../../src/llm/anthropic-request.js";
import { toResponsesRequest } from "../../src/llm/responses-request.js";

const fixture = readFileSync(
  fileURLToPath(new URL("../../fixtures/agents/codex-encrypted/session.jsonl", import.meta.url)),
  "utf8",
);
const ENCRYPTED = "gAAAAABpY3hjLWZpeHR1cmUtZW5jcnlwdGVkLWNvbXBhY3Rpb24tb25seS1vcGVuYWktY2FuLXJlYWQtdGhpcw==";

function imported(): ConversationEvent[] {
  const result = importCodexSession(fixture, "rollout.jsonl");
  if (!result.ok) throw new Error(result.message);
  return [...result.value.conversation.events];
}

/** The JSON text of each item of the `compacted` record's replacement history, as in the file. */
function historyTexts(line: string): string[] {
  const start = line.indexOf('"replacement_history":[') + '"replacement_history":['.length;
  const items: string[] = [];
  let depth = 0;
  let from = start;
  let inString = false;
  for (let at = start; at < line.length; at++) {
    const char = line[at]!;
    if (inString) {
      if (char === "\\") at++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === "{") {
      if (depth === 0) from = at;
      depth++;
    } else if (char === "}") {
      depth--;
      if (depth === 0) items.push(line.slice(from, at + 1));
    } else if (char === "]" && depth === 0) break;
  }
  return items;
}

const compactedLine = (text: string) => text.split("\n").find((line) => line.includes('"type":"compacted"'))!;

function requestFor(events: readonly ConversationEvent[]) {
  return buildLlmRequest(projectConversation(events).turns, { system: "sys" });
}

describe("OpenAI's encrypted compaction", () => {
  it("exports back to Codex with the replacement history byte for byte", () => {
    const events = imported();
    const result = exportCodexSession(events, {
      sessionId: "5b0c9d3e-2f1a-4c8b-9e7d-6a5b4c3d2e1f",
      cwd: "/home/user/project",
      timestamp: "2026-12-02T09:00:00Z",
      version: "0.169.0",
    });
    if (!result.ok) throw new Error(result.message);
    const original = historyTexts(compactedLine(fixture));
    expect(original.length).toBe(4);
    expect(original.at(-1)).toBe(`{"type":"compaction","encrypted_content":"${ENCRYPTED}"}`);
    const exported = compactedLine(result.value.lines.join("\n"));
    expect(historyTexts(exported)).toEqual(original);
    expect(JSON.parse(exported).payload.message).toBe("");
    expect(result.value.nativeSummaries).toBe(1);
  });

  it("replays the items only to the provider that wrote them, without cxc's opener or facts", () => {
    const body = toResponsesRequest(requestFor(imported()), "gpt-fake", { modelId: "fake/gpt-fake" });
    const input = body.input as unknown as Record<string, unknown>[];
    expect(input.filter((item) => item.type === "compaction")).toEqual([
      { type: "compaction", encrypted_content: ENCRYPTED },
    ]);
    const sent = JSON.stringify(input);
    expect(sent).not.toContain("[Summary of previous conversation]");
    expect(sent).not.toContain("[encrypted compaction");
    expect(sent).not.toContain("Facts of these turns");
    expect(sent).not.toContain("internal_chat_message_metadata_passthrough");
    // Codex's order: the kept prompts, the compaction item, then the turn after it.
    const firstPrompt = input.findIndex((item) => JSON.stringify(item).includes("what do the notes say?"));
    const compaction = input.findIndex((item) => item.type === "compaction");
    const after = input.findIndex((item) => JSON.stringify(item).includes("What should I do first?"));
    expect(firstPrompt).toBeLessThan(compaction);
    expect(compaction).toBeLessThan(after);
  });

  it("gives every other model the plain notice, the user's messages and the facts", () => {
    const request = requestFor(imported());
    const other = JSON.stringify(toResponsesRequest(request, "gpt-5", { modelId: "openai/gpt-5" }).input);
    const anthropic = JSON.stringify(toAnthropicRequest(request, "claude-opus-4-6").messages);
    for (const sent of [other, anthropic]) {
      expect(sent).not.toContain(ENCRYPTED);
      expect(sent).toContain("[Summary of previous conversation]");
      expect(sent).toContain("[encrypted compaction by fake/gpt-fake]");
      expect(sent).toContain("Only fake can read this summary");
      expect(sent).toContain("Is there a changelog?");
      expect(sent).toContain("[Facts of these turns, from their raw events]");
      expect(sent).toContain("notes.txt");
    }
  });
});

describe("OpenAI's encrypted compaction made inside a turn", () => {
  // Codex compacted inside its second turn, after the tool result: the history holds that turn's
  // prompt before the item (scripts/make-codex-encrypted-fixture.mjs).
  const rollout = readFileSync(
    fileURLToPath(new URL("../../fixtures/agents/codex-encrypted/mid-turn.jsonl", import.meta.url)),
    "utf8",
  );
  const events = () => {
    const result = importCodexSession(rollout, "rollout.jsonl");
    if (!result.ok) throw new Error(result.message);
    return [...result.value.conversation.events];
  };
  const count = (text: string, pattern: string) => text.split(pattern).length - 1;

  it("keeps the turn whole and records what of it the compaction stands for", () => {
    const compaction = events().find((event) => event.type === "compaction");
    expect(compaction).toMatchObject({
      from_turn: 0,
      to_turn: 0,
      note: "Codex's own compaction, encrypted by OpenAI (inside a turn, which is kept whole)",
      // The turn's prompt, its call and the call's result came before it.
      summary: { native: { format: "openai-compaction", inside_turn: true, turn_events: 3 } },
    });
  });

  it("replays what Codex's model sees: the history (that turn's prompt once, before the item), then the rest of the turn", () => {
    const body = toResponsesRequest(requestFor(events()), "gpt-fake", { modelId: "fake/gpt-fake" });
    const input = body.input as unknown as Record<string, unknown>[];
    expect(count(JSON.stringify(input), "Is there a changelog?")).toBe(1);
    const shape = input.map((item) =>
      item.type === "message" ? `${String(item.role)}: ${JSON.stringify(item.content)}` : String(item.type),
    );
    expect(shape).toEqual([
      expect.stringMatching(/^user: .*what do the notes say\?/),
      expect.stringMatching(/^user: .*Is there a changelog\?/),
      "compaction",
      // The steps before the compaction (the call and its result) are what the item stands for.
      'assistant: "There is no CHANGELOG.md."',
      'user: "What should I do first?"',
      'assistant: "Write the parser first."',
    ]);
  });

  it("gives another model the turn whole, its prompt once, after the notice", () => {
    const request = requestFor(events());
    for (const sent of [
      JSON.stringify(toResponsesRequest(request, "gpt-5", { modelId: "openai/gpt-5" }).input),
      JSON.stringify(toAnthropicRequest(request, "claude-opus-4-6").messages),
    ]) {
      expect(count(sent, "Is there a changelog?")).toBe(1);
      expect(sent).toContain("[encrypted compaction by fake/gpt-fake]");
      expect(sent.indexOf("[encrypted compaction")).toBeLessThan(sent.indexOf("Is there a changelog?"));
      expect(sent).toContain("call_fixture_changelog");
    }
  });

  it("exports back to Codex with the history byte for byte and the prompt once", () => {
    const result = exportCodexSession(events(), {
      sessionId: "5b0c9d3e-2f1a-4c8b-9e7d-6a5b4c3d2e1f",
      cwd: "/home/user/project",
      timestamp: "2026-12-02T09:00:00Z",
      version: "0.169.0",
    });
    if (!result.ok) throw new Error(result.message);
    const text = result.value.lines.join("\n");
    expect(historyTexts(compactedLine(text))).toEqual(historyTexts(compactedLine(rollout)));
    const items = result.value.lines
      .map((line) => JSON.parse(line) as { type: string; payload: Record<string, unknown> })
      .filter((record) => record.type === "response_item" || record.type === "compacted");
    // After the compacted record, the turn goes on with its answer: its prompt is in the history,
    // and its call and result are what the item stands for, as in Codex's own rollout.
    expect(
      items.filter((record) => JSON.stringify(record.payload).includes("Is there a changelog?")),
    ).toEqual([expect.objectContaining({ type: "compacted" })]);
    expect(items[0]?.type).toBe("compacted");
    expect(items[1]?.payload).toMatchObject({ type: "message", role: "assistant" });
    expect(JSON.stringify(items[1]?.payload)).toContain("There is no CHANGELOG.md.");
    expect(text).not.toContain("call_fixture_changelog");
  });
});
