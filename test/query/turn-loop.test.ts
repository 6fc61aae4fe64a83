/**
 * The turn loop in process, with a scripted `LlmClient` (no SDK, no network) and the in-memory
 * store, recording every append: what is stored, in which appends, in which order, and what each
 * request carried.
 */
import { jsonSchemaArguments } from "../../src/tools/arguments.js";
import { describe, expect, it } from "vitest";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import type { LlmRequest } from "../../src/core/conversation/request.js";
import type { LlmClient, LlmStreamEvent } from "../../src/llm/types.js";
import { TurnApprovals } from "../../src/query/approval.js";
import { selectTools } from "../../src/query/tool-selection.js";
import { answerOrphanedCalls, type TurnDisplay } from "../../src/query/turn-loop.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import type { Tool } from "../../src/tools/tool.js";
import { type RecordingStore, recordingStore, runHeldTurn } from "../helpers/memory-store.js";

const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 };
const end = (finishReason: "stop" | "tool-calls" = "stop"): LlmStreamEvent => ({
  type: "message-end",
  finishReason,
  usage,
});

function scriptedClient(cycles: LlmStreamEvent[][]): LlmClient & { requests: LlmRequest[] } {
  const requests: LlmRequest[] = [];
  return {
    modelId: "test/model",
    requests,
    async *stream(request) {
      requests.push(request);
      const events = cycles.shift();
      if (!events) throw new Error("no scripted cycle left");
      yield* events;
    },
  };
}

const CONVERSATION = "conv-under-test";

function memoryStore(): Promise<RecordingStore> {
  return recordingStore({ id: CONVERSATION });
}

const quietDisplay: TurnDisplay = {
  requestStarted: () => {},
  textDelta: () => {},
  reasoningDelta: () => {},
  eventStored: () => {},
  toolStarted: () => {},
  toolRunning: () => {},
  toolFinished: () => {},
  notice: () => {},
  finish: () => {},
};

function clock() {
  let counter = 0;
  return {
    now: () => `2026-01-01T00:00:${String(counter).padStart(2, "0")}Z`,
    newEventId: () => `e${++counter}`,
  };
}

/** A built-in tool that records a compaction as an effect of its call. */
const noteTool: Tool<Readonly<Record<string, unknown>>> = {
  name: "note",
  description: "records a note",
  arguments: jsonSchemaArguments({ type: "object" }),
  source: "builtin",
  defaults: { enable: true, run: "unattended" },
  run: async (argumentsObject, context) => ({
    content: `noted ${String(argumentsObject.text)}`,
    isError: false,
    effects: [{ type: "config_delta", id: context.newEventId(), ts: context.now(), delta: { noted: true } }],
  }),
};

function options(client: LlmClient, store: RecordingStore, events: ConversationEvent[] = []) {
  return {
    store,
    events,
    message: "hello",
    client,
    tools: selectTools({ registry: new ToolRegistry().register(noteTool), configured: {} }),
    approvals: new TurnApprovals(undefined),
    display: quietDisplay,
    maxCycles: 5,
    signal: new AbortController().signal,
    clock: clock(),
    cwd: "/",
  };
}

describe("runTurn", () => {
  it("stores the request first, each block as it completes, and tool effects with their response", async () => {
    const client = scriptedClient([
      [
        { type: "text-delta", text: "Noting." },
        { type: "tool-call", id: "t1", name: "note", arguments: { text: "x" } },
        end("tool-calls"),
      ],
      [{ type: "text-delta", text: "Done." }, end()],
    ]);
    const store = await memoryStore();
    const result = await runHeldTurn(store, CONVERSATION, options(client, store));
    expect(result).toMatchObject({ cycles: 2, stoppedAtCycleCap: false });
    expect(store.appends.map((append) => append.map((event) => event.type))).toEqual([
      ["turn_start", "chat_request"],
      // The text block completes when the tool call arrives; the call is held until the answer
      // ends, so that it carries the request's usage.
      ["chat_response"],
      ["tool_call_request"],
      ["tool_call_response", "config_delta"],
      ["chat_response"],
    ]);
    expect((store.appends[2]![0] as { metadata?: Record<string, unknown> }).metadata?.usage).toMatchObject({
      tools: ["note"],
    });
    expect(store.appends[3]![0]).toMatchObject({ call_id: "t1", content: "noted x", is_error: false });
    // What the loop appended is what the conversation now holds.
    expect(store.load(CONVERSATION).events).toEqual(store.appends.flat());
    // The follow-up request carries the call and its result, and tool_choice is not forced.
    const second = client.requests[1]!;
    expect(second.messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(second.messages[2]!.parts[0]).toMatchObject({
      type: "tool-result",
      callId: "t1",
      content: "noted x",
    });
    expect(second.tools.map((tool) => tool.name)).toEqual(["note"]);
  });

  it("answers a call for a tool that is not offered with an error, without running anything", async () => {
    const client = scriptedClient([
      [{ type: "tool-call", id: "t1", name: "missing", arguments: {} }, end("tool-calls")],
      [{ type: "text-delta", text: "ok" }, end()],
    ]);
    const store = await memoryStore();
    await runHeldTurn(store, CONVERSATION, options(client, store));
    const response = store.appends.flat().find((event) => event.type === "tool_call_response");
    expect(response).toMatchObject({ is_error: true, content: expect.stringContaining("not available") });
  });

  it("fails with the provider's error after storing the partial answer as interrupted", async () => {
    const client = scriptedClient([
      [
        { type: "text-delta", text: "part" },
        { type: "error", error: { kind: "overloaded", retryable: true, message: "busy" } },
      ],
    ]);
    const store = await memoryStore();
    await expect(runHeldTurn(store, CONVERSATION, options(client, store))).rejects.toMatchObject({
      code: "provider-overloaded",
    });
    expect(store.appends.at(-1)).toEqual([
      expect.objectContaining({ type: "chat_response", message: "part", interrupted: true }),
    ]);
  });

  it("keeps the partial answer when a client throws instead of ending its stream", async () => {
    const client: LlmClient = {
      modelId: "test/model",
      async *stream() {
        yield { type: "text-delta", text: "half" };
        throw new Error("socket closed");
      },
    };
    const store = await memoryStore();
    await expect(runHeldTurn(store, CONVERSATION, options(client, store))).rejects.toMatchObject({
      code: "provider-error",
    });
    expect(store.appends.at(-1)).toEqual([
      expect.objectContaining({ type: "chat_response", message: "half", interrupted: true }),
    ]);
  });

  it("records a model change as a config_delta before the turn", async () => {
    const client = scriptedClient([[{ type: "text-delta", text: "hi" }, end()]]);
    const store = await memoryStore();
    await runHeldTurn(store, CONVERSATION, {
      ...options(client, store),
      configDelta: { assistant: { model: { id: "x/y" } } },
    });
    expect(store.appends[0]!.map((event) => event.type)).toEqual([
      "config_delta",
      "turn_start",
      "chat_request",
    ]);
  });
});

describe("runTurn when interrupted before it starts", () => {
  it("stores nothing and reports the interrupt (Ctrl-C while waiting for the lock)", async () => {
    const controller = new AbortController();
    controller.abort();
    const store = await memoryStore();
    const client = scriptedClient([]);
    await expect(
      runHeldTurn(store, CONVERSATION, { ...options(client, store), signal: controller.signal }),
    ).rejects.toMatchObject({
      code: "interrupted",
      exitCode: 130,
    });
    expect(store.appends).toEqual([]);
    expect(client.requests).toEqual([]);
  });
});

describe("answerOrphanedCalls", () => {
  it("answers each unanswered call once, in order", () => {
    const events: ConversationEvent[] = [
      { type: "tool_call_request", id: "1", ts: "t", call_id: "a", name: "n", arguments: {} },
      { type: "tool_call_request", id: "2", ts: "t", call_id: "b", name: "n", arguments: {} },
      { type: "tool_call_response", id: "3", ts: "t", call_id: "a", content: "ok", is_error: false },
      { type: "tool_call_request", id: "4", ts: "t", call_id: "c", name: "n", arguments: {} },
    ];
    expect(answerOrphanedCalls(events, clock()).map((event) => [event.call_id, event.content])).toEqual([
      ["b", "Tool call was interrupted."],
      ["c", "Tool call was interrupted."],
    ]);
  });
});
