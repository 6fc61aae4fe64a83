/**
 * `cxc q` with tools, end to end and without a terminal: a multi-cycle turn running a local
 * command tool, -t/-T/-u, run modes that need no terminal, refusal of `ask` tools, invalid
 * arguments, the cycle cap, orphaned calls, `-k` and `--fork`.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import {
  makeQueryHome,
  type QueryHome,
  RECALL_OFF,
  requestBody,
  TEST_MODEL,
  wordCountTool,
} from "../query/e2e.js";

let provider: FakeProvider;
let home: QueryHome;

beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(async () => {
  await provider.close();
});
beforeEach(() => {
  home = makeQueryHome(provider);
  provider.requests.length = 0;
});
afterEach(() => {
  home.home.cleanup();
  expect(provider.remaining()).toBe(0);
});

function callReply(id: string, name: string, argumentsObject: Record<string, unknown>, text?: string) {
  return {
    blocks: [
      ...(text === undefined ? [] : [{ type: "text" as const, text }]),
      { type: "tool-call" as const, id, name, arguments: argumentsObject },
    ],
  };
}

describe("cxc q: a multi-cycle tool turn", () => {
  it("runs the local command, sends its result back, and stores everything in order", async () => {
    home.writeConfig(wordCountTool("unattended") + RECALL_OFF);
    provider.enqueue(
      callReply("call_1", "word_count", { text: "one two three" }, "Let me count."),
      callReply("call_2", "word_count", { text: "four five" }),
      textReply("Three words, then two."),
    );
    const result = await home.q(["count the words"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("Let me count.\n\nThree words, then two.\n");
    expect(result.stderr).toContain("word_count");
    const events = home.events();
    expect(events.map((event) => event.type)).toEqual([
      "turn_start",
      "chat_request",
      "chat_response",
      "tool_call_request",
      "tool_call_response",
      "tool_call_request",
      "tool_call_response",
      "chat_response",
    ]);
    expect(events[4]).toMatchObject({ call_id: "call_1", content: "3\n", is_error: false });
    expect(events[6]).toMatchObject({ call_id: "call_2", content: "2\n", is_error: false });
    expect(provider.requests).toHaveLength(3);
    const first = requestBody(provider, 0);
    expect(first.tools).toEqual([
      expect.objectContaining({ name: "word_count", description: "Counts the words of a text" }),
    ]);
    const third = requestBody(provider, 2);
    expect(third.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
    ]);
    expect(third.messages[2]!.content[0]).toMatchObject({ type: "tool_result", tool_use_id: "call_1" });
  });

  it("reports a failing command's exit status as a tool error, and invalid arguments without running", async () => {
    home.writeConfig(`${wordCountTool("unattended")}
[conversation.tools.fail]
command = "echo broken >&2; exit 3"
run = "unattended"
`);
    provider.enqueue(
      {
        blocks: [
          { type: "tool-call", id: "c1", name: "fail", arguments: {} },
          { type: "tool-call", id: "c2", name: "word_count", arguments: { text: 42 } },
        ],
      },
      textReply("done"),
    );
    const result = await home.q(["go"]);
    expect(result.exitCode).toBe(0);
    const responses = home.events().filter((event) => event.type === "tool_call_response");
    expect(responses[0]).toMatchObject({
      call_id: "c1",
      is_error: true,
      content: "[stderr]\nbroken\n[exit status 3]",
    });
    expect(responses[1]).toMatchObject({ call_id: "c2", is_error: true });
    expect(String(responses[1]!.content)).toContain("Invalid arguments for word_count: /text must be string");
  });
});

describe("cxc q: enabling tools", () => {
  const config = `${wordCountTool("unattended", 'enable = "explicit"')}
[conversation.tools.echo]
command = "echo hi"
run = "unattended"
`;

  it("offers explicit tools only when named, and -T removes a tool", async () => {
    home.writeConfig(config + RECALL_OFF);
    provider.enqueue(textReply("a"), textReply("b"), textReply("c"));
    await home.q(["one"]);
    await home.q(["-t", "word_count", "two"]);
    await home.q(["-t", "word_count", "-T", "echo", "three"]);
    const names = provider.requests.map((request) =>
      ((request.body as { tools?: { name: string }[] }).tools ?? []).map((tool) => tool.name),
    );
    expect(names).toEqual([["echo"], ["echo", "word_count"], ["word_count"]]);
  });

  it("-u forces the tool on the first cycle only and implies -t", async () => {
    home.writeConfig(config);
    provider.enqueue(callReply("c1", "word_count", { text: "a b" }), textReply("two"));
    const result = await home.q(["-u", "word_count", "count"]);
    expect(result.exitCode).toBe(0);
    expect(requestBody(provider, 0).tool_choice).toEqual({ type: "tool", name: "word_count" });
    expect(requestBody(provider, 1).tool_choice).toBeUndefined();
  });

  it("naming an unknown tool is a usage error before anything is sent", async () => {
    home.writeConfig(config);
    const result = await home.q(["-t", "nope", "hi"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("tool 'nope' not found");
    expect(result.stderr).toContain("echo, word_count");
    expect(provider.requests).toHaveLength(0);
  });
});

describe("cxc q: run modes without a terminal", () => {
  it("refuses an ask tool, naming the setting that allows it, and the model is told", async () => {
    home.writeConfig(wordCountTool("ask"));
    provider.enqueue(callReply("c1", "word_count", { text: "a b" }), textReply("ok, not counted"));
    const result = await home.q(["count"]);
    expect(result.exitCode).toBe(0);
    const response = home.events().find((event) => event.type === "tool_call_response")!;
    expect(response).toMatchObject({ is_error: true });
    expect(String(response.content)).toContain('conversation.tools.word_count.run = "unattended"');
    expect(result.stderr).toContain("conversation.tools.word_count.run");
    const sent = requestBody(provider, 1).messages[2]!.content[0]!;
    expect(sent).toMatchObject({ type: "tool_result", is_error: true });
  });

  it("an edit tool is refused the same way; -c …run=unattended allows it", async () => {
    home.writeConfig(wordCountTool("edit"));
    provider.enqueue(callReply("c1", "word_count", { text: "a b" }), textReply("refused"));
    await home.q(["count"]);
    provider.enqueue(callReply("c2", "word_count", { text: "a b c" }), textReply("three"));
    await home.home.run(["-c", "conversation.tools.word_count.run=unattended", "q", "again"], {
      env: home.env,
    });
    const responses = home.events().filter((event) => event.type === "tool_call_response");
    expect(responses.map((event) => [event.is_error, event.content])).toEqual([
      [true, expect.stringContaining("refused")],
      [false, "3\n"],
    ]);
  });

  it("skip answers without running", async () => {
    home.writeConfig(wordCountTool("skip"));
    provider.enqueue(callReply("c1", "word_count", { text: "a" }), textReply("skipped"));
    await home.q(["count"]);
    const response = home.events().find((event) => event.type === "tool_call_response")!;
    expect(response).toMatchObject({ is_error: false, content: expect.stringContaining("skip") });
  });
});

describe("cxc q: loop limits and repairs", () => {
  it("stops at the cycle cap with a clear message and a valid log", async () => {
    home.writeConfig(wordCountTool("unattended"));
    provider.enqueue(
      callReply("c1", "word_count", { text: "a" }),
      callReply("c2", "word_count", { text: "b" }),
    );
    const result = await home.q(["--max-cycles", "2", "loop"]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain("Stopped after 2 model requests");
    const responses = home.events().filter((event) => event.type === "tool_call_response");
    expect(responses.map((event) => event.is_error)).toEqual([false, true]);
    expect(String(responses[1]!.content)).toContain("conversation.max_cycles");
  });

  it("answers tool calls an earlier run left open with 'Tool call was interrupted.'", async () => {
    home.writeConfig(wordCountTool("unattended"));
    // The first run's stream is cut right after the tool call block: the call is stored, never run.
    provider.enqueue({ ...callReply("c1", "word_count", { text: "a" }), cutAfterEvents: 7 });
    const cut = await home.q(["count"]);
    expect(cut.exitCode).toBe(1);
    expect(home.events().at(-1)).toMatchObject({ type: "tool_call_request", call_id: "c1" });
    provider.enqueue(textReply("fine"));
    const next = await home.q(["next"]);
    expect(next.exitCode).toBe(0);
    const events = home.events();
    const repair = events.find((event) => event.type === "tool_call_response")!;
    expect(repair).toMatchObject({ call_id: "c1", content: "Tool call was interrupted.", is_error: true });
    expect(events.indexOf(repair)).toBeLessThan(events.findLastIndex((event) => event.type === "turn_start"));
  });
});

describe("cxc q -k and --fork", () => {
  it("-k compacts before the turn: the provider receives the compacted view", async () => {
    home.writeConfig(wordCountTool("unattended") + RECALL_OFF);
    provider.enqueue(
      callReply("c1", "word_count", { text: "alpha beta" }),
      textReply("two"),
      textReply("second"),
      textReply("third"),
    );
    await home.q(["first"]);
    await home.q(["second"]);
    await home.q(["third"]);
    provider.enqueue(textReply("compacted answer"));
    const result = await home.q(["-k=t=omit:1..2", "fourth"]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain("Compacted turns 1..2");
    const compaction = home.events().find((event) => event.type === "compaction")!;
    expect(compaction).toMatchObject({
      from_turn: 0,
      to_turn: 1,
      tool_calls: { policy: "omit" },
      source: "user",
    });
    const sent = JSON.stringify(requestBody(provider, 4).messages);
    expect(sent).not.toContain("tool_use");
    expect(sent).not.toContain("alpha beta");
    expect(sent).toContain("fourth");
    // The previous request still carried the tool call: only the overlay changed what is sent.
    expect(JSON.stringify(requestBody(provider, 3).messages)).toContain("alpha beta");
  });

  it("-k=s summarizes with the configured assistant model when the rule names none; -k takes no swallowed message", async () => {
    provider.enqueue(textReply("one"), textReply("two"), textReply("three"));
    await home.q(["remember src/app.ts please"]);
    await home.q(["second"]);
    await home.q(["third"]);
    provider.enqueue(textReply("after summary"));
    const result = await home.q(["-k", "fourth question"]);
    expect(result.stderr).toContain("Compacted turns 2..2");
    expect(result.exitCode).toBe(0);
    const compaction = home.events().find((event) => event.type === "compaction");
    // Bare -k applies the default rule (keep first and last turn, strip reasoning and tools).
    expect(compaction).toMatchObject({ from_turn: 1, to_turn: 1, reasoning: "strip" });
    expect(home.events().at(-2)).toMatchObject({ type: "chat_request", content: "fourth question" });
    // The summary request comes first (before the turn), from the assistant model the user configured.
    provider.enqueue(textReply("The user asked to remember src/app.ts."), textReply("five"));
    const fifth = await home.q(["-k=s:..-1", "fifth"]);
    expect(fifth.exitCode, fifth.stderr).toBe(0);
    const summary = home
      .events()
      .filter((event) => event.type === "compaction")
      .at(-1)!;
    expect(summary).toMatchObject({
      summary: { summary: "The user asked to remember src/app.ts.", source: "derived", recipe: TEST_MODEL },
    });
    const summaryRequest = requestBody(provider, 4);
    expect(JSON.stringify(summaryRequest.messages.at(-1))).toContain("Summarize the conversation above.");
    expect(JSON.stringify(summaryRequest.messages)).toContain("remember src/app.ts please");
    expect(JSON.stringify(requestBody(provider, 5).messages)).toContain("[Summary of previous conversation]");
    expect(JSON.stringify(requestBody(provider, 5).messages)).toContain(
      "The user asked to remember src/app.ts.",
    );
  });

  it("a bad -k SPEC is a usage error naming the reason", async () => {
    provider.enqueue(textReply("one"));
    await home.q(["first"]);
    const result = await home.q(["-k=x", "hi"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("invalid compact spec 'x'");
  });

  it("--fork=N continues on a fork keeping the last N turns", async () => {
    provider.enqueue(textReply("one"), textReply("two"), textReply("three"));
    await home.q(["first"]);
    const source = home.activeId();
    await home.q(["second"]);
    const result = await home.q(["--fork=1", "third"]);
    expect(result.exitCode).toBe(0);
    expect(home.activeId()).not.toBe(source);
    expect(requestBody(provider, 2).messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "user",
    ]);
    expect(JSON.stringify(requestBody(provider, 2).messages)).not.toContain("first");
    expect(home.events(source).filter((event) => event.type === "turn_start")).toHaveLength(2);
  });
});
