import { describe, expect, it } from "vitest";
import type { Compaction, ConversationEvent, RecallExclusion } from "../../src/core/conversation/events.js";
import { projectConversation } from "../../src/core/conversation/projection.js";
import {
  agentCompactionIndex,
  analyzeRecall,
  NOT_RECALLABLE,
  pageOf,
  parseRecallReference,
  placeRecallIndex,
  queryPattern,
  RECALL_INDEX_HEADING,
  readRecallReference,
  recallIndexLines,
  recallIndexText,
  searchRecall,
} from "../../src/core/conversation/recall.js";
import { buildLlmRequest } from "../../src/core/conversation/request.js";
import { createEventBuilder } from "../helpers/builders.js";

const LONG_OUTPUT = `export function lex(source: string) {\n${"  // a long line of the lexer\n".repeat(60)}}\n`;

/** Five turns: a read with a long result in turn 2, reasoning in turns 1..3. */
function conversation() {
  const build = createEventBuilder();
  const events: ConversationEvent[] = [
    ...build.turn("Never push to main. Look at the parser.", { reasoning: "thinking about the parser" }),
    ...build.turn("Read the lexer", {
      reasoning: "I should read it",
      tools: [
        { name: "read_file", arguments: { path: "src/parser/lexer.ts" }, result: LONG_OUTPUT },
        {
          name: "bash",
          arguments: { command: "npm test" },
          result: "Error: ENOENT lexer.fixture",
          isError: true,
        },
      ],
    }),
    ...build.turn("Fix it", { reasoning: "fixing", tools: [{ name: "edit_file", result: "ok" }] }),
    ...build.turn("Now the docs"),
    ...build.turn("What is left?"),
  ];
  return { build, events };
}

function withCompaction(events: ConversationEvent[], compaction: Compaction): ConversationEvent[] {
  return [...events, compaction];
}

describe("the recall index of an agent's compaction under way", () => {
  it("covers every turn, or the turns up to `to`, with the largest calls' own references", () => {
    const { events } = conversation();
    expect(agentCompactionIndex(events)?.split("\n").slice(1, 2)).toEqual([
      expect.stringMatching(/^turns 1\.\.5: summarized \(3 calls, /),
    ]);
    const upTo = agentCompactionIndex(events, { to: 1 })!.split("\n");
    expect(upTo[0]).toBe(RECALL_INDEX_HEADING);
    expect(upTo[1]).toMatch(/^turns 1\.\.2: summarized \(2 calls, /);
    expect(upTo.slice(2)).toEqual([
      expect.stringMatching(/^turn 2, call 1: read_file src\/parser\/lexer\.ts \(/),
      expect.stringMatching(/^turn 2, call 2: bash npm test \(error, /),
    ]);
    expect(agentCompactionIndex(events, { to: -1 })).toBeUndefined();
    expect(agentCompactionIndex([])).toBeUndefined();
  });
});

describe("the recall index", () => {
  it("is empty when nothing is compacted", () => {
    const { events } = conversation();
    const analysis = analyzeRecall(events);
    expect(analysis.items).toEqual([]);
    expect(recallIndexText(analysis)).toBeUndefined();
    expect(placeRecallIndex(analysis)).toBeUndefined();
  });

  it("lists a summary as one line over its turns, with its calls and characters", () => {
    const { build, events } = conversation();
    const all = withCompaction(
      events,
      build.compaction({ from: 0, to: 2, summary: "They fixed the lexer." }),
    );
    const analysis = analyzeRecall(all);
    expect(recallIndexLines(analysis)).toEqual([
      {
        reference: "turns 1..3",
        description: expect.stringMatching(/^summarized \(3 calls, [\d.]+k chars\)$/),
      },
    ]);
    expect(recallIndexText(analysis)!.split("\n")[0]).toBe(RECALL_INDEX_HEADING);
  });

  it("lists each stripped call (calls numbered within their turn) and reasoning as a run of turns", () => {
    const { build, events } = conversation();
    const all = withCompaction(events, build.compaction({ from: 0, to: 2, reasoning: true, tools: "strip" }));
    const lines = recallIndexLines(analyzeRecall(all)).map(
      (line) => `${line.reference}: ${line.description}`,
    );
    expect(lines).toEqual([
      "turns 1..3: reasoning (47 chars)",
      `turn 2, call 1: read_file src/parser/lexer.ts (${((30 + LONG_OUTPUT.length) / 1000).toFixed(1)}k chars)`,
      "turn 2, call 2: bash npm test (error, 49 chars)",
      "turn 3, call 1: edit_file edit_file.txt (26 chars)",
    ]);
  });

  it("says when a call was omitted or only its arguments were stripped", () => {
    const { build, events } = conversation();
    const omitted = recallIndexLines(
      analyzeRecall(withCompaction(events, build.compaction({ from: 1, to: 1, tools: "omit" }))),
    );
    expect(omitted.map((line) => line.description)).toEqual([
      expect.stringMatching(/^read_file src\/parser\/lexer.ts \(omitted, [\d.]+k chars\)$/),
      "bash npm test (omitted, error, 49 chars)",
    ]);
    const requests = recallIndexLines(
      analyzeRecall(withCompaction(events, build.compaction({ from: 1, to: 1, tools: "strip-requests" }))),
    );
    expect(requests.map((line) => line.description)).toEqual([
      "read_file src/parser/lexer.ts (arguments, 30 chars)",
      "bash npm test (arguments, error, 22 chars)",
    ]);
  });

  it("folds its oldest lines into one past the most lines it lists", () => {
    const build = createEventBuilder();
    const events: ConversationEvent[] = [];
    for (let index = 0; index < 8; index++)
      events.push(
        ...build.turn(`q${index}`, {
          tools: [{ name: "read_file", result: `content ${index} `.repeat(20) }],
        }),
      );
    events.push(build.compaction({ from: 0, to: 6, tools: "strip-responses" }));
    const lines = recallIndexLines(analyzeRecall(events, { maxIndexLines: 4 }));
    expect(lines.map((line) => line.reference)).toEqual([
      "turns 1..4",
      "turn 5, call 1",
      "turn 6, call 1",
      "turn 7, call 1",
    ]);
    expect(lines[0]!.description).toMatch(/^4 older hidden items/);
  });

  it("prefixes every reference with its source when it has one", () => {
    const { build, events } = conversation();
    const all = withCompaction(events, build.compaction({ from: 0, to: 1, summary: "S" }));
    const analysis = analyzeRecall(all, { source: "cxc 01kabc" });
    expect(recallIndexLines(analysis)[0]!.reference).toBe("cxc 01kabc turns 1..2");
    expect(readRecallReference(analysis, "cxc 01kabc turn 2, call 1").ok).toBe(true);
    const bare = readRecallReference(analysis, "turn 2, call 1");
    expect(bare.ok).toBe(false);
  });
});

describe("reading a reference", () => {
  it("returns a stripped tool result byte for byte, with its arguments", () => {
    const { build, events } = conversation();
    const all = withCompaction(events, build.compaction({ from: 0, to: 2, tools: "strip" }));
    const read = readRecallReference(analyzeRecall(all), "turn 2, call 1");
    expect(read).toEqual({
      ok: true,
      text: `turn 2, call 1: read_file\narguments:\n{"path":"src/parser/lexer.ts"}\nresult:\n${LONG_OUTPUT}`,
    });
    const error = readRecallReference(analyzeRecall(all), "Turn 2 call 2: bash npm test (error, 47 chars)");
    expect(error.ok && error.text.endsWith("result (error):\nError: ENOENT lexer.fixture")).toBe(true);
  });

  it("returns a summarized turn's raw content, every text as stored", () => {
    const { build, events } = conversation();
    const all = withCompaction(events, build.compaction({ from: 0, to: 2, summary: "S" }));
    const read = readRecallReference(analyzeRecall(all), "turn 1");
    expect(read).toEqual({
      ok: true,
      text: [
        "turn 1",
        "## turn 1",
        "",
        "user:\nNever push to main. Look at the parser.",
        "",
        "assistant's reasoning:\nthinking about the parser",
        "",
        "assistant:\na:Never push to main. Look at the parser.",
      ].join("\n"),
    });
    const many = readRecallReference(analyzeRecall(all), "turns 1..3", { budget: 100_000 });
    expect(many.ok && many.text.includes(`result of call 1:\n${LONG_OUTPUT}`)).toBe(true);
    expect(many.ok && many.text.includes("## turn 3")).toBe(true);
  });

  it("refuses what is outside the conversation, what is not hidden and what is not a reference", () => {
    const { build, events } = conversation();
    const analysis = analyzeRecall(
      withCompaction(events, build.compaction({ from: 0, to: 1, summary: "S" })),
    );
    expect(readRecallReference(analysis, "turn 9")).toEqual({
      ok: false,
      error: "turn 9 is not in this conversation: it has 5 turns; use a reference from the recall index",
    });
    expect(readRecallReference(analysis, "turn 4")).toEqual({
      ok: false,
      error:
        "turn 4 is not hidden: it is in your context as it was sent. Recall reads only what a compaction hid; see the recall index",
    });
    expect(readRecallReference(analysis, "turn 2, call 7")).toEqual({
      ok: false,
      error: "turn 2, call 7 does not exist: turn 2 made 2 tool calls",
    });
    expect(readRecallReference(analysis, "the lexer")).toMatchObject({
      ok: false,
      error: expect.stringContaining("is not a reference"),
    });
    expect(readRecallReference(analysis, "turns 3..1").ok).toBe(false);
  });

  it("pages a long result under the budget; the pages put together are the content", () => {
    const build = createEventBuilder();
    const big = Array.from({ length: 3000 }, (_, index) => `line ${index} 😀`).join("\n");
    const events = [
      ...build.turn("q", { tools: [{ name: "cat", arguments: { path: "big.log" }, result: big }] }),
      ...build.turn("r"),
      build.compaction({ from: 0, to: 0, tools: "strip-responses" }),
    ];
    const analysis = analyzeRecall(events);
    const bodies: string[] = [];
    for (let page = 1; ; page++) {
      const read = readRecallReference(analysis, "turn 1, call 1", { page, budget: 4000 });
      if (!read.ok) {
        expect(read.error).toMatch(/^turn 1, call 1 has \d+ pages; there is no page \d+$/);
        break;
      }
      expect(read.text.length).toBeLessThanOrEqual(4000);
      bodies.push(
        read.text
          .replace(/^\[turn 1, call 1, page \d+ of \d+\]\n/, "")
          .replace(/\n\[\d+ more characters: call again with page \d+\]$/, ""),
      );
    }
    expect(bodies.join("")).toBe(`turn 1, call 1: cat\narguments:\n{"path":"big.log"}\nresult:\n${big}`);
    // Never below the least budget.
    const small = readRecallReference(analysis, "turn 1, call 1", { budget: 10 });
    expect(small.ok && small.text.length).toBeGreaterThan(3000);
  });
});

describe("reading references", () => {
  it("forgives case, spacing, a copied line, `-` and `to`", () => {
    for (const text of [
      "turn 2, call 1",
      "Turn 2 Call 1",
      "turn 2, call 1: read_file x (1.6k chars)",
      "`turn 2, call 1`",
    ])
      expect(parseRecallReference(text)).toEqual({ ok: true, target: { kind: "call", turn: 1, call: 1 } });
    for (const text of ["turns 1..5", "turns 1-5", "turns 1 to 5", "turns 1...5"])
      expect(parseRecallReference(text)).toEqual({ ok: true, target: { kind: "turns", from: 0, to: 4 } });
    expect(parseRecallReference("turn 4, cycles 2..6")).toEqual({
      ok: true,
      target: { kind: "cycles", turn: 3, from: 1, to: 5 },
    });
    expect(parseRecallReference("cxc 01kabc turn 3, call 1")).toEqual({
      ok: true,
      target: { kind: "call", turn: 2, call: 1 },
      source: "cxc 01kabc",
    });
    expect(parseRecallReference("turn 0").ok).toBe(false);
    expect(parseRecallReference("turn 2, calls 1..3").ok).toBe(false);
  });
});

describe("searching hidden content", () => {
  it("finds text only the hidden content holds, newest first, each with its reference", () => {
    const { build, events } = conversation();
    const all = withCompaction(events, build.compaction({ from: 0, to: 2, tools: "strip" }));
    const found = searchRecall(analyzeRecall(all), "ENOENT");
    expect(found).toEqual({
      ok: true,
      text: "1 match of ENOENT in hidden content, newest first. Read one whole with its reference:\nturn 2, call 2: Error: ENOENT lexer.fixture",
    });
    const many = searchRecall(analyzeRecall(all), "lexer");
    expect(
      many.ok &&
        many.text
          .split("\n")
          .slice(1)
          .map((line) => line.split(":")[0]),
    ).toEqual(["turn 2, call 2", "turn 2, call 1", "turn 2, call 1", "turn 2, call 1", "turn 2, call 1"]);
    // What is in the view is not searched: the user's messages are kept.
    const visible = searchRecall(analyzeRecall(all), "Never push");
    expect(visible.ok && visible.text).toMatch(/^No hidden content matches Never push\./);
  });

  it("takes a /pattern/ with flags, and refuses one that is not valid", () => {
    const { build, events } = conversation();
    const analysis = analyzeRecall(
      withCompaction(events, build.compaction({ from: 0, to: 2, summary: "S" })),
    );
    const found = searchRecall(analysis, "/ENOENT \\w+\\.fixture/");
    expect(found.ok && found.text).toContain("turn 2, call 2: Error: ENOENT lexer.fixture");
    expect(
      searchRecall(analysis, "/never PUSH/i").ok && searchRecall(analysis, "/never PUSH/i"),
    ).toMatchObject({
      text: expect.stringContaining("turn 1: Never push to main."),
    });
    expect(searchRecall(analysis, "/(/")).toMatchObject({
      ok: false,
      error: expect.stringContaining("is not a valid pattern"),
    });
    expect(searchRecall(analysis, "  ")).toMatchObject({
      ok: false,
      error: expect.stringContaining("the query is empty"),
    });
  });
});

describe("keeping things out of recall", () => {
  const exclusion = (fields: Partial<RecallExclusion>): RecallExclusion =>
    ({
      type: "recall_exclusion",
      id: `x${Math.random()}`,
      ts: "2026-02-01T00:00:00.000000Z",
      ...fields,
    }) as RecallExclusion;

  it("leaves an excluded call out of the index and the search, and refuses it by reference", () => {
    const { build, events } = conversation();
    const all = [
      ...events,
      build.compaction({ from: 0, to: 2, tools: "strip" }),
      exclusion({ turn: 1, call: 2 }),
    ];
    const analysis = analyzeRecall(all);
    expect(recallIndexLines(analysis).map((line) => line.reference)).not.toContain("turn 2, call 2");
    expect(searchRecall(analysis, "ENOENT")).toMatchObject({
      ok: true,
      text: expect.stringMatching(/^No hidden content matches ENOENT/),
    });
    expect(readRecallReference(analysis, "turn 2, call 2")).toEqual({
      ok: false,
      error: "turn 2, call 2 is not recallable: the user keeps it out of recall; do not ask for it again",
    });
    // A turn read shows where it was.
    const turn = readRecallReference(analysis, "turn 2", { budget: 100_000 });
    expect(turn.ok && turn.text).toContain(`result of call 2 (error):\n${NOT_RECALLABLE}`);
  });

  it("leaves an excluded turn out, and every match of a pattern reads [not recallable]", () => {
    const { build, events } = conversation();
    const all = [
      ...events,
      build.compaction({ from: 0, to: 2, summary: "S" }),
      exclusion({ turn: 0 }),
      exclusion({ pattern: "/ENOENT \\S+/" }),
    ];
    const analysis = analyzeRecall(all, { excludePatterns: ["lexer.ts"] });
    expect(readRecallReference(analysis, "turn 1")).toMatchObject({
      ok: false,
      error: expect.stringContaining("not recallable"),
    });
    expect(searchRecall(analysis, "push")).toMatchObject({
      text: expect.stringMatching(/^No hidden content/),
    });
    const read = readRecallReference(analysis, "turn 2", { budget: 100_000 });
    expect(read.ok && read.text).toContain(`Error: ${NOT_RECALLABLE}`);
    expect(read.ok && read.text).toContain(`{"path":"src/parser/${NOT_RECALLABLE}"}`);
    expect(searchRecall(analysis, "fixture")).toMatchObject({
      text: expect.stringMatching(/^No hidden content/),
    });
    // Retired, the call is recallable again.
    const excluded = all
      .filter((event) => event.type === "recall_exclusion")
      .map((event) => (event as RecallExclusion).id);
    const back = analyzeRecall([...all, exclusion({ retires: excluded })]);
    expect(readRecallReference(back, "turn 1").ok).toBe(true);
  });
});

describe("the index in a request", () => {
  it("stands in the user message after the hidden range, never in the system prompt or the summary", () => {
    const { build, events } = conversation();
    const all = withCompaction(
      events,
      build.compaction({ from: 0, to: 2, summary: "They fixed the lexer." }),
    );
    const view = projectConversation(all);
    const placement = placeRecallIndex(analyzeRecall(all, { view }))!;
    const plain = buildLlmRequest(view.turns, { system: "sys" });
    const request = buildLlmRequest(view.turns, { system: "sys", recallIndex: placement });
    expect(request.system).toBe("sys");
    // The summary turn (user, assistant) is unchanged; the next user message opens with the index.
    expect(request.messages.slice(0, 2)).toEqual(plain.messages.slice(0, 2));
    expect(request.messages[2]).toEqual({
      role: "user",
      parts: [{ type: "text", text: placement.text }, ...plain.messages[2]!.parts],
    });
    expect(request.messages.slice(3)).toEqual(plain.messages.slice(3));
  });

  it("follows the last stripped result, in the next user message", () => {
    const { build, events } = conversation();
    const all = withCompaction(events, build.compaction({ from: 1, to: 1, tools: "strip-responses" }));
    const view = projectConversation(all);
    const placement = placeRecallIndex(analyzeRecall(all, { view }))!;
    const request = buildLlmRequest(view.turns, { recallIndex: placement });
    const holder = request.messages.find((message) =>
      message.parts.some((part) => part.type === "text" && part.text === placement.text),
    )!;
    expect(holder).toEqual({
      role: "user",
      parts: [
        { type: "text", text: placement.text },
        { type: "text", text: "Fix it" },
      ],
    });
    // The results before it are the placeholders, as jp writes them.
    const results = request.messages
      .flatMap((message) => message.parts)
      .filter((part) => part.type === "tool-result");
    expect(results.map((part) => part.type === "tool-result" && part.content)).toEqual([
      "[compacted] read_file: success",
      "[compacted] bash: error",
      "ok",
    ]);
  });

  it("stands at the end, as a user message of its own, when nothing follows the hidden range", () => {
    const build = createEventBuilder();
    const events = [
      ...build.turn("q", { tools: [{ name: "read_file", result: "x".repeat(100) }] }),
      build.compaction({ from: 0, to: 0, tools: "omit" }),
    ];
    const view = projectConversation(events);
    const placement = placeRecallIndex(analyzeRecall(events, { view }))!;
    expect(placement.beforeEventId).toBeUndefined();
    const request = buildLlmRequest(view.turns, { recallIndex: placement });
    expect(request.messages.at(-1)).toEqual({
      role: "user",
      parts: [{ type: "text", text: placement.text }],
    });
  });
});

describe("pages", () => {
  it("are the text whole when it fits", () => {
    expect(pageOf("abc", 1, 4000, "x")).toEqual({ ok: true, text: "abc" });
    expect(pageOf("abc", 2, 4000, "x")).toEqual({ ok: false, error: "x has 1 page; there is no page 2" });
  });
});

describe("the index after a tool result", () => {
  it("follows the run of results it opens, never before a result in its message", () => {
    const build = createEventBuilder();
    const events = [
      build.turnStart(),
      build.request("Read both files"),
      build.toolRequest({ callId: "c1", name: "read_file", arguments: { path: "a.ts" } }),
      build.toolResponse("c1", "A".repeat(3000)),
      build.toolRequest({ callId: "c2", name: "read_file", arguments: { path: "b.ts" } }),
      build.toolResponse("c2", "B"),
      build.message("Both read."),
    ];
    const indexText = "[Recall index: …]\nturn 1, call 1: read_file a.ts (3.0k chars)";
    const second = events[5]!;
    const request = buildLlmRequest([{ events, origin: { kind: "raw" } } as never], {
      recallIndex: { text: indexText, beforeEventId: second.id },
    });
    const holder = request.messages.find((message) =>
      message.parts.some((part) => part.type === "text" && part.text === indexText),
    )!;
    expect(holder.role).toBe("user");
    expect(holder.parts.map((part) => part.type)).toEqual(["tool-result", "text"]);
  });
});

describe("a text query", () => {
  it("is text when it only looks like a pattern, and its white space matches any white space", () => {
    const text = queryPattern("/// Returns an error if the file is not TOML, or if parsing/serialization");
    expect(text).toMatchObject({ isPattern: false });
    const found = "x\n/// Returns an error if the file is not TOML, or if parsing/serialization fails";
    expect((text as { pattern: RegExp }).pattern.test(found)).toBe(true);
    const wrapped = queryPattern("can only see  the place holder");
    expect((wrapped as { pattern: RegExp }).pattern.test("you can only see\nthe place holder text")).toBe(
      true,
    );
    expect(queryPattern("/sk-[a-z]+/i")).toMatchObject({ isPattern: true });
  });
});
