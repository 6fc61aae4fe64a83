/**
 * The `compact` tool inside the real turn loop (src/query/turn-loop.ts), with the model played by
 * the loopback fake provider through the real Anthropic and OpenAI clients. The approval prompt is
 * scripted (the terminal prompt itself is driven in a pseudo-terminal in compact-tool-cli.test.ts).
 *
 * Covers seed D69's Phase 4 list: deferred activation across a turn boundary (the request body of
 * the same turn keeps the old prefix, the next turn's has the compacted view), two calls in one
 * turn where the second overlaps the first, a declined call recording nothing, an edited call
 * recording the edit, refusal without a terminal, and enable = explicit / -u forcing.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Compaction, ConversationEvent, ToolCallResponse } from "../../src/core/conversation/events.js";
import { createLlmClient } from "../../src/llm/registry.js";
import {
  type ApprovalPrompter,
  declinedText,
  type PendingCall,
  type PromptAnswer,
  refusedText,
  TurnApprovals,
} from "../../src/query/approval.js";
import { selectTools, type ToolSelection } from "../../src/query/tool-selection.js";
import type { TurnDisplay } from "../../src/query/turn-loop.js";
import { writeScratchFile } from "../../src/store/scratch.js";
import { createCompactTool, precheckCompactCall } from "../../src/tools/compact.js";
import { createMemoryStore } from "../../src/store/index.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { describeToolCall, type RunMode } from "../../src/tools/tool.js";
import { recordingStore, runHeldTurn } from "../helpers/memory-store.js";
import { createEventBuilder } from "../helpers/builders.js";
import { type FakeProvider, type FakeReply, startFakeProvider, textReply } from "../helpers/fake-provider.js";

/** `chat` is OpenAI through Chat Completions, `responses` through the Responses API. */
type ProviderKind = "anthropic" | "chat" | "responses";

let provider: FakeProvider;
let previewRoot: string;

beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(async () => {
  await provider.close();
});
beforeEach(() => {
  provider.requests.length = 0;
  previewRoot = mkdtempSync(join(tmpdir(), "cxc-compact-test-"));
});
afterEach(() => {
  rmSync(previewRoot, { recursive: true, force: true });
  expect(provider.remaining()).toBe(0);
});

/** Four earlier turns; the quote below is from the fourth. */
function history(): ConversationEvent[] {
  const build = createEventBuilder();
  return [
    ...build.turn("set up the project skeleton", { reasoning: "thinking about layout" }),
    ...build.turn("fix the container width bug", { tools: [{ name: "read_file", result: "width: 100%" }] }),
    ...build.turn("make the divider draggable"),
    ...build.turn("now the current task: one-sided drag", { answer: "Working on the one-sided drag now." }),
  ];
}

function clientFor(kind: ProviderKind) {
  return kind === "anthropic"
    ? createLlmClient("anthropic/claude-sonnet-4-6", {
        env: { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: provider.anthropicBaseURL },
        retry: false,
      })
    : createLlmClient("openai/gpt-5", {
        env: { OPENAI_API_KEY: "test", OPENAI_BASE_URL: provider.openaiBaseURL },
        config: { providers: { openai: { api: kind } } },
        retry: false,
      });
}

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

/** A prompter that answers from a script and records what it was shown. */
function scriptedPrompter(
  answers: PromptAnswer[],
  edit?: (call: PendingCall) => Record<string, unknown>,
): ApprovalPrompter & { shown: PendingCall[] } {
  const shown: PendingCall[] = [];
  return {
    shown,
    async ask(call) {
      shown.push(call);
      const answer = answers.shift();
      if (answer === undefined) throw new Error("the prompt was asked more often than scripted");
      return answer;
    },
    async editArguments(call) {
      return edit?.(call);
    },
  };
}

function compactSelection(run: RunMode = "ask", forced = true): ToolSelection {
  const tool = createCompactTool({
    writePreview: (stem, text) => writeScratchFile({ XDG_CACHE_HOME: previewRoot }, stem, text),
  });
  return forced ? { tools: [{ tool, run }], forced: "compact" } : { tools: [{ tool, run }] };
}

let clockTick = 0;
async function turn(
  kind: ProviderKind,
  events: ConversationEvent[],
  message: string,
  options: { prompter?: ApprovalPrompter; tools?: ToolSelection } = {},
): Promise<ConversationEvent[]> {
  let counter = 0;
  const store = await recordingStore({ id: "conv1", events });
  await runHeldTurn(store, "conv1", {
    store,
    events,
    message,
    client: clientFor(kind),
    tools: options.tools ?? compactSelection(),
    approvals: new TurnApprovals(options.prompter),
    display: silentDisplay,
    maxCycles: 10,
    signal: new AbortController().signal,
    clock: {
      now: () => new Date(Date.UTC(2026, 1, 1) + ++clockTick * 1000).toISOString(),
      newEventId: () => `${kind}-${clockTick}-${++counter}`,
    },
    cwd: process.cwd(),
  });
  lastAppends = store.appends;
  return store.load("conv1").events;
}
let lastAppends: ConversationEvent[][] = [];

function compactCall(id: string, rules: unknown[]): FakeReply {
  return { blocks: [{ type: "tool-call", id, name: "compact", arguments: { rules } }] };
}

function compactionsOf(events: readonly ConversationEvent[]): Compaction[] {
  return events.filter((event): event is Compaction => event.type === "compaction");
}

/** The responses to `compact` calls, in order. */
function responsesOf(events: readonly ConversationEvent[]): ToolCallResponse[] {
  const compactCalls = new Set(
    events.flatMap((event) =>
      event.type === "tool_call_request" && event.name === "compact" ? [event.call_id] : [],
    ),
  );
  return events.filter(
    (event): event is ToolCallResponse =>
      event.type === "tool_call_response" && compactCalls.has(event.call_id),
  );
}

/**
 * The messages of the index-th request, without Anthropic's `cache_control` markers: the adapter
 * moves its cache breakpoint to the newest message, which is not a change of content.
 */
function messagesOf(index: number): unknown[] {
  const body = provider.requests[index]!.body as { messages?: unknown[]; input?: unknown[] };
  const messages = body.messages ?? body.input;
  return JSON.parse(JSON.stringify(messages, (key, value) => (key === "cache_control" ? undefined : value)));
}

const SUMMARY_RULE = {
  before_quote: "now the current task: one-sided drag",
  summary: "We set up the skeleton, fixed the container width and made the divider draggable.",
  note: "Everything earlier is recoverable from files on disk.",
};

describe.each(["anthropic", "chat", "responses"] as const)("compact end to end (%s)", (kind) => {
  it("records an approved proposal as deferred compactions that activate with the next turn", async () => {
    provider.enqueue(compactCall("compact-1", [SUMMARY_RULE]), textReply("Compaction proposed."));
    const prompter = scriptedPrompter(["y"]);
    const events = await turn(kind, history(), "summarize everything except the current task", { prompter });

    // The prompt showed the resolved plan, and the preview file holds what is dropped.
    const detail = prompter.shown[0]!.detail!;
    expect(detail).toContain("compact — 1 rule proposed");
    expect(detail).toContain("turns 1..3 → the assistant's summary (14 words)");
    expect(detail).toContain('from     "set up the project skeleton"');
    expect(detail).toContain("why      Everything earlier is recoverable from files on disk.");
    const previewPath = /preview {2}(\S+)/.exec(detail)![1]!;
    // In the private scratch directory, named with the rule and its 1-based turns, never reused.
    expect(previewPath.startsWith(join(previewRoot, "cxc", "scratch", "conv1-compact-1-turns-1-3-"))).toBe(
      true,
    );
    expect(previewPath).toMatch(/-[0-9a-f]{8}\.md$/);
    expect(statSync(previewPath).mode & 0o777).toBe(0o600);
    const preview = readFileSync(previewPath, "utf8");
    expect(preview).toContain("thinking about layout");
    expect(preview).toContain("width: 100%");
    expect(preview).not.toContain("one-sided drag now");

    // The response and the compaction were stored in one append, response first.
    const [compaction] = compactionsOf(events);
    const withEffects = lastAppends.find((batch) => batch.some((event) => event.type === "compaction"))!;
    expect(withEffects.map((event) => event.type)).toEqual(["tool_call_response", "compaction"]);
    expect(responsesOf(events)[0]).toMatchObject({ is_error: false });
    expect(responsesOf(events)[0]!.content).toContain("Recorded 1 compaction");
    expect(compaction).toMatchObject({
      from_turn: 0,
      to_turn: 2,
      source: "assistant",
      note: SUMMARY_RULE.note,
      summary: { summary: SUMMARY_RULE.summary, source: "supplied", author: "assistant" },
      deferred_until_turn: 5,
    });

    // The model was forced to call the tool on the first cycle only.
    expect(JSON.stringify(provider.requests[0]!.body)).toContain('"tool_choice"');
    expect(JSON.stringify(provider.requests[1]!.body)).not.toContain('"tool_choice"');

    // Same turn: the second request keeps the first one's messages as its prefix.
    const first = messagesOf(0);
    expect(messagesOf(1).slice(0, first.length)).toEqual(first);
    expect(JSON.stringify(messagesOf(1))).toContain("set up the project skeleton");

    // Next turn: the compacted view.
    provider.enqueue(textReply("Next answer."));
    await turn(kind, events, "carry on", {
      prompter: scriptedPrompter([]),
      tools: compactSelection("ask", false),
    });
    const next = JSON.stringify(messagesOf(2));
    expect(next).toContain(SUMMARY_RULE.summary);
    expect(next).not.toContain("set up the project skeleton");
    expect(next).toContain("now the current task: one-sided drag");
  });
});

describe("compact approval outcomes", () => {
  it("records nothing for a declined call and tells the model", async () => {
    provider.enqueue(compactCall("compact-1", [SUMMARY_RULE]), textReply("Understood."));
    const events = await turn("anthropic", history(), "compact please", {
      prompter: scriptedPrompter(["n"]),
    });
    expect(compactionsOf(events)).toEqual([]);
    expect(responsesOf(events)[0]).toMatchObject({ content: declinedText("compact"), is_error: true });
  });

  it("shows edited rules again, resolved, before it records them (the edited version)", async () => {
    provider.enqueue(compactCall("compact-1", [SUMMARY_RULE]), textReply("Thanks."));
    const prompter = scriptedPrompter(["e", "y"], (call) => ({
      rules: [
        {
          ...(call.arguments.rules as Record<string, unknown>[])[0],
          before_quote: "make the divider draggable",
          summary: "The user's better summary.",
        },
      ],
    }));
    const events = await turn("responses", history(), "compact please", { prompter });
    // The edit is put to the user again, resolved: its new range and its own summary.
    expect(prompter.shown).toHaveLength(2);
    expect(prompter.shown[0]!.detail).toContain("turns 1..3 → the assistant's summary (14 words)");
    expect(prompter.shown[1]!.detail).toContain("turns 1..2 → the assistant's summary (4 words)");
    expect(compactionsOf(events)).toHaveLength(1);
    expect(compactionsOf(events)[0]).toMatchObject({ from_turn: 0, to_turn: 1 });
    expect(compactionsOf(events)[0]!.summary?.summary).toBe("The user's better summary.");
    expect(responsesOf(events)[0]!.content).toContain("[The user edited the arguments before running");
  });

  it("refuses without a terminal unless the tool is unattended", async () => {
    provider.enqueue(compactCall("compact-1", [SUMMARY_RULE]), textReply("ok"));
    const refused = await turn("anthropic", history(), "compact please");
    expect(compactionsOf(refused)).toEqual([]);
    expect(responsesOf(refused)[0]).toMatchObject({ content: refusedText("compact", "ask"), is_error: true });

    provider.enqueue(compactCall("compact-2", [SUMMARY_RULE]), textReply("ok"));
    const unattended = await turn("anthropic", history(), "compact please", {
      tools: compactSelection("unattended"),
    });
    expect(compactionsOf(unattended)).toHaveLength(1);
  });

  it("answers an unresolvable quote with a tool error, without asking the user, and records nothing", async () => {
    provider.enqueue(
      compactCall("compact-1", [{ before_quote: "words nobody wrote", summary: "s", note: "n" }]),
      textReply("I will quote exactly."),
    );
    const prompter = scriptedPrompter([]);
    const events = await turn("anthropic", history(), "compact please", { prompter });
    // The pre-check answers the model directly: nobody is asked to approve a call that cannot apply.
    expect(prompter.shown).toEqual([]);
    expect(compactionsOf(events)).toEqual([]);
    expect(responsesOf(events)[0]).toMatchObject({ is_error: true });
    expect(responsesOf(events)[0]!.content).toContain('before_quote "words nobody wrote" was not found');
    // The error went back to the model.
    expect(JSON.stringify(messagesOf(1))).toContain("words nobody wrote");
  });
});

describe("two calls in one turn", () => {
  it("plans the second call against the first call's deferred compaction", async () => {
    provider.enqueue(
      {
        blocks: [
          {
            type: "tool-call",
            id: "call-a",
            name: "compact",
            arguments: { rules: [{ keep_last: 3, summary: "turns one and two", note: "a" }] },
          },
          {
            type: "tool-call",
            id: "call-b",
            name: "compact",
            arguments: { rules: [{ keep_first: 1, summary: "turns two to four", note: "b" }] },
          },
        ],
      },
      compactCall("compact-c", [{ summary: "turns one to four", note: "c" }]),
      textReply("Done."),
    );
    const events = await turn("anthropic", history(), "compact in two steps", {
      prompter: scriptedPrompter(["y", "y", "y"]),
    });
    const [first, second, third] = responsesOf(events);
    expect(first).toMatchObject({ call_id: "call-a", is_error: false });
    expect(second).toMatchObject({ call_id: "call-b", is_error: true });
    expect(second!.content).toContain(
      "summary of turns 2..4 partially overlaps the existing summary of turns 1..2",
    );
    expect(second!.content).toContain("proposed earlier in this turn");
    expect(third).toMatchObject({ call_id: "compact-c", is_error: false });
    expect(compactionsOf(events).map((compaction) => [compaction.from_turn, compaction.to_turn])).toEqual([
      [0, 1],
      [0, 3],
    ]);
    // Nothing activated inside the turn: every request still carries the raw first turn.
    for (let index = 0; index < 3; index++) {
      expect(JSON.stringify(messagesOf(index))).toContain("set up the project skeleton");
    }
  });
});

describe("enabling the tool", () => {
  const registry = () => new ToolRegistry().register(createCompactTool());

  it("is off unless named, on with -t, forced with -u, and asks by default", () => {
    expect(selectTools({ registry: registry(), configured: {} }).tools).toEqual([]);
    const named = selectTools({
      registry: registry(),
      configured: {},
      directives: [{ name: "compact", enable: true }],
    });
    expect(named.tools.map((entry) => [entry.tool.name, entry.run])).toEqual([["compact", "ask"]]);
    const forced = selectTools({ registry: registry(), configured: {}, forced: "compact" });
    expect(forced.forced).toBe("compact");
    expect(forced.tools).toHaveLength(1);
  });

  it("pre-checks a call: an error answer for what cannot be applied, nothing otherwise", async () => {
    const context = {
      events: history(),
      now: () => "2026-01-01T00:00:00Z",
      store: await createMemoryStore(),
    };
    expect(await precheckCompactCall({ rules: [SUMMARY_RULE] }, context)).toBeUndefined();
    const answer = await precheckCompactCall(
      { rules: [{ ...SUMMARY_RULE, before_quote: "nowhere" }] },
      context,
    );
    expect(answer).toMatchObject({ isError: true });
    expect(answer!.content).toContain('before_quote "nowhere" was not found');
  });

  it("writes no preview file for an invalid call", async () => {
    const tool = createCompactTool({
      writePreview: (stem, text) => writeScratchFile({ XDG_CACHE_HOME: previewRoot }, stem, text),
    });
    const detail = await describeToolCall(
      tool,
      { rules: [] },
      {
        conversationId: "c",
        callId: "x",
        events: history(),
        signal: new AbortController().signal,
        cwd: process.cwd(),
        store: await createMemoryStore(),
        newEventId: () => "id",
        now: () => "2026-01-01T00:00:00Z",
      },
    );
    expect(detail).toContain("Invalid compact arguments");
    expect(readdirSync(previewRoot)).toEqual([]);
    expect(existsSync(previewRoot)).toBe(true);
  });
});
