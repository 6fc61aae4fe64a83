/**
 * Compaction inside a turn, end to end (docs/compaction.md, "Inside a turn"): the built CLI on an
 * agent-style session (one user message, eleven cycles), then `q` against the loopback fake
 * provider to see what the model is sent. Observation masking (`-k r+t:-5calls`), a summary that
 * stands where its cycles were (`-k s:..1.4`), and every reader of these compactions: the dry run,
 * `show`, `print`, `stats`, `--reset`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import type { TempHome } from "../helpers/cli.js";
import { createEventBuilder } from "../helpers/builders.js";
import { agentTurn } from "../helpers/cycles.js";
import { type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { compactionsOf, homeWithSample, logBytes, SAMPLE_ID } from "./compact-helpers.js";
import { errorLines } from "./conversation-helpers.js";

let provider: FakeProvider;
let home: TempHome;
beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(() => provider?.close());
afterEach(() => {
  home?.cleanup();
  expect(provider.remaining()).toBe(0);
  provider.reset();
});

/** Cycles 1..10 ask for 2, 1, 1, 2, 1, 1, 2, 1, 1, 2 files (14 calls); cycle 11 answers. */
const CALLS = [2, 1, 1, 2, 1, 1, 2, 1, 1, 2];

/** One agent turn: the user's request, ten cycles of reasoning and reads, the final answer. */
function agentSession(): ConversationEvent[] {
  const build = createEventBuilder();
  return agentTurn(
    build,
    "fix the bug",
    CALLS.map((calls, index) => ({ reasoning: `thinking in cycle ${index + 1}`, calls })),
    "the bug is fixed",
  );
}

/** The raw result of call `call` of cycle `cycle` (both 1-based), as agentTurn writes it. */
function resultOf(cycle: number, call: number): string {
  return `contents of cycle ${cycle - 1} call ${call - 1} `.repeat(8);
}

function env(): Record<string, string> {
  return { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: provider.anthropicBaseURL };
}

interface Block {
  type: string;
  id?: string;
  tool_use_id?: string;
  text?: string;
  input?: unknown;
  content?: unknown;
}
interface Message {
  role: string;
  content: string | Block[];
}

function messagesOf(index: number): Message[] {
  return (provider.requests[index]!.body as { messages: Message[] }).messages;
}

function blocksOf(message: Message): Block[] {
  return typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
}

function resultText(block: Block): string {
  if (typeof block.content === "string") return block.content;
  return (block.content as Block[]).map((part) => part.text ?? "").join("");
}

/** Every tool_use is answered by a tool_result in the next message, and no result is an orphan. */
function expectEveryCallAnswered(messages: readonly Message[]): void {
  messages.forEach((message, position) => {
    if (message.role !== "assistant") return;
    const calls = blocksOf(message).filter((block) => block.type === "tool_use");
    const next = messages[position + 1];
    const answers = next === undefined ? [] : blocksOf(next).filter((block) => block.type === "tool_result");
    expect(answers.map((block) => block.tool_use_id)).toEqual(calls.map((block) => block.id));
  });
}

/** Asks one more question and returns the messages the model was sent. */
async function nextRequest(): Promise<Message[]> {
  provider.enqueue(textReply("next answer"));
  const before = provider.requests.length;
  const result = await home.run(["q", "what next?"], { env: env() });
  expect(result.exitCode, result.stderr).toBe(0);
  return messagesOf(before);
}

describe("observation masking inside one turn", () => {
  it("-k r+t:-5calls sends placeholders for the older results and the last five calls verbatim", async () => {
    home = await homeWithSample(agentSession());
    const compact = await home.run(["conversation", "compact", "-k", "r+t:-5calls"]);
    expect(compact.exitCode, compact.stderr).toBe(0);
    expect(compact.stdout).toBe(
      "Compacted turn 1, cycles 1..6 (6 cycles, reasoning + tools).\nKept turn 1, from cycle 7.\n",
    );
    const [compaction, ...rest] = compactionsOf(home);
    expect(rest).toEqual([]);
    expect(compaction).toMatchObject({
      from_turn: 0,
      to_turn: 0,
      cycles: {
        to: 5,
        reasoning: "strip",
        tool_calls: { policy: "strip", request: true, response: true },
      },
    });
    // `..` starts at the head of turn 1 (no `cycles.from`); the policies live only in `cycles`.
    expect(compaction?.cycles).not.toHaveProperty("from");
    expect(compaction).not.toHaveProperty("tool_calls");

    const messages = await nextRequest();
    expect(messages[0]).toEqual({ role: "user", content: [{ type: "text", text: "fix the bug" }] });
    expectEveryCallAnswered(messages);
    const results = messages.flatMap((message) =>
      blocksOf(message).filter((block) => block.type === "tool_result"),
    );
    const calls = messages.flatMap((message) =>
      blocksOf(message).filter((block) => block.type === "tool_use"),
    );
    expect(results).toHaveLength(14);
    // Cycles 1..6 hold the first 8 calls: masked, their arguments emptied but named in the placeholder.
    results.slice(0, 8).forEach((block, index) => {
      expect(resultText(block)).toMatch(
        /^\[compacted\] read_file \{"path":"fix-the-bug-\d-\d\.ts"\}: success, 216 chars dropped$/,
      );
      expect(calls[index]!.input).toEqual({});
    });
    // Cycles 7..10 (6 calls, at least the last 5) are as they were.
    const kept = [
      [7, 1],
      [7, 2],
      [8, 1],
      [9, 1],
      [10, 1],
      [10, 2],
    ] as const;
    kept.forEach(([cycle, call], index) => {
      expect(resultText(results[8 + index]!)).toBe(resultOf(cycle, call));
      expect(calls[8 + index]!.input).toEqual({ path: `fix-the-bug-${cycle - 1}-${call - 1}.ts` });
    });
    const text = JSON.stringify(messages);
    const thinking = (cycle: number) => new RegExp(`thinking in cycle ${cycle}(?!\\d)`);
    for (let cycle = 1; cycle <= 6; cycle++) expect(text).not.toMatch(thinking(cycle));
    for (let cycle = 7; cycle <= 10; cycle++) expect(text).toMatch(thinking(cycle));
    expect(text).toContain("the bug is fixed");
  });

  it("-k t=sres:-5calls masks results only; the dry run names the cycles and changes nothing", async () => {
    home = await homeWithSample(agentSession());
    const before = logBytes(home);
    const dry = await home.run(["conversation", "compact", "--dry-run", "-k", "t=sres:-5calls"]);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(
      new RegExp(
        "^Would have compacted turn 1, cycles 1\\.\\.6 \\(6 cycles, tool responses\\)\\.\\n" +
          "Would have kept turn 1, from cycle 7\\.\\n\\n" +
          "Estimated tokens \\(o200k; summaries estimated with builtin/digest\\):\\n" +
          "  turn 1, cycles 1\\.\\.6 \\(6 cycles, tool responses\\): \\S+ → \\S+ tokens\\n" +
          "  whole conversation: \\S+ → \\S+ tokens\\n\\n" +
          "Context of the next request: \\S+ → \\S+ tokens \\(.*\\)\\n" +
          "With the prompt cache: saves \\S+ tokens a request; the next request writes \\S+ tokens to the cache again from turn 1 on, once \\(no prices known .*\\)\\n$",
      ),
    );
    expect(logBytes(home)).toBe(before);
    const json = await home.run([
      "--format",
      "json",
      "conversation",
      "compact",
      "--dry-run",
      "-k",
      "t=sres:-5calls",
    ]);
    const [entry] = JSON.parse(json.stdout).compactions;
    expect(entry).toMatchObject({
      from_turn: 1,
      to_turn: 1,
      from_cycle: null,
      to_cycle: 6,
      label: "tool responses",
    });

    const compact = await home.run(["conversation", "compact", "-k", "t=sres:-5calls"]);
    expect(compact.exitCode, compact.stderr).toBe(0);
    const messages = await nextRequest();
    expectEveryCallAnswered(messages);
    const calls = messages.flatMap((message) =>
      blocksOf(message).filter((block) => block.type === "tool_use"),
    );
    // Only the results go: every call keeps its arguments.
    expect(calls.every((block) => JSON.stringify(block.input).includes("fix-the-bug-"))).toBe(true);
    expect(JSON.stringify(messages)).toContain("thinking in cycle 1");
  });
});

describe("a summary inside a turn", () => {
  it("-k s:..1.4 asks the model for the first four cycles, after the user's message, and it stands where they were", async () => {
    home = await homeWithSample(agentSession());
    provider.enqueue(textReply("IN-TURN SUMMARY: read eight files"));
    const compact = await home.run(
      ["conversation", "compact", "-m", "anthropic/claude-summary", "-k", "s:..1.4"],
      { env: env() },
    );
    expect(compact.exitCode, compact.stderr).toBe(0);
    expect(compact.stdout).toMatch(
      /^Compacted turn 1, cycles 1\.\.4 \(4 cycles, summary: \S+-summary-turn-1-cycles-1-4-[0-9a-f]{8}\.md\)\.\nKept turn 1, from cycle 5\.\n/,
    );
    expect(compact.stdout).toContain("The summary of turn 1, cycles 1..4 (anthropic/claude-summary)");

    // The summarizer sees the user's message, then cycles 1..4 only, then the in-turn request.
    const asked = messagesOf(0);
    expect(asked[0]).toEqual({ role: "user", content: [{ type: "text", text: "fix the bug" }] });
    const askedText = JSON.stringify(asked);
    expect(askedText).toContain(JSON.stringify(resultOf(4, 1)).slice(1, -1));
    expect(askedText).not.toContain("contents of cycle 4 call 0");
    expect(askedText).not.toContain("the bug is fixed");
    const last = blocksOf(asked.at(-1)!);
    expect(last.at(-1)!.text).toMatch(/^Summarize the steps above that follow my first message\./);
    expectEveryCallAnswered(asked);

    const [compaction] = compactionsOf(home);
    expect(compaction).toMatchObject({
      from_turn: 0,
      to_turn: 0,
      cycles: {
        from: 0,
        to: 3,
        summary: {
          summary: "IN-TURN SUMMARY: read eight files",
          source: "derived",
          recipe: "anthropic/claude-summary",
        },
      },
    });

    // The next request keeps the user's message, the summary after it, and cycles 5.. as they were.
    const messages = await nextRequest();
    const [message, summary] = blocksOf(messages[0]!);
    expect(message).toEqual({ type: "text", text: "fix the bug" });
    // The summary, then the facts block cxc stored with it: the files those cycles read.
    expect(summary!.text).toMatch(
      /^\[Summary of earlier steps in this turn\]\n\nIN-TURN SUMMARY: read eight files\n\n\[Facts of these turns, from their raw events\]\nFiles read: /,
    );
    expectEveryCallAnswered(messages);
    const text = JSON.stringify(messages);
    expect(text).not.toContain("contents of cycle 0");
    expect(text).not.toContain("thinking in cycle 4");
    expect(text).toContain("thinking in cycle 5");
    expect(text).toContain(JSON.stringify(resultOf(5, 1)).slice(1, -1));
    expect(text).toContain("the bug is fixed");
  });

  it("-k s:..1.4 with the digest, and every reader names the cycles", async () => {
    home = await homeWithSample(agentSession());
    const compact = await home.run(["conversation", "compact", "-m", "builtin/digest", "-k", "s:..1.4"]);
    expect(compact.exitCode, compact.stderr).toBe(0);
    const mask = await home.run(["conversation", "compact", "-k", "t=sres:-5calls", "--note", "old reads"]);
    expect(mask.exitCode, mask.stderr).toBe(0);
    expect(mask.stdout).toBe(
      "Compacted turn 1, cycles 1..6 (6 cycles, tool responses).\n" +
        "Compacted turn 1, cycles 1..4 (4 cycles, already compacted).\n" +
        "Kept turn 1, from cycle 7.\n",
    );

    const show = await home.run(["conversation", "show"]);
    expect(show.stdout).toContain(
      "Compactions:\n  1. turn 1, cycles 1..4 (4 cycles, summary) [user]\n  2. turn 1, cycles 1..6 (6 cycles, tool responses) [user] — old reads\n",
    );
    const showJson = JSON.parse((await home.run(["--format", "json", "conversation", "show"])).stdout);
    expect(showJson.compactions[0]).toMatchObject({
      from_turn: 1,
      to_turn: 1,
      from_cycle: 1,
      to_cycle: 4,
      label: "summary",
    });
    expect(showJson.compactions[1]).toMatchObject({
      tool_calls: { policy: "strip", request: false, response: true },
    });

    const printed = await home.run(["conversation", "print", "--compacted"]);
    expect(printed.stdout).toMatch(
      /^── turn 1 \(cycles 1\.\.4 summarized\) ──\n\[user\]\nfix the bug\n\[summary of cycles 1\.\.4\]\n## Digest of turn 1, cycles 1\.\.4 \(builtin\/digest\)\n/,
    );
    // Cycles 5 and 6 are masked, 7.. verbatim.
    expect(printed.stdout).toContain(
      '[compacted] read_file {"path":"fix-the-bug-4-0.ts"}: success, 216 chars dropped',
    );
    expect(printed.stdout).toContain(resultOf(7, 1));
    const raw = await home.run(["conversation", "print"]);
    expect(raw.stdout).toContain("[compaction] turn 1, cycles 1..4 (4 cycles, summary) [user]");
    expect(raw.stdout).toContain(
      "[compaction] turn 1, cycles 1..6 (6 cycles, tool responses) [user] — old reads",
    );

    const stats = await home.run(["conversation", "stats"]);
    expect(stats.stdout).toMatch(/\nturn 1 \(2 results masked\) +\d+/);
    const statsJson = JSON.parse((await home.run(["--format", "json", "conversation", "stats"])).stdout);
    expect(statsJson.projected.turns).toEqual([expect.objectContaining({ kind: "kept", masked_results: 2 })]);

    const dryReset = await home.run(["conversation", "compact", "--reset=1", "--dry-run"]);
    expect(dryReset.stdout).toBe("Would remove compaction 1 (turn 1, cycles 1..4).\n");
  });

  it("--reset=N retires a cycle compaction like any other, and the model sees the cycles again", async () => {
    home = await homeWithSample(agentSession());
    expect((await home.run(["conversation", "compact", "-k", "r+t:-5calls"])).exitCode).toBe(0);
    const reset = await home.run(["conversation", "compact", "--reset=1"]);
    expect(reset.exitCode, reset.stderr).toBe(0);
    expect(reset.stdout).toBe("Removed compaction 1 (turn 1, cycles 1..6).\n");
    const messages = await nextRequest();
    const text = JSON.stringify(messages);
    expect(text).not.toContain("[compacted]");
    expect(text).toContain("thinking in cycle 1");
    const undo = await home.run(["conversation", "compact", "--undo-reset"]);
    expect(undo.stdout).toMatch(/: 1 compaction comes back \(turn 1, cycles 1\.\.6\)\.\n$/);
  });

  it("jp export writes a turn-aligned cycle compaction as jp's own and says what it left out", async () => {
    const build = createEventBuilder();
    home = await homeWithSample([
      ...agentSession(),
      ...agentTurn(build, "and then?", [{ calls: 1 }], "that too"),
    ]);
    // Reasoning of all of turn 1 (its last cycle is 11): whole turns after all. Then a mask inside turn 1.
    expect((await home.run(["conversation", "compact", "-k", "r:..1.11"])).exitCode).toBe(0);
    expect((await home.run(["conversation", "compact", "-k", "t=sres:..1.6"])).exitCode).toBe(0);
    const output = join(home.home, "exported");
    const result = await home.run(["conversation", "export", "--to", "jp", "--output", output]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Exported sample000001 to /);
    expect(result.stderr).toBe(
      "cxc: warning: jp has no cycles, so 1 compaction inside a turn was left out (turn 1, cycles 1..6); " +
        "jp shows those cycles uncompacted\n",
    );
    const [directory] = readdirSync(output);
    const written = JSON.parse(readFileSync(join(output, directory!, "events.json"), "utf8")) as {
      type: string;
    }[];
    expect(written.filter((entry) => entry.type === "compaction")).toEqual([
      { type: "compaction", timestamp: expect.any(String), from_turn: 0, to_turn: 0, reasoning: "strip" },
    ]);
    const json = await home.run([
      "--format",
      "json",
      "conversation",
      "export",
      "--to",
      "jp",
      "--output",
      join(home.home, "again"),
    ]);
    expect(JSON.parse(json.stdout)).toMatchObject({ format: "jp", left_out: ["turn 1, cycles 1..6"] });
  });

  it("--from T.C and --to T.C start and end the range at cycles", async () => {
    home = await homeWithSample(agentSession());
    const result = await home.run([
      "conversation",
      "compact",
      "-m",
      "builtin/digest",
      "-s",
      "--from",
      "1.2",
      "--to",
      "1.5",
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^Kept turn 1, cycle 1\.\nCompacted turn 1, cycles 2\.\.5 \(4 cycles, summary: \S+\)\.\nKept turn 1, from cycle 6\.\n/,
    );
    expect(compactionsOf(home)[0]).toMatchObject({ from_turn: 0, to_turn: 0, cycles: { from: 1, to: 4 } });
  });

  it("refuses a cycle its turn does not have, naming how many it has, and writes nothing", async () => {
    home = await homeWithSample(agentSession());
    const before = logBytes(home);
    const cycles = CALLS.length + 1;
    const result = await home.run(["conversation", "compact", "-k", `r:1.${cycles + 3}..1`]);
    expect(result.exitCode).toBe(2);
    // About the active conversation, whose id was not typed: the error names it.
    expect(errorLines(result.stderr).error).toBe(
      `conversation ${SAMPLE_ID}: turn 1 has ${cycles} cycles; there is no cycle ${cycles + 3}`,
    );
    const flag = await home.run(["conversation", "compact", "-r", "--to", `1.${cycles + 1}`]);
    expect(flag.exitCode).toBe(2);
    expect(errorLines(flag.stderr).error).toBe(
      `conversation ${SAMPLE_ID}: turn 1 has ${cycles} cycles; there is no cycle ${cycles + 1}`,
    );
    expect(logBytes(home)).toBe(before);
  });

  it("refuses a cycle 0 with one clear line and writes nothing", async () => {
    home = await homeWithSample(agentSession());
    const before = logBytes(home);
    const result = await home.run(["conversation", "compact", "-k", "s:..1.0"]);
    expect(result.exitCode).toBe(2);
    expect(errorLines(result.stderr).error).toBe(
      "invalid compact spec 's:..1.0': cycles are 1-based; `1.0` is not a valid cycle",
    );
    const flag = await home.run(["conversation", "compact", "-r", "--to", "1.0"]);
    expect(flag.exitCode).toBe(2);
    expect(errorLines(flag.stderr).error).toContain("cycles are 1-based; `1.0` is not a valid cycle");
    expect(logBytes(home)).toBe(before);
  });
});
