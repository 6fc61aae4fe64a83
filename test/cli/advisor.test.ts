/**
 * The advisor and automatic compaction through the built `cxc q`, against the loopback fake
 * provider: the stderr advice line, the state kept in the conversation's advisor record across
 * processes (and read from `meta.json`, where older versions kept it), the line-set warning, `compact_now` applied at turn end with its undo command, and
 * the overflow retry.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  contextOverflowReply,
  type FakeMessageReply,
  type FakeProvider,
  startFakeProvider,
  textReply,
} from "../helpers/fake-provider.js";
import { makeQueryHome, type QueryHome, RECALL_OFF, TEST_MODEL } from "../query/e2e.js";
import { createEventBuilder } from "../helpers/builders.js";
import { agentTurn } from "../helpers/cycles.js";
import { seedConversation } from "./conversation-helpers.js";

let provider: FakeProvider;
let home: QueryHome;

beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(async () => {
  await provider.close();
});
beforeEach(() => {
  provider.reset();
  home = makeQueryHome(provider);
});
afterEach(() => {
  home.home.cleanup();
  expect(provider.remaining()).toBe(0);
});

function answers(switched: number, boundary: number, history: number, mid: number): FakeMessageReply {
  const argumentsObject = {
    switched_gears: switched,
    at_boundary: boundary,
    needs_history: history,
    mid_operation: mid,
  };
  return { blocks: [{ type: "tool-call", id: "d1", name: "answer_questions", arguments: argumentsObject }] };
}

const conversationFile = (name: string): string =>
  join(home.home.home, "conversations", home.activeId(), name);

function meta(): Record<string, unknown> {
  return JSON.parse(readFileSync(conversationFile("meta.json"), "utf8"));
}

/** The advisor record; the metadata no longer holds the advisor's state. */
function advisorRecord(): Record<string, unknown> {
  expect(meta()).not.toHaveProperty("advisor");
  return JSON.parse(readFileSync(conversationFile("advisor.json"), "utf8"));
}

const words = (count: number): string =>
  Array.from({ length: count }, (_, index) => `word${index}`).join(" ");

describe("cxc q with the advisor", () => {
  it("prints one advice line per tier as the context crosses the lines, remembered across runs", async () => {
    // The provider reports what it counts (a quarter of the request body): the context figure.
    provider.countUsage(true);
    // Recall off: its tool's definition would count towards these small lines.
    home.writeConfig(`
[conversation.compaction.advisor]
notice_tokens = 150
recommend_tokens = 400
request_tokens = 100000
${RECALL_OFF}`);
    provider.enqueue(textReply(words(60)));
    const first = await home.q(["--new", words(60)]);
    expect(first.exitCode).toBe(0);
    expect(first.stderr).not.toContain("advisor");
    expect(provider.requests).toHaveLength(1);

    provider.enqueue(textReply(words(20)), answers(0.9, 0.9, 0.1, 0.1));
    const second = await home.q([words(20)]);
    expect(second.exitCode).toBe(0);
    expect(second.stderr).toMatch(
      /cxc: advisor: Context is growing\. Context is at \d+ tokens \(\d+\.\d% of the window\); past the notice line/,
    );
    // Once per store, with the first advice: the figure the lines are compared with changed.
    const notice =
      "cxc: the context figure now counts the system prompt and tools; token lines set for the old figure fire earlier (see the CHANGELOG)";
    expect(second.stderr.split("\n").filter((line) => line === notice)).toHaveLength(1);
    const usage = { input_tokens: expect.any(Number), output_tokens: expect.any(Number) };
    expect(advisorRecord()).toEqual({
      last_announced: "notice",
      compactions_seen: 0,
      decision_usage: { calls: 1, ...usage },
    });

    // As an older cxc left it: the state in meta.json, no record. It is still read: no new notice.
    rmSync(conversationFile("advisor.json"));
    writeFileSync(
      conversationFile("meta.json"),
      JSON.stringify({ ...meta(), advisor: { last_announced: "notice" } }),
    );
    provider.enqueue(textReply("ok"), answers(0.9, 0.9, 0.1, 0.1));
    const third = await home.q(["again"]);
    expect(third.stderr).not.toContain("advisor");
    writeFileSync(conversationFile("meta.json"), JSON.stringify({ ...meta(), advisor: undefined }));

    provider.enqueue(textReply(words(150)), answers(0.9, 0.9, 0.1, 0.1));
    const fourth = await home.q([words(100)]);
    expect(fourth.stderr).toContain("cxc: advisor: Recommended: compact now.");
    // What compacting now costs with the prompt cache: the automatic plan, at the model's prices.
    expect(fourth.stderr).toMatch(
      /Recommended: compact now\. Context is at .*; past the recommend line and [^;]*; compacting now saves \S+ tokens a request \(<?\$[\d.]+\) and rewrites \S+ of the prompt cache once \(<?\$[\d.]+\); pays back (at once|within \d+ turns)\.\n/,
    );
    expect(fourth.stderr).not.toContain("the context figure now counts");
    // The advice names the command that acts on it.
    expect(fourth.stderr).toContain(
      `\nhint: run \`cxc conversation compact ${home.activeId()}\` (\`--dry-run\` first shows what it does), or let the assistant do it: \`cxc q -t compact_now …\``,
    );
    // The record was removed before the third run: two decision calls since.
    expect(advisorRecord()).toEqual({
      last_announced: "recommend",
      compactions_seen: 0,
      decision_usage: { calls: 2, ...usage },
    });
    const stats = await home.home.run(["conversation", "stats"]);
    // Apart from the conversation's requests (this conversation records no model: no prices).
    expect(stats.stdout).toMatch(
      /^ {2}cxc's own, apart from the conversation: advisor decisions: 2 calls, (<?\$[\d.]+|no prices known); \d+(\.\dk)? input \+ \d+ output tokens$/m,
    );
    const statsJson = JSON.parse((await home.home.run(["--format", "json", "conversation", "stats"])).stdout);
    expect(statsJson.advisor_decisions).toEqual({ calls: 2, ...usage });
  });

  it("swallows a decision model that times out: one warning per conversation, then silence (no tier from token counts alone)", async () => {
    const env = {
      CXC_ADVISOR_NOTICE_TOKENS: "5",
      CXC_ADVISOR_RECOMMEND_TOKENS: "100000",
      CXC_ADVISOR_REQUEST_TOKENS: "200000",
      CXC_ADVISOR_TIMEOUT_MS: "300",
    };
    provider.enqueue(textReply("first answer"));
    expect((await home.q(["--new", "first question"], { env })).exitCode).toBe(0);
    provider.enqueue(textReply("second answer"), { ...answers(0.9, 0.9, 0.1, 0.1), chunkDelayMs: 1500 });
    const second = await home.q(["second question"], { env });
    expect(second.exitCode).toBe(0);
    expect(second.stdout).toContain("second answer");
    expect(second.stderr).toContain("cxc: warning: advisor: the decision model did not answer within 300 ms");
    expect(second.stderr).not.toContain("cxc: advisor:");
    expect(second.stderr).not.toContain("token lines only");
    expect(advisorRecord()).toMatchObject({ warned: true });
    expect(advisorRecord()).not.toHaveProperty("last_announced");
    provider.enqueue(textReply("third answer"), { ...answers(0.9, 0.9, 0.1, 0.1), chunkDelayMs: 1500 });
    const third = await home.q(["third question"], { env });
    expect(third.exitCode).toBe(0);
    expect(third.stderr).not.toContain("advisor");
  });

  it("registers no tools when the advisor is disabled: none is offered, and naming one says why", async () => {
    const env = {
      CXC_ADVISOR_ENABLED: "false",
      CXC_ADVISOR_NOTICE_TOKENS: "5",
      CXC_ADVISOR_RECOMMEND_TOKENS: "6",
      CXC_ADVISOR_REQUEST_TOKENS: "7",
    };
    home.writeConfig(`
[conversation.tools.should_i_compact]
enable = true
[conversation.tools.compact_now]
enable = true
`);
    provider.enqueue(textReply("first answer"));
    const first = await home.q(["--new", "first question"], { env });
    expect(first.exitCode, first.stderr).toBe(0);
    const tools = (provider.requests[0]!.body as { tools?: { name: string }[] }).tools ?? [];
    expect(tools.map((tool) => tool.name)).not.toContain("should_i_compact");
    expect(tools.map((tool) => tool.name)).not.toContain("compact_now");
    expect(first.stderr).not.toContain("advisor");
    const named = await home.q(["-t", "should_i_compact", "second question"], { env });
    expect(named.exitCode).toBe(2);
    expect(named.stderr).toContain(
      "cxc: error: tool 'should_i_compact' is not available: the compaction advisor is disabled (conversation.compaction.advisor.enabled = false)",
    );
    expect(provider.requests).toHaveLength(1);
  });

  it("warns once and uses the default lines when the set is not strictly increasing", async () => {
    provider.enqueue(textReply("hello"));
    const result = await home.q(["--new", "hi"], {
      env: {
        CXC_ADVISOR_NOTICE_TOKENS: "500",
        CXC_ADVISOR_RECOMMEND_TOKENS: "400",
        CXC_ADVISOR_REQUEST_TOKENS: "900",
      },
    });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain("all three use the defaults 60000/100000/140000; set all three, or none");
  });

  it("applies a compact_now call at the end of the turn and says how to undo it", async () => {
    for (const message of ["first task", "second task", "third task"]) {
      provider.enqueue(textReply(`done: ${message}`));
      expect((await home.q(message === "first task" ? ["--new", message] : [message])).exitCode).toBe(0);
    }
    provider.enqueue(
      {
        blocks: [
          { type: "tool-call", id: "t1", name: "compact_now", arguments: { note: "keep the task list" } },
        ],
      },
      textReply("Compaction scheduled; finishing."),
      {
        blocks: [
          {
            type: "tool-call",
            id: "l1",
            name: "pick_live_from",
            arguments: { live_from_turn: 2, confidence: 0.9 },
          },
        ],
      },
      // The summary rule names no model: the configured assistant model writes it.
      textReply("SUMMARY of the first task"),
    );
    const result = await home.q(["-t", "compact_now", "fourth task"]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).not.toContain("warning");
    expect(result.stderr).toContain("the assistant called compact_now");
    // Recorded as automatic compaction, said on stderr, one step to undo.
    expect(result.stderr).toContain(
      "cxc: auto-compact: to undo it run `cxc conversation compact --reset=1..2`.\n",
    );
    const recorded = home.events().filter((event) => event.type === "compaction");
    expect(recorded).toHaveLength(2);
    expect(recorded[1]).toMatchObject({ source: "auto", from_turn: 0, to_turn: 0, deferred_until_turn: 4 });
    expect(recorded[1]!.summary).toEqual({
      summary: "SUMMARY of the first task",
      source: "derived",
      recipe: TEST_MODEL,
    });

    const undo = await home.home.run(["conversation", "compact", "--reset=1..2"], { env: home.env });
    expect(undo.exitCode, undo.stderr).toBe(0);
    expect(undo.stdout).toBe("Removed compactions 1..2 (turns 1..1; turns 1..1).\n");
    const shown = JSON.parse(
      (await home.home.run(["--format", "json", "conversation", "show"], { env: home.env })).stdout,
    );
    expect(shown.compactions).toEqual([]);
    // One reset: one step brings both back.
    const back = await home.home.run(["conversation", "compact", "--undo-reset"], { env: home.env });
    expect(back.stdout).toContain("2 compactions come back");
  });

  it("cuts inside a turn when the advisor picks a cycle: the rest of that turn stays verbatim", async () => {
    // Three agent turns of four cycles each (three reads and an answer), seeded as the active one.
    const build = createEventBuilder();
    const seeded = ["first task", "second task", "third task"].flatMap((task) =>
      agentTurn(build, task, [{ calls: 1 }, { calls: 1 }, { calls: 1 }], `done: ${task}`),
    );
    await seedConversation(home.home, { id: "agent0000001", events: seeded, active: true });
    provider.enqueue(
      {
        blocks: [{ type: "tool-call", id: "t1", name: "compact_now", arguments: { note: "keep the plan" } }],
      },
      textReply("Compaction scheduled; finishing."),
      {
        blocks: [
          {
            type: "tool-call",
            id: "l1",
            name: "pick_live_from",
            arguments: { live_from_turn: 2, live_from_cycle: 3, confidence: 0.9 },
          },
        ],
      },
      textReply("SUMMARY of the first task"),
      textReply("SUMMARY of the first steps of the second task"),
    );
    const result = await home.q(["-t", "compact_now", "fourth task"]);
    expect(result.exitCode, result.stderr).toBe(0);
    // The cut-point question labels the cycles of each turn and asks for one.
    const question = JSON.stringify(provider.requests[2]!.body);
    expect(question).toContain("[turn 2, cycle 3]");
    expect(question).toContain("If it starts partway through a turn, give that cycle too.");
    expect(result.stderr).toContain(
      "recorded reasoning + tools of turns 1..2, turn 2 to cycle 2 and summary of turns 1..1 and summary of turn 2, cycles 1..2",
    );
    expect(result.stderr).toContain("the advisor kept the live work verbatim");
    const recorded = home.events().filter((event) => event.type === "compaction");
    expect(recorded.map((event) => [event.from_turn, event.to_turn, event.cycles ?? null])).toEqual([
      [0, 1, { to: 1, reasoning: "strip", tool_calls: { policy: "strip", request: true, response: true } }],
      [0, 0, null],
      [
        1,
        1,
        {
          from: 0,
          to: 1,
          summary: {
            summary: "SUMMARY of the first steps of the second task",
            source: "derived",
            recipe: TEST_MODEL,
            facts: expect.stringContaining("[Facts of these turns, from their raw events]"),
          },
        },
      ],
    ]);
    expect(recorded.every((event) => event.deferred_until_turn === 4 && event.source === "auto")).toBe(true);
  });

  it("hands the compact_now note to a configured summary model as its focus", async () => {
    home.writeConfig(`
[[conversation.compaction.auto.rules]]
reasoning = "strip"

[[conversation.compaction.auto.rules]]
summary = { model = { id = "anthropic/claude-sonnet-4-6" } }
`);
    for (const message of ["first task", "second task", "third task"]) {
      provider.enqueue(textReply(`done: ${message}`));
      expect((await home.q(message === "first task" ? ["--new", message] : [message])).exitCode).toBe(0);
    }
    provider.enqueue(
      {
        blocks: [
          { type: "tool-call", id: "t1", name: "compact_now", arguments: { note: "keep the task list" } },
        ],
      },
      textReply("Finishing."),
      {
        blocks: [
          {
            type: "tool-call",
            id: "l1",
            name: "pick_live_from",
            arguments: { live_from_turn: 3, confidence: 0.2 },
          },
        ],
      },
      textReply("MODEL SUMMARY of the first two tasks"),
    );
    const result = await home.q(["-t", "compact_now", "fourth task"]);
    expect(result.exitCode).toBe(0);
    const summaryRequest = JSON.stringify(provider.requests[provider.requests.length - 1]!.body);
    expect(summaryRequest).toContain("Additional context: keep the task list");
    const recorded = home.events().filter((event) => event.type === "compaction");
    expect(recorded.map((event) => [event.from_turn, event.to_turn])).toEqual([
      [0, 1],
      [0, 1],
    ]);
    expect(recorded[1]!.summary).toMatchObject({
      summary: "MODEL SUMMARY of the first two tasks",
      recipe: "anthropic/claude-sonnet-4-6",
    });
  });

  it("compacts and retries once on a context overflow when automatic compaction is on", async () => {
    home.writeConfig(`
[conversation.compaction.auto]
enabled = true
trigger = 0.9
keep_last = 1
`);
    for (const message of ["first task", "second task"]) {
      provider.enqueue(textReply(`done: ${message}`));
      expect((await home.q(message === "first task" ? ["--new", message] : [message])).exitCode).toBe(0);
    }
    provider.enqueue(
      contextOverflowReply(),
      textReply("SUMMARY of the first two tasks"),
      textReply("fits now"),
    );
    const result = await home.q(["third task"]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).not.toContain("warning");
    expect(result.stdout).toContain("fits now");
    expect(result.stderr).toContain("the provider said the context window overflowed");
    const recorded = home.events().filter((event) => event.type === "compaction");
    expect(recorded.map((event) => [event.from_turn, event.to_turn, event.deferred_until_turn])).toEqual([
      [0, 1, undefined],
      [0, 1, undefined],
    ]);
    // The summary of the automatic compaction was written by the configured assistant model.
    expect(recorded[1]!.summary).toMatchObject({
      summary: "SUMMARY of the first two tasks",
      recipe: TEST_MODEL,
    });
    expect(JSON.stringify(provider.requests[3]!.body)).toContain("Summarize the conversation above.");
  });
});
