/**
 * The advisor and automatic compaction inside the real turn loop, with the model (and the decision
 * model, whose answers are scripted as forced tool calls) played by the loopback fake provider
 * through the real Anthropic client. The fake reports the usage it counts (a quarter of the request
 * body's characters), and cxc counts tokens the same way here, so the lines are easy to cross on
 * purpose.
 */
import { jsonSchemaArguments } from "../../src/tools/arguments.js";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type AdvisorSettings,
  type AutoSettings,
  DEFAULT_TOKEN_LINES,
  type TokenLines,
} from "../../src/compaction/core/advisor/advisor.js";
import type { Compaction, ConversationEvent } from "../../src/core/conversation/events.js";
import { projectConversation } from "../../src/core/conversation/projection.js";
import { createLlmClient } from "../../src/llm/registry.js";
import { type Advisor, type AdvisorState, createAdvisor } from "../../src/compaction/advisor.js";
import { TurnApprovals } from "../../src/query/approval.js";
import { createCompactionHooks } from "../../src/compaction/automatic.js";
import { createCompactionEnvironment } from "../../src/compaction/environment.js";
import type { ToolSelection } from "../../src/query/tool-selection.js";
import type { TurnDisplay } from "../../src/query/turn-loop.js";
import { createCompactNowTool } from "../../src/tools/compact-now.js";
import { createShouldICompactTool } from "../../src/tools/should-i-compact.js";
import { type RecordingStore, recordingStore, runHeldTurn } from "../helpers/memory-store.js";
import {
  contextOverflowReply,
  errorReply,
  type FakeMessageReply,
  type FakeProvider,
  type FakeReply,
  startFakeProvider,
  textReply,
} from "../helpers/fake-provider.js";

let provider: FakeProvider;

beforeAll(async () => {
  provider = await startFakeProvider({ countUsage: true });
});
afterAll(async () => {
  await provider.close();
});
beforeEach(() => {
  provider.reset();
});
afterEach(() => {
  expect(provider.remaining()).toBe(0);
});

/** Four characters a token, as the fake counts. */
const countCharacters = (text: string): number => Math.ceil(text.length / 4);

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

function answers(
  switched: number,
  boundary: number,
  history: number,
  mid: number,
  id = "d",
): FakeMessageReply {
  return {
    blocks: [
      {
        type: "tool-call",
        id,
        name: "answer_questions",
        arguments: {
          switched_gears: switched,
          at_boundary: boundary,
          needs_history: history,
          mid_operation: mid,
        },
      },
    ],
  };
}

function liveFrom(turn: number, confidence: number): FakeReply {
  return {
    blocks: [
      { type: "tool-call", id: "l", name: "pick_live_from", arguments: { live_from_turn: turn, confidence } },
    ],
  };
}

function toolCall(name: string, argumentsObject: Record<string, unknown>, id = "c1"): FakeReply {
  return { blocks: [{ type: "tool-call", id, name, arguments: argumentsObject }] };
}

interface Harness {
  events: ConversationEvent[];
  printed: string[];
  hinted: string[];
  warned: string[];
  /** The compaction pipeline's notices (the digest writing a summary because no model is chosen). */
  notices: string[];
  state: AdvisorState;
  advisor: Advisor;
  turn(
    message: string,
    options?: { tools?: ToolSelection; maxCycles?: number },
  ): Promise<ConversationEvent[]>;
}

function makeHarness(
  options: {
    lines?: TokenLines;
    timeoutMs?: number;
    auto?: Partial<AutoSettings>;
    contextWindow?: number;
    reserveTokens?: number;
    /** The decision model's wire API (the assistant is Anthropic unless `assistantProvider` says). */
    decisionProvider?: "anthropic" | "openai" | "google";
    /** The assistant's wire API: Anthropic, OpenAI's Responses API, or Google's Gemini API. */
    assistantProvider?: "anthropic" | "responses" | "google";
    /** The assistant model compaction's summaries use (Anthropic, at the fake); absent: the digest. */
    summaryModel?: string;
  } = {},
): Harness {
  let tick = 0;
  const clock = {
    now: () => new Date(Date.UTC(2026, 1, 1) + ++tick * 1000).toISOString(),
    newEventId: () => `ev${String(++tick).padStart(5, "0")}`,
  };
  const googleEnv = { GEMINI_API_KEY: "test", GOOGLE_GEMINI_BASE_URL: provider.url };
  const client =
    options.assistantProvider === "responses"
      ? createLlmClient("openai/gpt-5", {
          env: { OPENAI_API_KEY: "test", OPENAI_BASE_URL: provider.openaiBaseURL },
          retry: false,
        })
      : options.assistantProvider === "google"
        ? createLlmClient("google/gemini-2.5-pro", { env: googleEnv, retry: false })
        : createLlmClient("anthropic/claude-sonnet-4-6", {
            env: { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: provider.anthropicBaseURL },
            retry: false,
          });
  const decisionClient =
    options.decisionProvider === "openai"
      ? createLlmClient("openai/gpt-5-mini", {
          env: { OPENAI_API_KEY: "test", OPENAI_BASE_URL: provider.openaiBaseURL },
          retry: false,
        })
      : options.decisionProvider === "google"
        ? createLlmClient("google/gemini-2.5-flash", { env: googleEnv, retry: false })
        : client;
  const settings: AdvisorSettings = {
    enabled: true,
    lines: options.lines ?? DEFAULT_TOKEN_LINES,
    timeoutMs: options.timeoutMs ?? 5000,
    cutPoint: true,
    maxTurns: 12,
  };
  const harness: Harness = {
    events: [],
    printed: [],
    hinted: [],
    warned: [],
    notices: [],
    state: {},
    advisor: undefined as unknown as Advisor,
    turn: async () => [],
  };
  const advisor = createAdvisor({
    settings,
    decisionClient,
    contextWindow: options.contextWindow,
    countTokens: countCharacters,
    clock,
    state: { load: () => harness.state, save: (state) => (harness.state = state) },
    print: (text) => harness.printed.push(text),
    hint: (text) => harness.hinted.push(text),
    warn: (text) => harness.warned.push(text),
    compactNowEnabled: true,
  });
  harness.advisor = advisor;
  const hooks = createCompactionHooks({
    advisor,
    auto: {
      enabled: false,
      trigger: { kind: "fraction", fraction: 0.8 },
      keepLast: 1,
      keepLastCycles: 5,
      ...options.auto,
    },
    contextWindow: options.contextWindow,
    ...(options.reserveTokens === undefined ? {} : { reserveTokens: options.reserveTokens }),
    print: (text) => harness.printed.push(text),
    countTokens: countCharacters,
    reportFailure: (message) => advisor.reportFailure(message),
    // No assistant model is configured here: summaries are written by builtin/digest.
    compaction: createCompactionEnvironment({
      config: {},
      env:
        options.summaryModel === undefined
          ? {}
          : { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: provider.anthropicBaseURL },
      ...(options.summaryModel === undefined ? {} : { assistantModel: options.summaryModel }),
      report: { info: (text) => harness.notices.push(text), warn: (text) => harness.warned.push(text) },
      counter: async () => countCharacters,
      clock,
    }),
  });
  let store: RecordingStore | undefined;
  harness.turn = async (message, turnOptions = {}) => {
    store ??= await recordingStore({ id: "conv-1" });
    const appendsBefore = store.appends.length;
    await runHeldTurn(store, "conv-1", {
      store,
      events: harness.events,
      message,
      client,
      tools: turnOptions.tools ?? { tools: [] },
      approvals: new TurnApprovals(undefined),
      display: silentDisplay,
      maxCycles: turnOptions.maxCycles ?? 10,
      signal: new AbortController().signal,
      clock,
      cwd: process.cwd(),
      hooks,
    });
    const stored = store.appends.slice(appendsBefore).flat();
    harness.events = store.load("conv-1").events;
    expect(harness.events.slice(harness.events.length - stored.length)).toEqual(stored);
    return stored;
  };
  return harness;
}

const compactions = (events: readonly ConversationEvent[]): Compaction[] =>
  events.filter((event): event is Compaction => event.type === "compaction");

/** A message of `size` tokens as the fake counts them (four characters a token). */
const text = (label: string, size: number): string =>
  `${label} ${"x".repeat(Math.max(0, size * 4 - label.length - 1))}`;

describe("the advisor at the end of each turn", () => {
  it("stays silent without a model call below the notice line, then announces each tier once as the context grows", async () => {
    const harness = makeHarness({ lines: { notice: 1000, recommend: 2000, request: 3000 } });
    // Turn 1: ~600 characters, below notice: one request, no decision call.
    provider.enqueue(textReply(text("answer one", 300)));
    await harness.turn(text("first task", 300));
    expect(provider.requests).toHaveLength(1);
    expect(harness.printed).toEqual([]);

    // Turn 2: past notice (~1200): one decision call, one notice line with the live count.
    provider.enqueue(textReply(text("answer two", 300)), answers(0.9, 0.8, 0.1, 0.1));
    await harness.turn(text("second task", 300));
    expect(provider.requests).toHaveLength(3);
    const decision = provider.requests[2]!.body as { tool_choice: unknown; tools: { name: string }[] };
    expect(decision.tool_choice).toMatchObject({ type: "tool", name: "answer_questions" });
    expect(harness.printed).toHaveLength(1);
    expect(harness.printed[0]).toMatch(
      /^advisor: Context is growing\. Context is at 1\.\dk tokens; past the notice line/,
    );

    // Turn 3: still between notice and recommend: asked again, not announced again.
    provider.enqueue(textReply(text("answer three", 200)), answers(0.9, 0.8, 0.1, 0.1));
    await harness.turn(text("third", 100));
    expect(harness.printed).toHaveLength(1);

    // Turn 4: past recommend: announced (an escalation).
    provider.enqueue(textReply(text("answer four", 400)), answers(0.9, 0.8, 0.1, 0.1));
    await harness.turn(text("fourth", 300));
    expect(harness.printed).toHaveLength(2);
    expect(harness.printed[1]).toContain("Recommended: compact now");

    // Turn 5: past request, but mid operation: silent.
    provider.enqueue(textReply(text("answer five", 600)), answers(0.9, 0.8, 0.1, 0.9));
    await harness.turn(text("fifth", 400));
    expect(harness.printed).toHaveLength(2);
    // Nothing was stored by the advisor at turn end (no steering after the loop is over).
    expect(harness.events.filter((event) => event.type === "chat_request")).toHaveLength(5);
  });

  it("asks a decision model on OpenAI's Responses API with a forced function call", async () => {
    const harness = makeHarness({
      lines: { notice: 10, recommend: 20, request: 100_000 },
      decisionProvider: "openai",
    });
    provider.enqueue(textReply("one"));
    await harness.turn("first question");
    provider.enqueue(textReply("two"), answers(0.9, 0.9, 0.1, 0.1));
    await harness.turn("second question");
    const decision = provider.requests[2]!;
    expect(decision.path).toBe("/v1/responses");
    expect(decision.body).toMatchObject({ tool_choice: { type: "function", name: "answer_questions" } });
    expect(harness.printed[0]).toContain("Recommended: compact now");
    expect(harness.warned).toEqual([]);
  });

  it("asks a decision model on Google's Gemini API with a forced function call", async () => {
    const harness = makeHarness({
      lines: { notice: 10, recommend: 20, request: 100_000 },
      decisionProvider: "google",
    });
    provider.enqueue(textReply("one"));
    await harness.turn("first question");
    provider.enqueue(textReply("two"), answers(0.9, 0.9, 0.1, 0.1));
    await harness.turn("second question");
    const decision = provider.requests[2]!;
    expect(decision.path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    expect(decision.body).toMatchObject({
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["answer_questions"] } },
    });
    expect(harness.printed[0]).toContain("Recommended: compact now");
    expect(harness.warned).toEqual([]);
  });

  it("steers a message into the running loop at recommend, telling the agent to call compact_now", async () => {
    const harness = makeHarness({ lines: { notice: 100, recommend: 200, request: 100_000 } });
    provider.enqueue(textReply("ok"));
    await harness.turn(text("earlier work", 300));
    const tools: ToolSelection = { tools: [{ tool: createCompactNowTool(), run: "unattended" }] };
    provider.enqueue(
      toolCall("compact_now", { note: "" }), // an invalid call: a tool error, nothing scheduled
      answers(0.9, 0.9, 0.1, 0.1), // end of cycle 1: recommend, steer
      textReply("done"),
      answers(0.9, 0.9, 0.1, 0.1), // end of turn: recommend again, not announced
    );
    const stored = await harness.turn("new task", { tools });
    const steer = stored.find((event) => event.type === "chat_request" && event.author === "cxc advisor");
    expect(steer).toBeDefined();
    expect((steer as { content: string }).content).toContain("Call compact_now");
    // The steering message went into the next request of the same turn.
    const next = JSON.stringify(provider.requests[3]!.body);
    expect(next).toContain("[cxc advisor]");
    expect(harness.printed.filter((line) => line.includes("Recommended"))).toHaveLength(1);
    expect(compactions(harness.events)).toEqual([]);
  });
});

describe("compact_now", () => {
  it("cuts a long note as the compact tool cuts one, in the result and in the compaction", async () => {
    const harness = makeHarness({ lines: { notice: 1_000_000, recommend: 2_000_000, request: 3_000_000 } });
    for (const label of ["one", "two", "three"]) {
      provider.enqueue(textReply(`answer ${label}`));
      await harness.turn(`task ${label}`);
    }
    const tools: ToolSelection = { tools: [{ tool: createCompactNowTool(), run: "unattended" }] };
    const long = `keep ${"the list of files and the plan ".repeat(12)}`;
    provider.enqueue(
      toolCall("compact_now", { note: long }),
      textReply("Finishing my reply."),
      liveFrom(1, 0.1), // unsure: the planned cut stands
    );
    const stored = await harness.turn("task four", { tools });
    const response = stored.find((event) => event.type === "tool_call_response") as {
      content: string;
      is_error: boolean;
    };
    expect(response.is_error).toBe(false);
    const result = JSON.parse(response.content) as { note: string; note_cut: string };
    expect(result.note).toHaveLength(200);
    expect(result.note.endsWith("…")).toBe(true);
    expect(long.startsWith(result.note.slice(0, -1))).toBe(true);
    expect(result.note_cut).toBe("the note was cut to 200 characters");
    const recorded = compactions(harness.events);
    expect(recorded.length).toBeGreaterThan(0);
    for (const compaction of recorded) expect(compaction.note).toBe(result.note);
  });

  it("schedules the compaction for the end of the turn; the advisor's cut keeps the live work verbatim", async () => {
    const harness = makeHarness({ lines: { notice: 1_000_000, recommend: 2_000_000, request: 3_000_000 } });
    for (const label of ["one", "two", "three", "four"]) {
      provider.enqueue(textReply(`answer ${label}`));
      await harness.turn(`task ${label}`);
    }
    const tools: ToolSelection = { tools: [{ tool: createCompactNowTool(), run: "unattended" }] };
    provider.enqueue(
      toolCall("compact_now", { note: "mid-refactor of auth; keep the file list" }),
      textReply("Finishing my reply."),
      liveFrom(3, 0.9), // the live work starts at turn 3 (1-based)
    );
    const stored = await harness.turn("task five", { tools });
    const response = stored.find((event) => event.type === "tool_call_response");
    expect(response).toMatchObject({ is_error: false });
    expect(JSON.parse((response as { content: string }).content)).toMatchObject({
      scheduled: true,
      when: "at the end of this turn",
    });
    // Nothing was compacted inside the tool: the compactions come after the turn's last answer.
    const recorded = compactions(stored);
    expect(recorded).toHaveLength(2);
    const lastAnswer = stored.findIndex(
      (event) => event.type === "chat_response" && event.message === "Finishing my reply.",
    );
    expect(stored.indexOf(recorded[0]!)).toBeGreaterThan(lastAnswer);
    // Planned 0..3 (keep the last turn); the pick moved the end onto turn 2 (0-based 1).
    for (const compaction of recorded) {
      expect(compaction).toMatchObject({ source: "auto", from_turn: 0, to_turn: 1, deferred_until_turn: 5 });
      expect(compaction.note).toBe("mid-refactor of auth; keep the file list");
    }
    expect(recorded[0]).toMatchObject({ reasoning: "strip", tool_calls: { policy: "strip" } });
    expect(recorded[1]!.summary).toMatchObject({ recipe: "builtin/digest", source: "derived" });
    const cutQuestion = provider.requests[provider.requests.length - 1]!.body as {
      tool_choice: { name: string };
    };
    expect(cutQuestion.tool_choice.name).toBe("pick_live_from");
    expect(harness.printed.join("\n")).toContain(
      "auto-compact: to undo it run `cxc conversation compact --reset=1..2`.",
    );
    // Deferred: this turn's view is unchanged; the next turn sees the summary and turns 3.. verbatim.
    expect(projectConversation(harness.events).turns.every((turn) => turn.origin.kind === "kept")).toBe(true);
    provider.enqueue(textReply("next"));
    await harness.turn("task six");
    const body = provider.requests[provider.requests.length - 1]!.body as {
      messages: { role: string; content: { type: string; text?: string }[] }[];
    };
    const texts = body.messages.flatMap((message) => message.content.map((part) => part.text));
    expect(texts[0]).toBe("[Summary of previous conversation]");
    expect(texts).not.toContain("task one");
    expect(texts).not.toContain("task two");
    expect(texts).toContain("task three");
    expect(texts).toContain("answer three");
  });
});

/** Google's words for a prompt over the window. */
const GEMINI_OVERFLOW = errorReply(400, {
  message: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
});

describe("automatic compaction", () => {
  const autoOn: Partial<AutoSettings> = { enabled: true, trigger: { kind: "tokens", tokens: 1_000_000 } };

  it.each([
    ["Anthropic", "anthropic", contextOverflowReply()],
    ["the Responses API", "responses", contextOverflowReply()],
    ["the Responses API, failing mid-stream", "responses", { ...contextOverflowReply(), midStream: true }],
    ["Google", "google", GEMINI_OVERFLOW],
    ["Google, failing mid-stream", "google", { ...GEMINI_OVERFLOW, midStream: true }],
  ] as const)(
    "compacts at once on a context-overflow error and retries once (%s)",
    async (_name, assistant, overflow) => {
      const harness = makeHarness({
        lines: { notice: 1_000_000, recommend: 2_000_000, request: 3_000_000 },
        auto: autoOn,
        assistantProvider: assistant,
      });
      for (const label of ["one", "two", "three"]) {
        provider.enqueue(textReply(`answer ${label}`));
        await harness.turn(text(`task ${label}`, 500));
      }
      provider.enqueue(overflow, textReply("fits now"));
      const stored = await harness.turn("task four");
      const recorded = compactions(stored);
      expect(recorded).toHaveLength(2);
      expect(recorded[0]!.deferred_until_turn).toBeUndefined();
      expect(recorded[0]).toMatchObject({ from_turn: 0, to_turn: 2 });
      const retried = JSON.stringify(provider.requests[provider.requests.length - 1]!.body);
      expect(retried).toContain("[Summary of previous conversation]");
      expect(retried).toContain("task four");
      expect(stored.some((event) => event.type === "chat_response" && event.message === "fits now")).toBe(
        true,
      );
      expect(harness.printed.join("\n")).toMatch(/context window overflowed; recorded .*in force now/);
    },
  );

  it("uses the provider's own summary with auto.native, and the retried request carries the block", async () => {
    const harness = makeHarness({
      lines: { notice: 1_000_000, recommend: 2_000_000, request: 3_000_000 },
      auto: { ...autoOn, native: true },
      summaryModel: "anthropic/claude-sonnet-4-6",
    });
    for (const label of ["one", "two", "three"]) {
      provider.enqueue(textReply(`answer ${label}`));
      await harness.turn(text(`task ${label}`, 500));
    }
    const native = "Three tasks were answered.";
    provider.enqueue(contextOverflowReply(), { kind: "compaction", content: native }, textReply("fits now"));
    const stored = await harness.turn("task four");
    const summary = compactions(stored).find((compaction) => compaction.summary !== undefined);
    expect(summary?.summary?.native).toMatchObject({ format: "anthropic-compaction", content: native });
    expect(harness.notices.join("\n")).toContain(
      "Native summary of turns 1..3 by anthropic/claude-sonnet-4-6",
    );
    const retried = provider.requests[provider.requests.length - 1]!;
    expect(retried.headers["anthropic-beta"]).toContain("compact-2026-09-04");
    expect(
      (retried.body as { messages: { content: { type: string }[] }[] }).messages[0]!.content[0]!.type,
    ).toBe("compaction");
  });

  it("retries only once: a second overflow is the error", async () => {
    const harness = makeHarness({
      lines: { notice: 1_000_000, recommend: 2_000_000, request: 3_000_000 },
      auto: autoOn,
    });
    provider.enqueue(textReply("ok"), textReply("ok"));
    await harness.turn(text("task one", 500));
    await harness.turn(text("task two", 500));
    provider.enqueue(contextOverflowReply(), contextOverflowReply());
    await expect(harness.turn("task three")).rejects.toMatchObject({ code: "provider-context-overflow" });
    expect(provider.requests).toHaveLength(4);
  });

  it("leaves an overflow an error when automatic compaction is off", async () => {
    const harness = makeHarness({ lines: { notice: 1_000_000, recommend: 2_000_000, request: 3_000_000 } });
    provider.enqueue(textReply("ok"), textReply("ok"));
    await harness.turn(text("task one", 500));
    await harness.turn(text("task two", 500));
    provider.enqueue(contextOverflowReply());
    await expect(harness.turn("task three")).rejects.toMatchObject({ code: "provider-context-overflow" });
    expect(provider.requests).toHaveLength(3); // no retry
    expect(harness.printed).toEqual([]);
  });

  it("does not repeat a compaction that saved less than 10% on the next turn", async () => {
    const harness = makeHarness({
      lines: { notice: 1_000_000, recommend: 2_000_000, request: 3_000_000 },
      auto: { enabled: true, trigger: { kind: "tokens", tokens: 1 }, keepLast: 1 },
    });
    // Tiny turns: the digest summary is no smaller than what it replaces, so nothing is saved.
    provider.enqueue(textReply("a"));
    await harness.turn("q1");
    expect(compactions(harness.events)).toEqual([]); // one turn: nothing to compact yet
    provider.enqueue(textReply("b")); // one turn to compact: no cut-point choice to offer
    await harness.turn("q2");
    expect(compactions(harness.events)).toHaveLength(2);
    expect(harness.printed.join("\n")).toMatch(/saved -?\d+%/);
    provider.enqueue(textReply("c"));
    await harness.turn("q3");
    expect(compactions(harness.events)).toHaveLength(2);
    expect(harness.printed[harness.printed.length - 1]).toContain("held");
    // The turn after that may compact again.
    provider.enqueue(textReply("d"), liveFrom(1, 0.1)); // an unsure pick leaves the planned cut
    await harness.turn("q4");
    expect(compactions(harness.events)).toHaveLength(4);
    expect(compactions(harness.events)[3]).toMatchObject({ from_turn: 0, to_turn: 2 });
    expect(provider.requests).toHaveLength(5);
  });
});

describe("automatic compaction by the trigger", () => {
  const quiet = { notice: 1_000_000, recommend: 2_000_000, request: 3_000_000 };

  it("fires at a turn boundary once the context passes the fraction of the window, in force from the next turn", async () => {
    const harness = makeHarness({
      lines: quiet,
      contextWindow: 10_000,
      reserveTokens: 100,
      auto: { enabled: true, trigger: { kind: "fraction", fraction: 0.5 }, keepLast: 2 },
    });
    for (const label of ["one", "two", "three"]) {
      provider.enqueue(textReply(text(`answer ${label}`, 1400)));
      await harness.turn(`task ${label}`);
      expect(compactions(harness.events)).toEqual([]); // below 5000 characters
    }
    provider.enqueue(textReply(text("answer four", 1400)), liveFrom(2, 0.3));
    const stored = await harness.turn("task four");
    const recorded = compactions(stored);
    expect(recorded.map((compaction) => [compaction.from_turn, compaction.to_turn])).toEqual([
      [0, 1],
      [0, 1],
    ]);
    expect(recorded[0]!.deferred_until_turn).toBe(4);
    expect(recorded[0]!.metadata?.cxc_auto).toMatchObject({ turn: 3 });
    expect(harness.printed.join("\n")).toMatch(
      /passed the automatic compaction trigger; .*takes effect at the next turn/,
    );
    provider.enqueue(textReply("five"));
    await harness.turn("task five");
    const body = JSON.stringify(provider.requests[provider.requests.length - 1]!.body);
    expect(body).toContain("[Summary of previous conversation]");
    expect(body).not.toContain("answer one");
  });

  it("compacts at once between cycles when the next request would overflow, keeping the live turn", async () => {
    const harness = makeHarness({
      lines: quiet,
      contextWindow: 3000,
      reserveTokens: 100,
      auto: { enabled: true, trigger: { kind: "tokens", tokens: 1_000_000 }, keepLast: 1 },
    });
    for (const label of ["one", "two"]) {
      provider.enqueue(textReply(text(`answer ${label}`, 1000)));
      await harness.turn(`task ${label}`);
    }
    const bigTool = {
      name: "read_big",
      description: "returns a lot",
      arguments: jsonSchemaArguments({ type: "object" }),
      source: "builtin" as const,
      defaults: { enable: true, run: "unattended" as const },
      run: async () => ({ content: text("big output", 1000), isError: false }),
    };
    provider.enqueue(toolCall("read_big", {}), textReply("done"));
    const stored = await harness.turn("task three", {
      tools: { tools: [{ tool: bigTool, run: "unattended" }] },
    });
    const recorded = compactions(stored);
    expect(recorded.length).toBeGreaterThanOrEqual(2);
    expect(recorded[0]).toMatchObject({ from_turn: 0, to_turn: 1 });
    expect(recorded[0]!.deferred_until_turn).toBeUndefined();
    // Stored between the tool's answer and the next request, which already sees the summary.
    const toolResponse = stored.findIndex((event) => event.type === "tool_call_response");
    expect(stored.indexOf(recorded[0]!)).toBeGreaterThan(toolResponse);
    const second = JSON.stringify(provider.requests[provider.requests.length - 1]!.body);
    expect(second).toContain("[Summary of previous conversation]");
    expect(second).not.toContain("answer one");
    expect(second).toContain("big output");
    expect(harness.printed[0]).toContain("the next request would overflow the context window");
  });
});

describe("one long turn", () => {
  const quiet = { notice: 1_000_000, recommend: 2_000_000, request: 3_000_000 };
  const readTool = {
    name: "read_part",
    description: "returns a part of a file",
    arguments: jsonSchemaArguments({ type: "object" }),
    source: "builtin" as const,
    defaults: { enable: true, run: "unattended" as const },
    run: async () => ({ content: text("part of a file", 200), isError: false }),
  };
  const tools = { tools: [{ tool: readTool, run: "unattended" as const }] };
  const calls = (count: number): FakeReply[] =>
    Array.from({ length: count }, (_, index) => toolCall("read_part", { part: index }, `c${index}`));

  it("compacts automatically inside it: all but its last cycles, cut earlier at the advisor's cycle", async () => {
    const harness = makeHarness({
      lines: quiet,
      auto: { enabled: true, trigger: { kind: "tokens", tokens: 3000 }, keepLast: 2, keepLastCycles: 5 },
    });
    // One request answered by 20 calls and an answer: 21 cycles.
    provider.enqueue(...calls(20), textReply("All parts read."), {
      blocks: [
        {
          type: "tool-call",
          id: "l",
          name: "pick_live_from",
          arguments: { live_from_turn: 1, live_from_cycle: 14, confidence: 0.9 },
        },
      ],
    });
    const stored = await harness.turn("Read every part of the file.", { tools, maxCycles: 30 });
    const recorded = compactions(stored);
    expect(recorded).toHaveLength(2);
    // Planned: cycles 1..16 (the last 5 kept); the live work starts at cycle 14: cycles 1..13.
    for (const compaction of recorded) {
      expect(compaction).toMatchObject({ from_turn: 0, to_turn: 0, deferred_until_turn: 1 });
      expect(compaction.cycles).toMatchObject({ to: 12 });
    }
    const question = JSON.stringify(provider.requests[provider.requests.length - 1]!.body);
    expect(question).toContain("[turn 1, cycle 14]");
    expect(harness.printed.join("\n")).toMatch(
      /turn 1, cycles 1\.\.13.*the advisor kept the live work verbatim/,
    );
  });

  it("is advised on: its earlier cycles can be compacted, once per tier", async () => {
    const harness = makeHarness({ lines: { notice: 100, recommend: 200, request: 100_000 } });
    provider.addRoute({ bodyIncludes: '"answer_questions"', reply: answers(0.9, 0.9, 0.1, 0.1) });
    provider.enqueue(...calls(3), textReply("Read."));
    const compactNow = { tool: createCompactNowTool(), run: "unattended" as const };
    const stored = await harness.turn("Read the parts.", { tools: { tools: [...tools.tools, compactNow] } });
    expect(harness.printed.filter((line) => line.includes("Recommended: compact now"))).toHaveLength(1);
    const steering = stored.filter(
      (event) => event.type === "chat_request" && event.author === "cxc advisor",
    );
    expect(steering).toHaveLength(1);
  });
});

describe("failures", () => {
  it("swallows a decision model that times out, warning once per conversation, and stays silent", async () => {
    const harness = makeHarness({
      lines: { notice: 10, recommend: 100_000, request: 200_000 },
      timeoutMs: 150,
    });
    provider.enqueue(textReply("one"));
    await harness.turn("first question");
    const slow: FakeReply = { ...answers(0.9, 0.9, 0.1, 0.1), chunkDelayMs: 400 };
    provider.enqueue(textReply("two"), slow);
    await harness.turn("second question");
    expect(harness.warned).toHaveLength(1);
    expect(harness.warned[0]).toContain("did not answer within 150 ms");
    // A failed call gives no tier: token counts alone are never advice.
    expect(harness.printed).toEqual([]);
    provider.enqueue(textReply("three"), { ...slow });
    await harness.turn("third question");
    expect(harness.warned).toHaveLength(1);
    expect(harness.printed).toEqual([]);
    expect(harness.events.filter((event) => event.type === "chat_response")).toHaveLength(3);
  });

  it("answers should_i_compact with the verdict, reuses its answers at the end of that cycle, and a failing decision model is a tool error", async () => {
    const harness = makeHarness({ lines: { notice: 10, recommend: 20, request: 100_000 } });
    provider.enqueue(textReply("one"));
    await harness.turn("first question");
    const tools: ToolSelection = {
      tools: [{ tool: createShouldICompactTool(() => harness.advisor), run: "unattended" }],
    };
    // The boundary advice asks too (after each cycle and the turn); it is already announced, so quiet.
    harness.state = { last_announced: "recommend" };
    const before = provider.requests.length;
    provider.enqueue(
      toolCall("should_i_compact", {}),
      answers(0.91, 0.74, 0.3, 0.08), // the tool's own call; the end of cycle 1 reuses its answers
      toolCall("should_i_compact", {}, "c2"),
      { kind: "error", status: 500, message: "decision model down" }, // the tool's call fails
      answers(0.91, 0.74, 0.3, 0.08), // end of cycle 2
      textReply("ok"),
      answers(0.91, 0.74, 0.3, 0.08), // end of turn
    );
    const stored = await harness.turn("should I compact?", { tools });
    const responses = stored.filter((event) => event.type === "tool_call_response") as {
      content: string;
      is_error: boolean;
    }[];
    expect(responses[0]!.is_error).toBe(false);
    expect(JSON.parse(responses[0]!.content)).toMatchObject({
      should_compact: true,
      tier: "recommend",
      lines: { notice: 10, recommend: 20, request: 100_000 },
      signals: { switched_gears: 0.91, at_boundary: 0.74, needs_history: 0.3, mid_operation: 0.08 },
      next_step: expect.stringContaining("compact_now"),
    });
    expect(responses[1]!.is_error).toBe(true);
    expect(responses[1]!.content).toContain("should_i_compact failed");
    // Three assistant requests and four decision calls: none asked the same questions twice in a row.
    expect(provider.requests.length - before).toBe(7);
  });
});
