/**
 * The `compact` tool anchored inside the turn in progress (docs/compact-tool.md, "Inside the turn
 * in progress"), in the real turn loop with the model played by the loopback fake provider
 * through the real Anthropic client: the model reads three files, then summarizes the first two
 * reads by quoting the user's message and the third file's output. The summary is recorded as a
 * deferred cycle-precise compaction; the rest of the turn keeps its prompt prefix, and the next
 * turn sees the user's message, the summary where the two reads were, then the third read and the
 * calling cycle verbatim.
 */
import { jsonSchemaArguments } from "../../src/tools/arguments.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Compaction, ConversationEvent } from "../../src/core/conversation/events.js";
import { createLlmClient } from "../../src/llm/registry.js";
import { type ApprovalPrompter, type PendingCall, TurnApprovals } from "../../src/query/approval.js";
import type { TurnDisplay } from "../../src/query/turn-loop.js";
import { writeScratchFile } from "../../src/store/scratch.js";
import { createCompactTool } from "../../src/tools/compact.js";
import type { Tool } from "../../src/tools/tool.js";
import { createEventBuilder } from "../helpers/builders.js";
import { type FakeProvider, type FakeReply, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { recordingStore, runHeldTurn } from "../helpers/memory-store.js";

let provider: FakeProvider;
let previewRoot: string;
beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(() => provider.close());
beforeEach(() => {
  provider.requests.length = 0;
  previewRoot = mkdtempSync(join(tmpdir(), "cxc-compact-cycles-"));
});
afterEach(() => {
  rmSync(previewRoot, { recursive: true, force: true });
  expect(provider.remaining()).toBe(0);
});

const OUTPUTS: Record<string, string> = {
  "a.log": "first log: connection refused at 10:02, retrying ".repeat(6),
  "b.log": "second log: pool exhausted after 30 retries ".repeat(6),
  "c.log": "third log: the config sets max_connections = 5",
};

/** A read-only file tool the model uses in this turn. */
const readLog: Tool<Readonly<Record<string, unknown>>> = {
  name: "read_log",
  description: "Read a log file.",
  arguments: jsonSchemaArguments({
    type: "object",
    properties: { path: { type: "string" } },
    required: ["path"],
  }),
  source: "builtin",
  defaults: { enable: true, run: "unattended" },
  async run(argumentsObject) {
    return { content: OUTPUTS[String(argumentsObject.path)] ?? "no such log", isError: false };
  },
};

const silentDisplay: TurnDisplay = {
  requestStarted() {},
  textDelta() {},
  reasoningDelta() {},
  eventStored() {},
  toolStarted() {},
  toolRunning() {},
  toolFinished() {},
  notice() {},
  finish() {},
};

function approving(): ApprovalPrompter & { shown: PendingCall[] } {
  const shown: PendingCall[] = [];
  return {
    shown,
    async ask(call) {
      shown.push(call);
      return "y";
    },
    async editArguments() {
      return undefined;
    },
  };
}

function call(id: string, name: string, argumentsObject: Record<string, unknown>): FakeReply {
  return { blocks: [{ type: "tool-call", id, name, arguments: argumentsObject }] };
}

let tick = 0;
async function turn(
  events: ConversationEvent[],
  message: string,
  prompter: ApprovalPrompter,
): Promise<ConversationEvent[]> {
  const store = await recordingStore({ id: "conv1", events });
  const compact = createCompactTool({
    writePreview: (stem, text) => writeScratchFile({ XDG_CACHE_HOME: previewRoot }, stem, text),
  });
  await runHeldTurn(store, "conv1", {
    store,
    events,
    message,
    client: createLlmClient("anthropic/claude-sonnet-4-6", {
      env: { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: provider.anthropicBaseURL },
      retry: false,
    }),
    tools: {
      tools: [
        { tool: readLog, run: "unattended" },
        { tool: compact, run: "ask" },
      ],
    },
    approvals: new TurnApprovals(prompter),
    display: silentDisplay,
    maxCycles: 10,
    signal: new AbortController().signal,
    clock: {
      now: () => new Date(Date.UTC(2026, 1, 1) + ++tick * 1000).toISOString(),
      newEventId: () => `e-${++tick}`,
    },
    cwd: process.cwd(),
  });
  return store.load("conv1").events;
}

function messagesText(index: number): string {
  const { messages } = provider.requests[index]!.body as { messages: unknown[] };
  return JSON.stringify(messages, (key, value) => (key === "cache_control" ? undefined : value));
}

const USER_MESSAGE = "investigate the database crash";

describe("the compact tool inside the turn in progress", () => {
  it("summarizes earlier cycles of this turn by quote, deferred to the next turn", async () => {
    const build = createEventBuilder();
    const earlier = build.turn("hello", { answer: "hi" });
    provider.enqueue(
      call("r1", "read_log", { path: "a.log" }),
      call("r2", "read_log", { path: "b.log" }),
      call("r3", "read_log", { path: "c.log" }),
      call("k1", "compact", {
        rules: [
          {
            after_quote: USER_MESSAGE,
            before_quote: "the config sets max_connections = 5",
            summary: "The first two logs show refused connections and an exhausted pool.",
            note: "The raw logs are long and on disk.",
          },
        ],
      }),
      textReply("The pool is too small."),
    );
    const prompter = approving();
    const events = await turn(earlier, USER_MESSAGE, prompter);

    const detail = prompter.shown.find((shown) => shown.name === "compact")!.detail!;
    expect(detail).toContain("turn 2, cycles 1..2 → the assistant's summary (11 words)");
    // The excerpts are the first and last content the rule replaces: the first call, the second result.
    expect(detail).toContain('from     "read_log {\\"path\\":\\"a.log\\"}"');
    expect(detail).toContain('to       "…after 30 retries second log: pool exhausted after 30 retries"');
    expect(detail).toMatch(/preview {2}\S+\/conv1-compact-1-turn-2-cycles-1-2-[0-9a-f]{8}\.md\n/);
    const [compaction] = events.filter((event): event is Compaction => event.type === "compaction");
    expect(compaction).toMatchObject({
      from_turn: 1,
      to_turn: 1,
      cycles: {
        from: 0,
        to: 1,
        summary: {
          summary: "The first two logs show refused connections and an exhausted pool.",
          source: "supplied",
          author: "assistant",
        },
      },
      source: "assistant",
      deferred_until_turn: 2,
    });

    // The rest of this turn runs on the same prefix: the last request still holds the two reads.
    const sameTurn = messagesText(provider.requests.length - 1);
    expect(sameTurn).toContain("second log: pool exhausted");

    // The next turn: the user's message, the summary where the reads were, then the rest verbatim.
    provider.enqueue(textReply("Next."));
    await turn(events, "what now?", approving());
    const next = messagesText(provider.requests.length - 1);
    expect(next).not.toContain("first log: connection refused");
    expect(next).not.toContain("second log: pool exhausted");
    expect(next).toContain(
      `"${USER_MESSAGE}"},{"type":"text","text":"[Summary of earlier steps in this turn]\\n\\nThe first two logs show refused connections and an exhausted pool.\\n\\n[Facts of these turns, from their raw events]\\nFiles read: a.log, b.log"}`,
    );
    expect(next).toContain("third log: the config sets max_connections = 5");
    expect(next).toContain('"name":"compact"');
    expect(next).toContain("The pool is too small.");
  });

  it("never anchors on the calling cycle, and tells the model what to do instead", async () => {
    const build = createEventBuilder();
    const earlier = build.turn("hello", { answer: "hi" });
    provider.enqueue(
      call("r1", "read_log", { path: "a.log" }),
      {
        blocks: [
          { type: "text", text: "I will compact after QUOTE-IN-THIS-CYCLE." },
          {
            type: "tool-call",
            id: "k1",
            name: "compact",
            arguments: { rules: [{ after_quote: "QUOTE-IN-THIS-CYCLE", tool_calls: "strip", note: "n" }] },
          },
        ],
      },
      textReply("I see."),
    );
    const events = await turn(earlier, USER_MESSAGE, approving());
    const response = events.find((event) => event.type === "tool_call_response" && event.call_id === "k1");
    expect(response).toMatchObject({ is_error: true });
    expect(response?.type === "tool_call_response" && response.content).toContain(
      'after_quote "QUOTE-IN-THIS-CYCLE" was not found in the conversation.',
    );
    expect(events.some((event) => event.type === "compaction")).toBe(false);
  });
});
