/**
 * The context of the next request (docs/context.md) end to end, against the loopback fake, which
 * reports what it counts: a quarter of the request body's characters as input. After a turn the
 * figure is the reported usage; after a compaction (in force, or deferred by automatic compaction)
 * it is within 20 % (or 150 tokens on a small request) of what the fake counts for the next
 * request, and says `reported-adjusted`; after that turn it is the reported usage again; `cxc q`'s
 * gauge and `stats` print the same number. On a jp conversation whose system prompt is most of its
 * request (37k characters: the gauge once said 1.7k where the provider counted 11.6k), and on one
 * whose tool outputs are.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeProvider, type FakeReply, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { PROJECT_ROOT } from "../helpers/cli.js";
import { COMMITTED_JP_WORKSPACE } from "../helpers/jp-fixtures.js";
import { makeQueryHome, type QueryHome } from "../query/e2e.js";

/** jp's "missing date in version string": a 37k-character system prompt, 12k of messages. */
const JP_CONVERSATION = join(
  COMMITTED_JP_WORKSPACE.conversations,
  "17758406187-missing-date-in-version-string",
);

let provider: FakeProvider;
let home: QueryHome;

beforeAll(async () => {
  provider = await startFakeProvider({ countUsage: true });
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

const env = { CXC_CONVERSATION__CONTEXT_GAUGE: "show" };

interface Figure {
  tokens: number;
  tokens_source: string;
  reported: number | null;
}

async function figure(): Promise<Figure> {
  const result = await home.home.run(["--format", "json", "conversation", "stats"], { env: home.env });
  expect(result.exitCode, result.stderr).toBe(0);
  return JSON.parse(result.stdout).context as Figure;
}

/** The number `stats` prints first, as text. */
async function statsNumber(): Promise<string> {
  const result = await home.home.run(["conversation", "stats"], { env: home.env });
  return /^Context: (\S+)/.exec(result.stdout)![1]!;
}

/** One `cxc q` turn; the gauge's number and what the fake counted for each request it got. */
async function turn(
  message: string,
  replies: FakeReply[],
  flags: string[] = [],
): Promise<{ gauge: string; counted: number[] }> {
  const before = provider.requests.length;
  provider.enqueue(...replies);
  const result = await home.q([...flags, message], { env });
  expect(result.exitCode, result.stderr).toBe(0);
  const gauge = /^cxc: context (\S+)/m.exec(result.stderr);
  expect(gauge, result.stderr).not.toBeNull();
  return { gauge: gauge![1]!, counted: provider.requests.slice(before).map((request) => request.counted) };
}

/** The figure predicted the fake's count of the next request: within 20 %, or 150 tokens. */
function expectClose(predicted: number, counted: number): void {
  const tolerance = Math.max(150, counted * 0.2);
  expect(
    Math.abs(predicted - counted),
    `predicted ${predicted}, the fake counted ${counted}`,
  ).toBeLessThanOrEqual(tolerance);
}

/** The usage the last turn's last request reported, as stored. */
function lastReported(): number {
  const events = home.events();
  for (let index = events.length - 1; index >= 0; index--) {
    const usage = (events[index]!.metadata as { usage?: Record<string, number> } | undefined)?.usage;
    if (usage !== undefined)
      return (
        usage.input_tokens! +
        usage.output_tokens! +
        (usage.cache_read_input_tokens ?? 0) +
        (usage.cache_creation_input_tokens ?? 0)
      );
  }
  throw new Error("no usage stored");
}

describe("the context figure on a jp conversation with a large system prompt", () => {
  beforeEach(async () => {
    const imported = await home.home.run(["conversation", "import", "--from", "jp", JP_CONVERSATION]);
    expect(imported.exitCode, imported.stderr).toBe(0);
    const id = /as (\w+)/.exec(imported.stdout)![1]!;
    expect((await home.home.run(["conversation", "use", id])).exitCode).toBe(0);
  });

  it("is estimated before any usage, then reported, then close to the fake after each compaction", async () => {
    // No request reported usage yet: cxc's own count, system prompt included.
    const estimated = await figure();
    expect(estimated.tokens_source).toBe("estimated");
    const first = await turn("What was the cause?", [textReply("The date was never set.")]);
    expectClose(estimated.tokens, first.counted[0]!);
    expect(first.counted[0]).toBeGreaterThan(9000); // the system prompt is most of it

    // After a turn: the reported usage, in the gauge and in stats alike.
    const reported = await figure();
    expect(reported).toMatchObject({ tokens: lastReported(), tokens_source: "reported" });
    expect(first.gauge).toBe(await statsNumber());

    // A compaction in force: reasoning and tools of all but the last two turns.
    const masked = await home.home.run(["conversation", "compact", "-k", "r+t:..-2"], { env: home.env });
    expect(masked.exitCode, masked.stderr).toBe(0);
    const afterMask = await figure();
    expect(afterMask.tokens_source).toBe("reported-adjusted");
    expect(afterMask.tokens).toBeLessThan(reported.tokens);
    const second = await turn("And the fix?", [textReply("Set it at build time.")]);
    expectClose(afterMask.tokens, second.counted[0]!);
    expect(await figure()).toMatchObject({ tokens: lastReported(), tokens_source: "reported" });

    // A summary in force, written by the digest.
    const summary = await home.home.run(["conversation", "compact", "-k", "s:..-2", "-m", "builtin/digest"], {
      env: home.env,
    });
    expect(summary.exitCode, summary.stderr).toBe(0);
    const afterSummary = await figure();
    expect(afterSummary.tokens_source).toBe("reported-adjusted");
    const third = await turn("Anything else?", [textReply("No.")]);
    expectClose(afterSummary.tokens, third.counted[0]!);
    expect(await figure()).toMatchObject({ tokens: lastReported(), tokens_source: "reported" });
    expect(third.gauge).toBe(await statsNumber());
  });

  it("counts a deferred compaction's saving from the next turn's first request (automatic compaction)", async () => {
    await turn("What was the cause?", [textReply("The date was never set.")]);
    home.writeConfig(`
[conversation.compaction.auto]
enabled = true
trigger = 1000
keep_last = 1
rules = [{ reasoning = "strip", tool_calls = "strip" }, { summary = { model = { id = "builtin/digest" } } }]
`);
    // The turn ends past the trigger: compactions recorded, deferred to the next turn.
    const recorded = await turn("And the fix?", [textReply("Set it at build time.")]);
    const deferred = await figure();
    expect(deferred.tokens_source).toBe("reported-adjusted");
    expect(deferred.tokens).toBeLessThan(lastReported());
    expect(recorded.gauge).toBe(await statsNumber());
    const next = await turn("Anything else?", [textReply("No.")]);
    expectClose(deferred.tokens, next.counted[0]!);
  });
});

describe("the context figure on a conversation whose tool outputs are most of its request", () => {
  it("predicts the next request after masking and after a summary", async () => {
    const files = join(home.home.cwd, "files");
    mkdirSync(files, { recursive: true });
    for (const name of ["a", "b", "c", "d"]) {
      const lines = Array.from({ length: 120 }, (_, index) => `${name} line ${index}: value=${index * 7} ok`);
      writeFileSync(join(files, `${name}.txt`), `${lines.join("\n")}\n`);
    }
    home.writeConfig(`
[conversation.tools.show]
command = "cat {{path}}"
description = "Prints a file"
run = "unattended"
[conversation.tools.show.parameters]
type = "object"
required = ["path"]
[conversation.tools.show.parameters.properties.path]
type = "string"
`);
    const read = (name: string): FakeReply => ({
      blocks: [
        {
          type: "tool-call",
          id: `call_${name}`,
          name: "show",
          arguments: { path: join(files, `${name}.txt`) },
        },
      ],
    });
    await turn("Read a.", [read("a"), textReply("Read a.")], ["--new"]);
    for (const name of ["b", "c", "d"]) await turn(`Read ${name}.`, [read(name), textReply(`Read ${name}.`)]);
    const reported = await figure();
    expect(reported).toMatchObject({ tokens: lastReported(), tokens_source: "reported" });

    const masked = await home.home.run(["conversation", "compact", "-k", "r+t:..-2"], { env: home.env });
    expect(masked.exitCode, masked.stderr).toBe(0);
    const afterMask = await figure();
    expect(afterMask.tokens_source).toBe("reported-adjusted");
    expect(afterMask.tokens).toBeLessThan(reported.tokens * 0.8);
    const next = await turn("What did they say?", [textReply("Lines.")]);
    expectClose(afterMask.tokens, next.counted[0]!);

    const summary = await home.home.run(["conversation", "compact", "-k", "s:..-2", "-m", "builtin/digest"], {
      env: home.env,
    });
    expect(summary.exitCode, summary.stderr).toBe(0);
    const afterSummary = await figure();
    const last = await turn("Done?", [textReply("Yes.")]);
    expectClose(afterSummary.tokens, last.counted[0]!);
    expect(last.gauge).toBe(await statsNumber());
  });
});

describe("an imported agent session's figure is the agent's own count", () => {
  const fixture = (agent: string) => join(PROJECT_ROOT, "fixtures", "agents", agent, "session.jsonl");
  // The records' shapes, as far as these tests read them.
  type Usage = Record<string, number>;
  interface AgentRecord {
    type?: string;
    message?: { role?: string; usage?: Usage };
    payload?: { usage?: Usage };
  }
  const records = (agent: string): AgentRecord[] =>
    readFileSync(fixture(agent), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as AgentRecord);
  /** The usage of the agent's last request, read from its file the agent's way. */
  const lastUsage: Record<string, () => number> = {
    "claude-code": () => {
      const usage = records("claude-code").findLast((record) => record.type === "assistant")!.message!.usage!;
      return (
        usage.input_tokens! +
        usage.output_tokens! +
        usage.cache_read_input_tokens! +
        usage.cache_creation_input_tokens!
      );
    },
    pi: () =>
      records("pi").findLast((record) => record.message?.role === "assistant")!.message!.usage!.totalTokens!,
    codex: () =>
      records("codex").findLast((record) => record.type === "token_usage_record")!.payload!.usage!
        .total_tokens!,
  };
  const names: Record<string, string> = { "claude-code": "Claude Code", pi: "pi", codex: "Codex" };

  it.each(["claude-code", "pi", "codex"])("%s", async (agent) => {
    const imported = await home.home.run(["conversation", "import", fixture(agent)]);
    expect(imported.exitCode, imported.stderr).toBe(0);
    const stats = await home.home.run(["--format", "json", "conversation", "stats"], { env: home.env });
    const context = JSON.parse(stats.stdout).context;
    expect(context).toMatchObject({
      tokens: lastUsage[agent]!(),
      tokens_source: "reported",
      reported_by: agent,
    });
    const text = await home.home.run(["conversation", "stats"], { env: home.env });
    expect(text.stdout.split("\n")[0]).toContain(`as ${names[agent]} counts it)`);
  });
});
