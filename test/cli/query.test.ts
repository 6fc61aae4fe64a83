/**
 * `cxc q` end to end: the built bin/cxc against the loopback fake provider (the real SDKs speak
 * the wire protocol to it). Each test asserts stdout, the stored events and the request bodies the
 * provider received.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { makeTempHome, type TempHome } from "../helpers/cli.js";
import { errorLines } from "./conversation-helpers.js";
import {
  contextOverflowReply,
  errorReply,
  type FakeProvider,
  startFakeProvider,
  textReply,
} from "../helpers/fake-provider.js";

let provider: FakeProvider;
let home: TempHome;

beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(async () => {
  await provider.close();
});
beforeEach(() => {
  home = makeTempHome();
  provider.requests.length = 0;
});
afterEach(() => {
  home.cleanup();
  expect(provider.remaining()).toBe(0);
});

function providerEnv(): Record<string, string> {
  return {
    ANTHROPIC_API_KEY: "test-key-anthropic",
    ANTHROPIC_BASE_URL: provider.anthropicBaseURL,
    CXC_ASSISTANT__MODEL__ID: "anthropic/claude-sonnet-4-6",
  };
}

function q(args: string[], options: { input?: string; env?: Record<string, string> } = {}) {
  return home.run(["q", ...args], {
    env: { ...providerEnv(), ...options.env },
    ...(options.input === undefined ? {} : { input: options.input }),
  });
}

/** Stored events of the only (or given) conversation, parsed. */
function storedEvents(id?: string): Record<string, unknown>[] {
  const conversation = id ?? activeId();
  const text = readFileSync(join(home.home, "conversations", conversation, "events.jsonl"), "utf8");
  return text
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function activeId(): string {
  const sessions = join(home.home, "sessions");
  const file = readFileSync(join(sessions, "default.json"), "utf8");
  return (JSON.parse(file) as { active: string }).active;
}

function bodyOf(index: number): { messages: { role: string; content: unknown }[]; [key: string]: unknown } {
  return provider.requests[index]!.body as never;
}

describe("cxc q: in a pipe", () => {
  it("writes the model's markdown as it is, with no control sequences and no gauge line", async () => {
    const answer = "# Title\n\n1. **Parse** the `input`\n- *item*\n\n```ts\nconst a = 1;\n```";
    provider.enqueue(textReply(answer));
    const result = await q(["md"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(`${answer}\n`);
    expect(result.stderr).not.toContain("\u001b");
    expect(result.stderr).not.toContain("context");
  });

  it("prints the context gauge on stderr when conversation.context_gauge = show", async () => {
    provider.enqueue(textReply("Fine.", { usage: { inputTokens: 1_200, outputTokens: 34 } }));
    const result = await q(["hi"], { env: { CXC_CONVERSATION__CONTEXT_GAUGE: "show" } });
    expect(result.exitCode).toBe(0);
    expect(result.stderr.split("\n")).toContain("cxc: context 1.2k of 200k tokens (0.6%, reported)");
    const bad = await q(["hi"], { env: { CXC_CONVERSATION__CONTEXT_GAUGE: "sometimes" } });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("conversation.context_gauge must be auto, show or hide");
  });
});

describe("cxc q: a plain turn", () => {
  it("streams the answer to stdout, stores the turn and sends the message", async () => {
    provider.enqueue(textReply("Hello there, friend."));
    const result = await q(["Say hello"]);
    expect(result.stderr).toContain("Started conversation");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("Hello there, friend.\n");
    const events = storedEvents();
    expect(events.map((event) => event.type)).toEqual(["turn_start", "chat_request", "chat_response"]);
    expect(events[1]).toMatchObject({ content: "Say hello" });
    expect(events[2]).toMatchObject({
      message: "Hello there, friend.",
      metadata: { usage: { input_tokens: 10 } },
    });
    expect(provider.requests).toHaveLength(1);
    expect(bodyOf(0)).toMatchObject({ model: "claude-sonnet-4-6", stream: true });
    expect(bodyOf(0).messages).toEqual([
      { role: "user", content: [expect.objectContaining({ type: "text", text: "Say hello" })] },
    ]);
    expect(provider.requests[0]!.headers.authorization).toBe("Bearer test-key-anthropic");
  });
});

describe("cxc q: input and output", () => {
  it("reads the message from stdin with -, and from a pipe without an argument", async () => {
    provider.enqueue(textReply("first"), textReply("second"));
    expect((await q(["-"], { input: "from stdin\n" })).exitCode).toBe(0);
    expect((await q([], { input: "piped message\n" })).exitCode).toBe(0);
    const requests = storedEvents().filter((event) => event.type === "chat_request");
    expect(requests.map((event) => event.content)).toEqual(["from stdin", "piped message"]);
    expect(bodyOf(1).messages.at(-1)).toEqual({
      role: "user",
      content: [expect.objectContaining({ text: "piped message" })],
    });
  });

  it("continues the active conversation, sending the history", async () => {
    provider.enqueue(textReply("one"), textReply("two"));
    await q(["first question"]);
    const result = await q(["second question"]);
    expect(result.stdout).toBe("two\n");
    expect(bodyOf(1).messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(storedEvents().filter((event) => event.type === "turn_start")).toHaveLength(2);
  });

  it("--new starts another conversation; --id goes back to one by prefix", async () => {
    provider.enqueue(textReply("one"), textReply("two"), textReply("three"));
    await q(["first"]);
    const first = activeId();
    const started = await q(["--new", "second"]);
    expect(started.stderr).toContain("Started conversation");
    const second = activeId();
    expect(second).not.toBe(first);
    await q(["--id", first.slice(0, 10), "third"]);
    expect(activeId()).toBe(first);
    expect(storedEvents(first).filter((event) => event.type === "chat_request")).toHaveLength(2);
    expect(storedEvents(second).filter((event) => event.type === "chat_request")).toHaveLength(1);
    const conflict = await q(["--new", "--id", first, "x"]);
    expect(conflict.exitCode).toBe(2);
    expect(conflict.stderr).toContain("--new and --id cannot be used together");
  });

  it("--format json emits the turn's stored events as NDJSON", async () => {
    provider.enqueue(textReply("json answer"));
    const result = await home.run(["--format", "json", "q", "hi"], { env: providerEnv() });
    expect(result.exitCode).toBe(0);
    const lines = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => line.type)).toEqual(["turn_start", "chat_request", "chat_response"]);
    expect(lines[2]).toMatchObject({ message: "json answer" });
    expect(lines).toEqual(storedEvents());
  });

  it("sanitizes terminal control sequences in the answer but stores it verbatim", async () => {
    provider.enqueue(textReply("safe \u001b]52;c;ZXZpbA==\u0007text \u001b[2Jhere"));
    const result = await q(["hi"]);
    expect(result.stdout).toBe("safe text here\n");
    expect(storedEvents()[2]!.message).toContain("\u001b]52;");
  });

  it("--no-stream prints the same answer once it is complete", async () => {
    provider.enqueue(textReply("all at once"));
    const result = await q(["--no-stream", "hi"]);
    expect(result.stdout).toBe("all at once\n");
  });

  it("an empty message sends nothing", async () => {
    const result = await q([], { input: "\n" });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain("empty");
    expect(provider.requests).toHaveLength(0);
  });
});

describe("cxc q: models", () => {
  it("-m picks the model for the turn and it sticks as a recorded config change", async () => {
    provider.enqueue(textReply("a"), textReply("b"), textReply("c"), textReply("d"), textReply("e"));
    const first = await q(["first"]);
    const second = await q(["-m", "anthropic/claude-opus-4-6", "second"]);
    const third = await q(["third"]);
    const same = await q(["-m", "anthropic/claude-opus-4-6", "fourth"]);
    const back = await q(["-m", "anthropic/claude-sonnet-4-6", "fifth"]);
    expect(provider.requests.map((request) => (request.body as { model: string }).model)).toEqual([
      "claude-sonnet-4-6",
      "claude-opus-4-6",
      "claude-opus-4-6",
      "claude-opus-4-6",
      "claude-sonnet-4-6",
    ]);
    const deltas = storedEvents().filter((event) => event.type === "config_delta");
    expect(deltas).toEqual([
      expect.objectContaining({ delta: { assistant: { model: { id: "anthropic/claude-opus-4-6" } } } }),
      expect.objectContaining({ delta: { assistant: { model: { id: "anthropic/claude-sonnet-4-6" } } } }),
    ]);
    // Said once, when -m changes the model of a conversation that has turns; not when it stays.
    const notice = "This conversation uses anthropic/claude-opus-4-6 from now on";
    expect(first.stderr).not.toContain("from now on");
    expect(second.stderr).toContain(
      `cxc: ${notice}: its later turns, its compact tool and its reviews; -m again changes it.\n`,
    );
    expect(third.stderr).not.toContain("from now on");
    expect(same.stderr).not.toContain("from now on");
    expect(back.stderr).toContain(
      "cxc: This conversation uses anthropic/claude-sonnet-4-6 from now on (was anthropic/claude-opus-4-6): ",
    );
    // And in --help.
    const help = await home.run(["q", "--help"]);
    expect(help.stdout.replace(/\s+/g, " ")).toContain(
      "it sticks: the conversation's later turns, its compact tool and its reviews use it too",
    );
  });

  it("says how to configure a model when none is", async () => {
    const result = await home.run(["q", "hi"], {
      env: {
        OPENAI_BASE_URL: "http://127.0.0.1:9",
        CXC_PROVIDERS__OLLAMA__BASE_URL: "http://127.0.0.1:9/v1",
      },
    });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("No model is configured");
    expect(result.stderr).toContain("ANTHROPIC_API_KEY");
  });
});

describe("cxc q: provider faults", () => {
  it("retries a 429 and then succeeds", async () => {
    provider.enqueue(errorReply(429, { retryAfterSeconds: 0 }), textReply("after the retry"));
    const result = await q(["hi"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("after the retry\n");
    expect(result.stderr).toContain(
      "cxc: warning: the provider is rate limiting requests (HTTP 429); retrying in 0 s (attempt 2 of 6)\n",
    );
    expect(provider.requests).toHaveLength(2);
    expect(storedEvents().map((event) => event.type)).toEqual([
      "turn_start",
      "chat_request",
      "chat_response",
    ]);
  });

  it("a server that refuses the connection fails at once, naming the URL and the variable it came from", async () => {
    const closed = await startFakeProvider();
    const url = closed.anthropicBaseURL;
    await closed.close();
    const result = await q(["hi"], { env: { ANTHROPIC_BASE_URL: url } });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).not.toContain("retrying");
    expect(errorLines(result.stderr)).toEqual({
      error: `anthropic/claude-sonnet-4-6: Cannot reach ${url} (from ANTHROPIC_BASE_URL): the connection was refused`,
      hint: `start the server at ${url}, or set ANTHROPIC_BASE_URL to one that runs`,
    });
    const json = await q(["--format", "json", "hi"], { env: { ANTHROPIC_BASE_URL: url } });
    expect(JSON.parse(json.stdout.trim().split("\n").at(-1)!)).toMatchObject({
      error: { code: "provider-network" },
    });
  });

  it("a cut stream keeps the partial answer marked interrupted; the next turn is clean", async () => {
    // message_start, ping, block start, then a few text deltas before the connection drops.
    provider.enqueue(textReply("one two three four five six seven", { cutAfterEvents: 6 }));
    const cut = await q(["tell me"]);
    expect(cut.exitCode).toBe(1);
    expect(cut.stderr).toContain("partial answer was saved");
    const events = storedEvents();
    expect(events.map((event) => event.type)).toEqual(["turn_start", "chat_request", "chat_response"]);
    expect(events[2]).toMatchObject({ message: "one two three ", interrupted: true });
    provider.enqueue(textReply("clean"));
    const next = await q(["again"]);
    expect(next.exitCode).toBe(0);
    expect(bodyOf(1).messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
  });

  it("SIGTERM while streaming keeps the partial answer like Ctrl-C", async () => {
    const words = Array.from({ length: 40 }, (_, index) => `w${index}`).join(" ");
    // Anthropic: message_start, ping, block start, then one delta per word; hold after w4.
    provider.enqueue(textReply(words, { holdAfterEvents: 8 }));
    const { execa } = await import("execa");
    const { CXC_BIN } = await import("../helpers/cli.js");
    const child = execa(process.execPath, [CXC_BIN, "q", "long"], {
      env: { ...home.env, ...providerEnv() },
      extendEnv: false,
      cwd: home.cwd.replace(/\/work$/, ""),
      reject: false,
    });
    // A pipe gets the text as it streams: wait until the held part has been printed.
    let printed = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      printed += chunk.toString("utf8");
    });
    const deadline = Date.now() + 20_000;
    while (!printed.includes("w4") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(printed).toContain("w4");
    child.kill("SIGTERM");
    const result = await child;
    expect(result.exitCode).toBe(130);
    const partial = storedEvents().at(-1)!;
    expect(partial).toMatchObject({ type: "chat_response", interrupted: true });
    expect(String(partial.message)).toMatch(/^w0 w1 w2 w3 w4/);
    expect(String(partial.message)).not.toContain("w5");
  });

  it("a context overflow says exactly how to compact", async () => {
    provider.enqueue(contextOverflowReply());
    const result = await q(["hi"]);
    expect(result.exitCode).toBe(1);
    const id = activeId();
    expect(result.stderr).toContain(`cxc conversation compact ${id}`);
    expect(result.stderr).toContain("-k");
    // The user's message was stored before the request, so it is not lost.
    expect(storedEvents().map((event) => event.type)).toEqual(["turn_start", "chat_request"]);
  });

  it("maps an auth failure to provider-auth with a hint naming the key", async () => {
    provider.enqueue(errorReply(401));
    const result = await q(["hi"]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("ANTHROPIC_API_KEY");
    expect(result.stderr).not.toContain("test-key-anthropic");
  });
});

describe("cxc q: reasoning, other providers, locks", () => {
  const thinking = {
    blocks: [
      { type: "thinking" as const, text: "Let me think about it.", signature: "sig-abc" },
      { type: "text" as const, text: "The answer." },
    ],
  };

  it("hides reasoning in pipes, shows it on stderr with --reasoning, and sends it back signed", async () => {
    provider.enqueue(thinking, thinking, textReply("third"));
    const hidden = await q(["first"]);
    expect(hidden.stdout).toBe("The answer.\n");
    expect(hidden.stderr).not.toContain("Let me think");
    const shown = await q(["--reasoning", "second"]);
    expect(shown.stdout).toBe("The answer.\n");
    // A stderr that is not a terminal: every line cxc writes starts `cxc: `, reasoning's too.
    expect(shown.stderr).toContain("cxc: reasoning: Let me think about it.\n");
    for (const line of shown.stderr.trimEnd().split("\n")) expect(line).toMatch(/^(cxc|hint): /);
    const events = storedEvents();
    expect(events[2]).toMatchObject({
      reasoning: "Let me think about it.",
      metadata: { anthropic_thinking_signature: "sig-abc" },
    });
    await q(["third"]);
    const assistant = bodyOf(2).messages[1]!.content as { type: string; signature?: string }[];
    expect(assistant[0]).toMatchObject({ type: "thinking", signature: "sig-abc" });
  });

  it("talks to OpenAI through the Responses API, and through Chat Completions when configured", async () => {
    provider.enqueue(textReply("from openai"), textReply("from chat"));
    const env = { OPENAI_API_KEY: "test-key-openai", OPENAI_BASE_URL: provider.openaiBaseURL };
    const result = await home.run(["q", "-m", "openai/gpt-5", "hi"], { env });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("from openai\n");
    expect(provider.requests[0]!.path).toBe("/v1/responses");
    expect(provider.requests[0]!.body).toMatchObject({ model: "gpt-5", stream: true, store: false });
    const chat = await home.run(
      ["-c", "providers.openai.api=chat", "q", "-m", "openai/gpt-5", "--new", "hi"],
      {
        env,
      },
    );
    expect(chat.exitCode, chat.stderr).toBe(0);
    expect(chat.stdout).toBe("from chat\n");
    expect(provider.requests[1]!.path).toBe("/v1/chat/completions");
  });

  it("waits a bounded time for a conversation another process holds, then names the holder", async () => {
    provider.enqueue(textReply("first"));
    await q(["first"]);
    const id = activeId();
    const { mkdirSync, writeFileSync } = await import("node:fs");
    const { hostname } = await import("node:os");
    mkdirSync(join(home.home, "locks"), { recursive: true });
    // This test process is alive, so the lock is not stale.
    writeFileSync(
      join(home.home, "locks", `${id}.lock`),
      JSON.stringify({
        pid: process.pid,
        host: hostname(),
        command: "cxc q",
        acquired_at: "2026-01-01T00:00:00Z",
      }),
    );
    const result = await q(["second"], { env: { CXC_LOCK_TIMEOUT_MS: "300" } });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`conversation ${id} is locked by cxc q (pid ${process.pid}`);
    expect(provider.requests).toHaveLength(1);
    expect(storedEvents().filter((event) => event.type === "chat_request")).toHaveLength(1);
  });
});
