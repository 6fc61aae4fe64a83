/**
 * Recall in `cxc q`, end to end against the loopback fake (docs/recall.md): the `recall` tool is
 * on every request, the same before and after a compaction; after `-k r+t:..-2` and `-k s:..-2` a
 * scripted model finds by query what only the hidden content holds and reads by reference a
 * stripped tool result and a summarized turn byte for byte; a bad reference and a call the user
 * keeps out are tool errors; with recall off the requests are what they were, and with it on they
 * differ only by the tool entry and the index; `print --format anthropic|json` shows it as `q`
 * sends it.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeProvider, type FakeReply, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { makeQueryHome, type QueryHome, RECALL_OFF, requestBody } from "../query/e2e.js";

let provider: FakeProvider;
let home: QueryHome;
let logPath: string;

/** What only the tool's output holds. */
const SECRET_LINE = "ERR_DB_7731: connection refused at db.internal:5432 (pool exhausted)";
const LOG = `${Array.from({ length: 80 }, (_, index) => `2026-12-01T10:00:${String(index % 60).padStart(2, "0")}Z worker ${index}: ok`).join("\n")}\n${SECRET_LINE}\n`;

const TOOL_CONFIG = `
[conversation.tools.read_log]
command = "cat {{path}}"
description = "Prints a log file"
run = "unattended"
[conversation.tools.read_log.parameters]
type = "object"
required = ["path"]
[conversation.tools.read_log.parameters.properties.path]
type = "string"
`;

const call = (id: string, name: string, input: Record<string, unknown>): FakeReply => ({
  blocks: [{ type: "tool-call", id, name, arguments: input }],
});

beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(async () => {
  await provider.close();
});
beforeEach(() => {
  home = makeQueryHome(provider);
  logPath = join(home.home.home, "..", "app.log");
  writeFileSync(logPath, LOG);
  provider.requests.length = 0;
});
afterEach(() => {
  home.home.cleanup();
  expect(provider.remaining()).toBe(0);
});

/** Three turns: the log read in turn 1 (its long output), then two short ones. */
async function threeTurns(config = TOOL_CONFIG): Promise<void> {
  home.writeConfig(config);
  provider.enqueue(call("toolu_log", "read_log", { path: logPath }), textReply("The worker pool failed."));
  expect((await home.q(["Why did the deploy fail? Look at the log."])).exitCode).toBe(0);
  provider.enqueue(textReply("Noted."));
  expect((await home.q(["Never restart the database without asking me."])).exitCode).toBe(0);
  provider.enqueue(textReply("Done."));
  expect((await home.q(["Bump the version."])).exitCode).toBe(0);
}

/** The tool results the provider was sent in request `index`, by call id. */
function resultsIn(index: number): Map<string, { content: string; is_error?: boolean }> {
  const results = new Map<string, { content: string; is_error?: boolean }>();
  for (const message of requestBody(provider, index).messages)
    for (const part of message.content)
      if (part.type === "tool_result")
        results.set(String(part.tool_use_id), {
          content: typeof part.content === "string" ? part.content : JSON.stringify(part.content),
          ...(part.is_error === true ? { is_error: true } : {}),
        });
  return results;
}

/** Every text block of every user message of request `index`. */
function userTexts(index: number): string[] {
  return requestBody(provider, index)
    .messages.filter((message) => message.role === "user")
    .flatMap((message) =>
      message.content.filter((part) => part.type === "text").map((part) => String(part.text)),
    );
}

describe("cxc q: recall after -k r+t:..-2", () => {
  it("offers recall on every request, the same list before and after the compaction; finds by query and reads by reference", async () => {
    await threeTurns();
    const before = requestBody(provider, 0).tools;
    provider.enqueue(
      call("toolu_q", "recall", { query: "ERR_DB" }),
      call("toolu_r", "recall", { reference: "turn 1, call 1" }),
      call("toolu_bad", "recall", { reference: "turn 9, call 1" }),
      textReply("The database pool was exhausted (ERR_DB_7731)."),
    );
    const result = await home.q(["-k=r+t:..-2", "What was the exact error code?"]);
    expect(result.exitCode, result.stderr).toBe(0);
    // Every request offered the same tools, recall last (the prompt cache keys on them).
    const lists = provider.requests.map((request) =>
      JSON.stringify((request.body as { tools: unknown }).tools),
    );
    expect(new Set(lists).size).toBe(1);
    expect((before as { name: string }[]).map((tool) => tool.name)).toEqual(["read_log", "recall"]);

    // The first request after the compaction: the log's line is gone, the index says where it went.
    const first = 4;
    expect(JSON.stringify(requestBody(provider, first).messages)).not.toContain(SECRET_LINE);
    const index = userTexts(first).find((text) => text.startsWith("[Recall index"))!;
    expect(index.split("\n").slice(1)).toEqual([
      `turn 1, call 1: read_log ${logPath.length > 48 ? `${logPath.slice(0, 47)}…` : logPath} (${((JSON.stringify({ path: logPath }).length + LOG.length) / 1000).toFixed(1)}k chars)`,
    ]);
    // It opens the user message after the hidden range: turn 2's.
    const second = requestBody(provider, first).messages[4]!;
    expect(second.content.map((part) => String(part.text).slice(0, 16))).toEqual([
      "[Recall index: c",
      "Never restart th",
    ]);

    const query = resultsIn(5).get("toolu_q")!;
    expect(query.is_error).toBeUndefined();
    expect(query.content).toContain(`turn 1, call 1: …`);
    expect(query.content).toContain("ERR_DB_7731: connection refused at db.internal");
    const read = resultsIn(6).get("toolu_r")!;
    expect(read.content).toBe(
      `turn 1, call 1: read_log\narguments:\n${JSON.stringify({ path: logPath })}\nresult:\n${LOG}`,
    );
    const bad = resultsIn(7).get("toolu_bad")!;
    expect(bad).toEqual({
      content:
        "recall: turn 9, call 1 is not in this conversation: it has 4 turns; use a reference from the recall index",
      is_error: true,
    });
    // The calls are stored like any other's, and compactable.
    const calls = home
      .events()
      .filter((event) => event.type === "tool_call_request" && event.name === "recall");
    expect(calls).toHaveLength(3);
    // Recall never asks: nothing was put to the user (no terminal here, and it ran).
    expect(result.stderr).not.toContain("not run");
  });
});

describe("cxc q: recall after -k s:..-2", () => {
  it("reads a summarized turn byte for byte, and never a call the user keeps out", async () => {
    await threeTurns();
    const forget = await home.home.run(["conversation", "forget", "1", "--call", "1"]);
    expect(forget.exitCode, forget.stderr).toBe(0);
    expect(forget.stdout).toContain("Kept turn 1, call 1 out of recall");
    provider.enqueue(
      textReply("The user asked about a failed deploy and set a rule about the database."),
      call("toolu_t", "recall", { reference: "turns 1..2" }),
      call("toolu_q", "recall", { query: "connection refused" }),
      call("toolu_c", "recall", { reference: "turn 1, call 1" }),
      textReply("Here is what I found."),
    );
    const result = await home.q(["-k=s:..-2", "What did I tell you about the database?"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const index = userTexts(5).find((text) => text.startsWith("[Recall index"))!;
    expect(index.split("\n")[1]).toMatch(/^turn 1: summarized \(\d+ chars\)$/);
    const turns = resultsIn(6).get("toolu_t")!.content;
    expect(turns).toContain("user:\nNever restart the database without asking me.\n");
    expect(turns).toContain("user:\nWhy did the deploy fail? Look at the log.\n");
    expect(turns).toContain("result of call 1:\n[not recallable]");
    expect(turns).not.toContain(SECRET_LINE);
    expect(resultsIn(7).get("toolu_q")!.content).toMatch(/^No hidden content matches connection refused\./);
    expect(resultsIn(8).get("toolu_c")).toEqual({
      content:
        "recall: turn 1, call 1 is not recallable: the user keeps it out of recall; do not ask for it again",
      is_error: true,
    });
  });
});

describe("recall on and off", () => {
  it("with recall off a request is what it was; with it on it differs only by the tool entry and the index", async () => {
    const bodies: Record<string, unknown>[][] = [];
    for (const config of [TOOL_CONFIG + RECALL_OFF, TOOL_CONFIG]) {
      provider.requests.length = 0;
      home.home.cleanup();
      home = makeQueryHome(provider);
      logPath = join(home.home.home, "..", "app.log");
      writeFileSync(logPath, LOG);
      await threeTurns(config);
      provider.enqueue(textReply("Fine."));
      expect((await home.q(["-k=t:..-2", "And now?"])).exitCode).toBe(0);
      bodies.push(provider.requests.map((request) => request.body as Record<string, unknown>));
    }
    const [off, on] = bodies as [Record<string, unknown>[], Record<string, unknown>[]];
    expect(off.every((body) => JSON.stringify(body.tools).includes('"recall"') === false)).toBe(true);
    const stripped = on.map((body) => {
      const tools = (body.tools as { name: string; cache_control?: unknown }[]).filter(
        (tool) => tool.name !== "recall",
      );
      const messages = (body.messages as { role: string; content: { type: string; text?: string }[] }[])
        .map((message) => ({
          ...message,
          content: message.content.filter(
            (part) => !(part.type === "text" && part.text?.startsWith("[Recall index")),
          ),
        }))
        .filter((message) => message.content.length > 0);
      // The cache mark rides on the last tool: recall's with it on, read_log's with it off.
      const last = tools.at(-1);
      return {
        ...body,
        tools: tools.map((tool) =>
          tool === last ? { ...tool, cache_control: { type: "ephemeral" } } : tool,
        ),
        messages,
      };
    });
    // The log path differs between the two homes: compare with it replaced.
    const same = (bodies: unknown) => JSON.stringify(bodies).replaceAll(/\/tmp\/[^"\\]+?app\.log/g, "LOG");
    expect(same(stripped)).toBe(same(off));
    expect(JSON.stringify(on.at(-1)!.messages)).toContain("[Recall index");
  });

  it("-T recall is refused, and recall off refuses -t recall", async () => {
    home.writeConfig(TOOL_CONFIG);
    const refused = await home.q(["-T", "recall", "hi"]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("conversation.recall.enabled=false");
    home.writeConfig(TOOL_CONFIG + RECALL_OFF);
    const off = await home.q(["-t", "recall", "hi"]);
    expect(off.exitCode).toBe(2);
    expect(off.stderr).toContain("tool 'recall' is not available: conversation.recall.enabled is false");
  });

  it("a model that takes no tools gets no recall, said once; a server's refusal is remembered", async () => {
    provider.enqueue(
      { kind: "error", status: 400, message: "registry.ollama.ai/library/tiny does not support tools" },
      textReply("Hello."),
    );
    const first = await home.q(["hi"]);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).toContain("anthropic/claude-sonnet-4-6 takes no tools: recall is not offered");
    expect((requestBody(provider, 0).tools as unknown[]).length).toBe(1);
    expect(requestBody(provider, 1).tools).toBeUndefined();
    provider.enqueue(textReply("Again."));
    const second = await home.q(["again"]);
    expect(second.stderr).not.toContain("takes no tools");
    expect(requestBody(provider, 2).tools).toBeUndefined();
    // Configured: no request offers it, and it is said once.
    home.writeConfig('[providers.anthropic.models."claude-opus-4-6"]\ntools = false\n');
    provider.enqueue(textReply("Opus."), textReply("Opus again."));
    const opus = await home.q(["-m", "anthropic/claude-opus-4-6", "and you?"]);
    expect(opus.stderr).toContain("anthropic/claude-opus-4-6 takes no tools");
    const again = await home.q(["and now?"]);
    expect(again.stderr).not.toContain("takes no tools");
    expect(requestBody(provider, 3).tools).toBeUndefined();
    expect(requestBody(provider, 4).tools).toBeUndefined();
  });
});

describe("print shows recall as q sends it", () => {
  it("--format anthropic carries the tool and the index where q puts them; --compacted --format json gives recall_index", async () => {
    await threeTurns();
    provider.enqueue(textReply("Fine."));
    expect((await home.q(["-k=t:..-2", "And now?"])).exitCode).toBe(0);
    const printed = await home.home.run(["conversation", "print", "--format", "anthropic"]);
    expect(printed.exitCode, printed.stderr).toBe(0);
    const body = JSON.parse(printed.stdout) as { messages: unknown[]; tools: { name: string }[] };
    const sent = requestBody(provider, 4);
    // The printed body ends with the turn's answer; what q sent is its prefix (cache marks apart,
    // which the adapter puts on the last blocks of each).
    const uncached = (value: unknown) =>
      JSON.stringify(value).replaceAll(',"cache_control":{"type":"ephemeral"}', "");
    expect(uncached(body.messages.slice(0, sent.messages.length))).toBe(uncached(sent.messages));
    expect(body.tools.map((tool) => tool.name)).toEqual(["recall"]);
    const json = await home.home.run(["conversation", "print", "--compacted", "--format", "json"]);
    const document = JSON.parse(json.stdout) as {
      recall_index: { reference: string; description: string }[];
      turns: unknown[];
    };
    expect(document.recall_index).toEqual([
      { reference: "turn 1, call 1", description: expect.stringMatching(/^read_log /) },
    ]);
    expect(JSON.stringify(document.turns)).not.toContain("Recall index");
    const off = await home.home.run([
      "conversation",
      "print",
      "--compacted",
      "--format",
      "json",
      "-c",
      "conversation.recall.enabled=false",
    ]);
    expect(JSON.parse(off.stdout)).not.toHaveProperty("recall_index");
  });
});
