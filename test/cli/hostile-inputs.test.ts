// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${…} here is shell syntax in expected messages
/**
 * The corpus of hostile inputs (fixtures/hostile/, plus cases built here that git cannot hold:
 * escape sequences in file names, symlinks, 20,000 levels of nesting): imports, configuration,
 * provider error bodies, event streams, tool arguments, store files written by hand, and the
 * command line. Each case is one command and its expected outcome: the exit code and the exact
 * error line (and hint), with stderr holding nothing else — no stack, no internal error, no
 * control byte — and nothing written where nothing should be. docs/security.md lists what each
 * section holds cxc to.
 */
import { type Dirent, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type CxcResult, makeTempHome, PROJECT_ROOT, type TempHome } from "../helpers/cli.js";
import {
  type FakeErrorReply,
  type FakeProvider,
  type FakeReply,
  errorReply,
  startFakeProvider,
  textReply,
} from "../helpers/fake-provider.js";
import { makeQueryHome, TEST_MODEL, wordCountTool } from "../query/e2e.js";

/** Any byte a terminal could act on: C0 controls but tab and newline, DEL, C1 controls. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const HOSTILE = "fixtures/hostile";

/** stderr is exactly one error line (and a hint line when one is expected), nothing else. */
function expectOneLineError(
  result: CxcResult,
  expected: { exitCode: number; error: string | RegExp; hint?: string | RegExp },
): void {
  expect(result.stderr).not.toMatch(CONTROL);
  const lines = result.stderr.split("\n");
  expect(lines.pop()).toBe("");
  const [error, hint, ...rest] = lines;
  expect(rest).toEqual([]);
  if (typeof expected.error === "string") expect(error).toBe(`cxc: error: ${expected.error}`);
  else expect(error).toMatch(expected.error);
  if (expected.hint === undefined) expect(hint).toBeUndefined();
  else if (typeof expected.hint === "string") expect(hint).toBe(`hint: ${expected.hint}`);
  else expect(hint).toMatch(expected.hint);
  expect(result.exitCode).toBe(expected.exitCode);
}

const homes: TempHome[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) home.cleanup();
});

function freshHome(): TempHome {
  const home = makeTempHome();
  homes.push(home);
  mkdirSync(home.cwd, { recursive: true });
  return home;
}

/** Nothing was imported: the store holds no conversation. */
function expectEmptyStore(home: TempHome): void {
  for (const place of ["conversations", "archive"]) {
    const directory = join(home.home, place);
    let entries: string[] = [];
    try {
      entries = readdirSync(directory);
    } catch {
      // Absent: empty.
    }
    expect(entries, place).toEqual([]);
  }
}

interface ImportCase {
  readonly name: string;
  /** The path to import, relative to the project root; `build` may make it in `dir` instead. */
  readonly path: string;
  readonly build?: (dir: string) => void;
  readonly error: string | RegExp;
  readonly hint?: string;
}

const jpEntry = '{ "type": "turn_start", "timestamp": "2025-12-04 09:28:23.2" }';

const IMPORTS: readonly ImportCase[] = [
  {
    name: "a jp directory name whose time is out of range",
    path: `${HOSTILE}/import/jp-time-out-of-range`,
    error: `${HOSTILE}/import/jp-time-out-of-range/99999999999999999999999-x/events.json: the directory name '99999999999999999999999-x' gives a creation time out of range`,
  },
  {
    name: "a jp timestamp that is no date",
    path: `${HOSTILE}/import/jp-bad-timestamp`,
    error: `${HOSTILE}/import/jp-bad-timestamp/17648402467-when/events.json: entry 0 (turn_start): \`timestamp\` is not a date and time like 2026-05-29 19:42:36.46732`,
  },
  {
    name: "a compaction whose range runs backwards",
    path: `${HOSTILE}/import/jp-compaction-backwards`,
    error: `${HOSTILE}/import/jp-compaction-backwards/17648402467-backwards/events.json: entry 2 (compaction): from_turn 5 is after to_turn 2 (a range runs forwards)`,
  },
  {
    name: "a workspace whose .jp/conversations is a file",
    path: `${HOSTILE}/import/jp-conversations-file`,
    error: `${HOSTILE}/import/jp-conversations-file/.jp/conversations is not a directory`,
    hint: "a jp workspace keeps its conversations in the directory .jp/conversations",
  },
  {
    name: "invalid JSON holding an escape sequence and a secret",
    path: `${HOSTILE}/import/jp-invalid-json`,
    error: `${HOSTILE}/import/jp-invalid-json/17648402467-broken/events.json:3:3: not valid JSON (unexpected character)`,
  },
  {
    name: "an OpenAI text part whose text is a number",
    path: `${HOSTILE}/import/openai-text-number.json`,
    error: `${HOSTILE}/import/openai-text-number.json: message 1: content part 1 "text" must be a string`,
  },
  {
    name: "an Anthropic block without a type",
    path: `${HOSTILE}/import/anthropic-block-without-type.json`,
    error: `${HOSTILE}/import/anthropic-block-without-type.json: message 1, block 1 has no "type"`,
  },
  {
    name: "a cxc export with an event id used twice",
    path: `${HOSTILE}/import/cxc-duplicate-ids.json`,
    error: `${HOSTILE}/import/cxc-duplicate-ids.json: event 1: the id 01JDUP00000000000000000001 is used by an earlier event too`,
  },
  {
    name: "metadata nested 20,000 levels deep",
    path: "deep",
    build: (dir) => {
      const conversation = join(dir, "deep", "17648402467-deep");
      mkdirSync(conversation, { recursive: true });
      writeFileSync(join(conversation, "events.json"), `[${jpEntry}]`);
      writeFileSync(
        join(conversation, "metadata.json"),
        `{"labels": ${'{"a":'.repeat(20_000)}1${"}".repeat(20_000)}}`,
      );
    },
    error:
      /^cxc: error: .*\/deep\/17648402467-deep\/metadata\.json: nested more than 256 levels deep, which no conversation needs$/,
  },
  {
    name: "a cxc log with an event nested 20,000 levels deep",
    path: "deep.jsonl",
    build: (dir) => {
      const header =
        '{"cxc":"conversation-log","version":1,"id":"01jdeep000000","created_at":"2026-01-01T00:00:00Z"}';
      const event = `{"id":"01JDEEP0000000000000000001","ts":"2026-01-01T00:00:00Z","type":"tool_call_request","call_id":"c","name":"n","arguments":{"a":${"[".repeat(20_000)}${"]".repeat(20_000)}}}`;
      writeFileSync(join(dir, "deep.jsonl"), `${header}\n${event}\n`);
    },
    error: /^cxc: error: .*\/deep\.jsonl: nested more than 256 levels deep, which no conversation needs$/,
  },
  {
    name: "an events.json that is a symlink to someone's secrets",
    path: "linked",
    build: (dir) => {
      writeFileSync(join(dir, "secrets.txt"), "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG\n");
      const conversation = join(dir, "linked", "17648402467-linked");
      mkdirSync(conversation, { recursive: true });
      symlinkSync(join(dir, "secrets.txt"), join(conversation, "events.json"));
    },
    error:
      /^cxc: error: .*\/linked\/17648402467-linked\/events\.json:1:1: not valid JSON \(unexpected character\)$/,
  },
  {
    name: "a jp directory name holding escape sequences",
    path: "escapes",
    build: (dir) => {
      const conversation = join(dir, "escapes", "17648402467-\u001b]0;OWNED\u0007\u001b[2J\u009b31m");
      mkdirSync(conversation, { recursive: true });
      writeFileSync(join(conversation, "events.json"), "[1,");
    },
    error: /^cxc: error: .*\/escapes\/17648402467-\/events\.json:1:4: not valid JSON \(unexpected end\)$/,
  },
];

describe("hostile imports: one clear error each, nothing written", () => {
  for (const entry of IMPORTS) {
    it(entry.name, async () => {
      const home = freshHome();
      entry.build?.(home.cwd);
      const path = entry.build === undefined ? entry.path : join(home.cwd, entry.path);
      const result = await home.run(["conversation", "import", path], { cwd: PROJECT_ROOT });
      expectOneLineError(result, {
        exitCode: 1,
        error: entry.error,
        ...(entry.hint === undefined ? {} : { hint: entry.hint }),
      });
      expect(result.stderr).not.toMatch(/secret|wJalr/i);
      expect(result.stdout).toBe("");
      expectEmptyStore(home);
    });
  }
});

describe("hostile configuration", () => {
  it("a tool whose placeholder sits inside quotes is refused before anything runs", async () => {
    const provider = await startFakeProvider();
    try {
      const home = makeQueryHome(provider);
      homes.push(home.home);
      home.writeConfig(`[conversation.tools.echo]\ncommand = "echo '{{text}}'"\nrun = "unattended"\n`);
      const result = await home.q(["hi"]);
      expectOneLineError(result, {
        exitCode: 2,
        error: "conversation.tools.echo.command: the placeholder {{text}} is inside single quotes",
        hint: 'write {{text}} bare, outside quotes: cxc passes it as exactly one word (or use "${CXC_ARG_text}")',
      });
      expect(provider.requests).toHaveLength(0);
      expectEmptyStore(home.home);
    } finally {
      await provider.close();
    }
  });

  it("a tool that lists a provider key in env is refused", async () => {
    const home = freshHome();
    const directory = join(home.env.XDG_CONFIG_HOME!, "cxc");
    mkdirSync(directory, { recursive: true });
    writeFileSync(
      join(directory, "config.toml"),
      '[conversation.tools.leak]\ncommand = "env"\nenv = ["OPENAI_API_KEY"]\n',
    );
    const result = await home.run(["q", "hi"], {
      // A closed loopback port: should the check ever be lost, no request leaves this machine.
      env: {
        ANTHROPIC_API_KEY: "k",
        ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
        CXC_ASSISTANT__MODEL__ID: TEST_MODEL,
      },
    });
    expectOneLineError(result, {
      exitCode: 2,
      error:
        "conversation.tools.leak.env names OPENAI_API_KEY, a provider key; cxc never passes provider keys to tools",
      hint: "remove OPENAI_API_KEY from conversation.tools.leak.env (a tool's output goes into the conversation and to the model)",
    });
  });

  it("-c with a credential key never echoes the value", async () => {
    const home = freshHome();
    const result = await home.run([
      "-c",
      "providers.anthropic.api_key=sk-ant-secret-123",
      "conversation",
      "ls",
    ]);
    expectOneLineError(result, {
      exitCode: 2,
      error:
        "-c providers.anthropic.api_key=…: 'providers.anthropic.api_key' looks like a credential; cxc never reads keys from configuration (use ANTHROPIC_API_KEY / OPENAI_API_KEY)",
      hint: /^hint: use -c KEY=VALUE/,
    });
    expect(result.stderr + result.stdout).not.toContain("sk-ant-secret");
  });

  it("a TOML file with escape sequences names the line and column only", async () => {
    const home = freshHome();
    const directory = join(home.env.XDG_CONFIG_HOME!, "cxc");
    mkdirSync(directory, { recursive: true });
    writeFileSync(join(directory, "config.toml"), 'title = "\u001b]0;OWNED\u0007 secret\n');
    const result = await home.run(["config", "show"]);
    expectOneLineError(result, {
      exitCode: 2,
      error: `${join(directory, "config.toml")}:1:10: invalid TOML: control characters are not allowed in strings`,
      hint: "fix that line; configuration files are TOML (https://toml.io)",
    });
  });
});

interface ProviderCase {
  readonly name: string;
  readonly reply: FakeErrorReply;
  readonly error: string;
  readonly hint: string | RegExp;
}

const OSC_TITLE = "\u001b]0;OWNED\u0007";
const OSC_CLIPBOARD = "\u001b]52;c;cm0gLXJmIH4K\u0007";

const PROVIDER_ERRORS: readonly ProviderCase[] = [
  {
    name: "a 401 body that retitles the terminal",
    reply: errorReply(401, { message: `nope ${OSC_TITLE}` }),
    error: `${TEST_MODEL}: The provider rejected the API key: 401 nope`,
    hint: "check ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL if set)",
  },
  {
    name: "a 400 body that writes the clipboard, with C1 controls and line breaks",
    reply: errorReply(400, { message: `bad ${OSC_CLIPBOARD}request\n\u009b2J\u009d0;x\u0007 end` }),
    error: `${TEST_MODEL}: The provider rejected the request: 400 bad request end`,
    hint: "run with CXC_DEBUG=1 for details",
  },
  {
    name: "a 413 request_too_large",
    reply: errorReply(413, { message: "Request exceeds the maximum size" }),
    error: `${TEST_MODEL}: The conversation is too large to send: 413 Request exceeds the maximum size`,
    hint: /^hint: compact it with `cxc conversation compact [0-9a-z]+` and run `cxc q` again, or compact and ask in one step: `cxc q --id [0-9a-z]+ -k "<message>"`$/,
  },
  {
    name: "an SSE error event with escape sequences in the middle of a stream",
    reply: {
      kind: "error",
      status: 400,
      midStream: true,
      errorType: "invalid_request_error",
      message: `broken ${OSC_TITLE}\u001b[31mstream`,
    },
    error: `${TEST_MODEL}: The provider rejected the request: broken stream`,
    hint: "run with CXC_DEBUG=1 for details",
  },
];

describe("hostile provider answers", () => {
  let provider: FakeProvider;
  beforeAll(async () => {
    provider = await startFakeProvider();
  });
  afterAll(async () => {
    await provider.close();
  });

  for (const entry of PROVIDER_ERRORS) {
    it(entry.name, async () => {
      provider.reset();
      const home = makeQueryHome(provider);
      homes.push(home.home);
      provider.enqueue(entry.reply);
      const result = await home.q(["hello"]);
      // `cxc q` says on stderr which conversation it started before the request fails.
      const lines = result.stderr.split("\n");
      expect(lines[0]).toMatch(/^cxc: Started conversation [0-9a-z]+\.$/);
      expectOneLineError(
        { ...result, stderr: lines.slice(1).join("\n") },
        {
          exitCode: 1,
          error: entry.error,
          hint: entry.hint,
        },
      );
      expect(result.stderr).not.toMatch(CONTROL);
      expect(provider.remaining()).toBe(0);
    });
  }

  it("tool arguments nested beyond any need are answered as invalid, not stored as a bomb", async () => {
    provider.reset();
    const home = makeQueryHome(provider);
    homes.push(home.home);
    home.writeConfig(wordCountTool("unattended"));
    let deep: unknown = "x";
    for (let level = 0; level < 600; level++) deep = [deep];
    provider.enqueue(
      { blocks: [{ type: "tool-call", id: "call_1", name: "word_count", arguments: { text: deep } }] },
      textReply("ok"),
    );
    const result = await home.q(["count"]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).not.toMatch(CONTROL);
    const events = home.events();
    const call = events.find((event) => event.type === "tool_call_request");
    expect(call).toMatchObject({ arguments: {}, metadata: { invalid_arguments: expect.any(String) } });
    expect(events.find((event) => event.type === "tool_call_response")).toMatchObject({ is_error: true });
  });

  it("model text with escape sequences reaches stdout sanitized, and the log keeps it as sent", async () => {
    provider.reset();
    const home = makeQueryHome(provider);
    homes.push(home.home);
    provider.enqueue(textReply(`safe ${OSC_TITLE}text\u009b2J done`));
    const result = await home.q(["hello"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("safe text done\n");
    const answer = home.events().find((event) => event.type === "chat_response");
    expect(answer).toMatchObject({ message: `safe ${OSC_TITLE}text\u009b2J done` });
  });

  it("JSON output escapes C1 controls (raw C1 is a terminal sequence)", async () => {
    provider.reset();
    const home = makeQueryHome(provider);
    homes.push(home.home);
    const text = "csi\u009b2J osc\u009d0;x\u0007 del\u007f";
    provider.enqueue(textReply(text));
    const streamed = await home.q(["--format", "json", "hello"]);
    expect(streamed.exitCode).toBe(0);
    expect(streamed.stdout).not.toMatch(/[\u007f-\u009f]/);
    expect(streamed.stdout).toContain("csi\\u009b2J osc\\u009d0;x\\u0007 del\\u007f");
    const stored = streamed.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(stored.find((event) => event.type === "chat_response")).toMatchObject({ message: text });
    const id = home.activeId();
    for (const args of [
      ["--format", "json", "conversation", "print", id],
      ["--format", "anthropic", "conversation", "print", id],
      ["conversation", "export", id],
    ]) {
      const printed = await home.home.run(args);
      expect(printed.exitCode, args.join(" ")).toBe(0);
      expect(printed.stdout, args.join(" ")).not.toMatch(/[\u007f-\u009f]/);
      expect(printed.stdout, args.join(" ")).toContain("\\u009b");
    }
  });
});

/** Anthropic SSE frames, written by hand (the fake provider sends them exactly as given). */
const sse = (event: string, data: Record<string, unknown>): string =>
  `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;
const MESSAGE_START = sse("message_start", {
  message: {
    id: "msg_hostile",
    type: "message",
    role: "assistant",
    model: "claude",
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  },
});
const TEXT_START = sse("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
const textDelta = (text: string): string =>
  sse("content_block_delta", { index: 0, delta: { type: "text_delta", text } });
const MESSAGE_END =
  sse("content_block_stop", { index: 0 }) +
  sse("message_delta", {
    delta: { stop_reason: "end_turn", stop_sequence: null },
    usage: { output_tokens: 3 },
  }) +
  sse("message_stop", {});

describe("hostile streams", () => {
  let provider: FakeProvider;
  beforeAll(async () => {
    provider = await startFakeProvider();
  });
  afterAll(async () => {
    await provider.close();
  });

  /** Runs `cxc q` against one scripted reply; stderr after the "Started conversation" line. */
  async function ask(
    reply: FakeReply,
    args: readonly string[] = ["hello"],
    env: Record<string, string> = {},
  ) {
    provider.reset();
    const home = makeQueryHome(provider);
    homes.push(home.home);
    provider.enqueue(reply);
    const result = await home.q(args, { env });
    const lines = result.stderr.split("\n");
    expect(lines[0]).toMatch(/^cxc: Started conversation [0-9a-z]+\.$/);
    expect(provider.remaining()).toBe(0);
    return { home, result, rest: { ...result, stderr: lines.slice(1).join("\n") } };
  }

  it("an event whose data is not JSON is one error that quotes nothing of the stream", async () => {
    const { home, rest } = await ask({
      kind: "raw",
      body: `${MESSAGE_START}${TEXT_START}event: content_block_delta\ndata: {secret \u001b]0;OWNED\u0007\n\n`,
    });
    expectOneLineError(rest, {
      exitCode: 1,
      error: `${TEST_MODEL}: The provider sent a malformed event stream (an event whose data is not JSON).`,
      hint: "run with CXC_DEBUG=1 for details",
    });
    expect(rest.stderr).not.toContain("secret");
    expect(home.events().map((event) => event.type)).toEqual(["turn_start", "chat_request"]);
  });

  it("the same through Chat Completions", async () => {
    const { rest } = await ask(
      { kind: "raw", body: 'data: {"id":"x","choices":[{"delta":{"content":"a"}}]}\n\ndata: {secret\n\n' },
      ["-m", "openai/gpt-test", "hello"],
      {
        OPENAI_API_KEY: "test-key",
        OPENAI_BASE_URL: provider.openaiBaseURL,
        CXC_PROVIDERS__OPENAI__API: "chat",
      },
    );
    expectOneLineError(rest, {
      exitCode: 1,
      error:
        "openai/gpt-test: The provider sent a malformed event stream (an event whose data is not JSON). The partial answer was saved.",
      hint: "run with CXC_DEBUG=1 for details",
    });
    expect(rest.stdout).toBe("a\n");
    expect(rest.stderr).not.toContain("secret");
  });

  it("the same through the Responses API", async () => {
    const delta = (text: string) =>
      `event: response.output_text.delta\ndata: ${JSON.stringify({ type: "response.output_text.delta", item_id: "m", output_index: 0, content_index: 0, delta: text })}\n\n`;
    const { rest } = await ask(
      {
        kind: "raw",
        body: `${delta("a")}event: response.output_text.delta\ndata: {secret \u001b]0;OWNED\u0007\n\n`,
      },
      ["-m", "openai/gpt-test", "hello"],
      { OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: provider.openaiBaseURL },
    );
    expectOneLineError(rest, {
      exitCode: 1,
      error:
        "openai/gpt-test: The provider sent a malformed event stream (an event whose data is not JSON). The partial answer was saved.",
      hint: "run with CXC_DEBUG=1 for details",
    });
    expect(rest.stdout).toBe("a\n");
    expect(rest.stderr).not.toContain("secret");
  });

  it("a stream that ends without message_stop keeps the partial answer, marked interrupted", async () => {
    const { home, result, rest } = await ask({
      kind: "raw",
      body: MESSAGE_START + TEXT_START + textDelta("partial answer"),
    });
    expectOneLineError(rest, {
      exitCode: 1,
      error: `${TEST_MODEL}: The response stream ended before the message finished. The partial answer was saved.`,
      hint: "check the network (and the provider's base URL), then run `cxc q` again",
    });
    expect(result.stdout).toBe("partial answer\n");
    expect(home.events().at(-1)).toMatchObject({
      type: "chat_response",
      message: "partial answer",
      interrupted: true,
    });
  });

  it("one huge event (8 MB without a space) is stored and printed whole", async () => {
    const text = "y".repeat(8_000_000);
    const { home, result, rest } = await ask({
      kind: "raw",
      body: MESSAGE_START + TEXT_START + textDelta(text) + MESSAGE_END,
    });
    expect(rest.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(`${text}\n`);
    expect(home.events().at(-1)).toMatchObject({ type: "chat_response", message: text });
  }, 60_000);

  it("escape sequences split across text and reasoning deltas never reach the terminal", async () => {
    const thinkingStart = sse("content_block_start", {
      index: 0,
      content_block: { type: "thinking", thinking: "", signature: "" },
    });
    const thinking = (text: string) =>
      sse("content_block_delta", { index: 0, delta: { type: "thinking_delta", thinking: text } });
    const textAt1 = (text: string) =>
      sse("content_block_delta", { index: 1, delta: { type: "text_delta", text } });
    const body =
      MESSAGE_START +
      thinkingStart +
      thinking("plan\u001b") +
      thinking("]52;c;cm0gLXJmIH4K\u0007") +
      sse("content_block_delta", { index: 0, delta: { type: "signature_delta", signature: "sig" } }) +
      sse("content_block_stop", { index: 0 }) +
      sse("content_block_start", { index: 1, content_block: { type: "text", text: "" } }) +
      textAt1("a\u001b") +
      textAt1("]0;OWNED\u0007b\u001b[") +
      textAt1("31mc\u009b") +
      textAt1("2Jd") +
      sse("content_block_stop", { index: 1 }) +
      sse("message_delta", {
        delta: { stop_reason: "end_turn", stop_sequence: null },
        usage: { output_tokens: 3 },
      }) +
      sse("message_stop", {});
    const { home, result } = await ask({ kind: "raw", body }, ["--reasoning", "hello"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).not.toMatch(CONTROL);
    expect(result.stderr).not.toMatch(CONTROL);
    expect(result.stdout).toBe("a]0;OWNEDb[31mc2Jd\n");
    expect(result.stderr).toContain("plan]52;c;cm0gLXJmIH4K");
    const events = home.events();
    expect(events.find((event) => typeof event.message === "string")).toMatchObject({
      message: "a\u001b]0;OWNED\u0007b\u001b[31mc\u009b2Jd",
    });
  });
});

describe("hostile tool arguments: the model gets one clear tool error, nothing runs", () => {
  let provider: FakeProvider;
  beforeAll(async () => {
    provider = await startFakeProvider();
  });
  afterAll(async () => {
    await provider.close();
  });

  let deep = "";
  for (let level = 0; level < 600; level++) deep = `[${deep}]`;
  const CASES = [
    {
      name: "arguments that are not JSON",
      text: '{"text": "unterminated',
      answer: 'The arguments were not a JSON object: {"text": "unterminated',
    },
    {
      name: "arguments that are an array",
      text: "[1,2]",
      answer: "The arguments were not a JSON object: [1,2]",
    },
    {
      name: "arguments nested 600 levels deep",
      text: `{"text": ${deep}}`,
      answer:
        "The arguments nest more than 256 levels deep, which no tool accepts; call it again with flatter arguments.",
    },
  ];

  for (const entry of CASES) {
    it(entry.name, async () => {
      provider.reset();
      const home = makeQueryHome(provider);
      homes.push(home.home);
      home.writeConfig(wordCountTool("unattended"));
      provider.enqueue(
        {
          blocks: [
            { type: "tool-call", id: "call_1", name: "word_count", arguments: {}, argumentsText: entry.text },
          ],
        },
        textReply("ok"),
      );
      const result = await home.q(["count"]);
      expect(result.exitCode, result.stderr).toBe(0);
      const events = home.events();
      expect(events.find((event) => event.type === "tool_call_request")).toMatchObject({
        arguments: {},
        metadata: { invalid_arguments: entry.text },
      });
      expect(events.find((event) => event.type === "tool_call_response")).toMatchObject({
        content: entry.answer,
        is_error: true,
      });
    });
  }
});

describe("hostile store files: one clear error, nothing written", () => {
  const ID = "01jhostile000";
  const HEADER = `{"cxc":"conversation-log","version":1,"id":"${ID}","created_at":"2026-01-01T00:00:00Z"}`;
  const META = { id: ID, created_at: "2026-01-01T00:00:00Z", updated_at: "2026-01-01T00:00:00Z" };

  function conversation(home: TempHome, files: { log?: string; meta?: string }): string {
    const directory = join(home.home, "conversations", ID);
    mkdirSync(directory, { recursive: true });
    writeFileSync(join(directory, "events.jsonl"), files.log ?? `${HEADER}\n`);
    writeFileSync(join(directory, "meta.json"), files.meta ?? JSON.stringify(META));
    return directory;
  }

  it("a log line nested 20,000 levels deep (written by hand) is a corrupt line, not a stack overflow", async () => {
    const home = freshHome();
    const event = `{"id":"01JDEEP0000000000000000001","ts":"2026-01-01T00:00:00Z","type":"tool_call_request","call_id":"c","name":"n","arguments":{"a":${"[".repeat(20_000)}${"]".repeat(20_000)}}}`;
    const directory = conversation(home, { log: `${HEADER}\n${event}\n` });
    const log = join(directory, "events.jsonl");
    for (const command of ["show", "print"]) {
      expectOneLineError(await home.run(["conversation", command, ID]), {
        exitCode: 1,
        error: `${log}:2: nested more than 256 levels deep, which no conversation needs`,
        hint: `cxc never rewrites a log to repair it; fix or remove that line by hand (keep a copy of ${log} first)`,
      });
    }
  });

  it("metadata whose title is not a string is refused by name, never shown as [object Object]", async () => {
    const home = freshHome();
    const directory = conversation(home, { meta: JSON.stringify({ ...META, title: {} }) });
    const meta = join(directory, "meta.json");
    const hint = "meta.json is a cache of title and timestamps; restore it from a backup or fix it by hand";
    expectOneLineError(await home.run(["conversation", "show", ID]), {
      exitCode: 1,
      error: `${meta}: \`title\` must be a string`,
      hint,
    });
    const listed = await home.run(["conversation", "ls"]);
    expect(listed.stderr).toBe(`cxc: warning: ${meta}: \`title\` must be a string\n`);
    expect(listed.stdout).not.toContain("[object Object]");
  });

  it("metadata of another conversation is refused, and edit writes nothing", async () => {
    const home = freshHome();
    const text = JSON.stringify({ ...META, id: "01jsomeoneelse" });
    const directory = conversation(home, { meta: text });
    const result = await home.run(["conversation", "edit", ID, "--title", "mine now"]);
    expectOneLineError(result, {
      exitCode: 1,
      error: `${join(directory, "meta.json")}: the id '01jsomeoneelse' is not this conversation's (its directory is ${ID})`,
      hint: "meta.json is a cache of title and timestamps; restore it from a backup or fix it by hand",
    });
    expect(readFileSync(join(directory, "meta.json"), "utf8")).toBe(text);
  });

  it("metadata nested 20,000 levels deep is refused before anything walks it", async () => {
    const home = freshHome();
    const deepMeta = JSON.stringify(META).replace(
      /}$/,
      `,"labels":${'{"a":'.repeat(20_000)}1${"}".repeat(20_000)}}`,
    );
    const directory = conversation(home, { meta: deepMeta });
    expectOneLineError(await home.run(["conversation", "show", ID]), {
      exitCode: 1,
      error: `${join(directory, "meta.json")}: nested more than 256 levels deep, which no conversation needs`,
      hint: "meta.json is a cache of title and timestamps; restore it from a backup or fix it by hand",
    });
  });
});

describe("broken configuration: one rule for every command", () => {
  const BROKEN = '[assistant\nmodel = "x"\n';

  /** Every file under `directory` with its content, to show that nothing changed. */
  function snapshot(directory: string): Record<string, string> {
    const files: Record<string, string> = {};
    const walk = (current: string): void => {
      let entries: Dirent[] = [];
      try {
        entries = readdirSync(current, { withFileTypes: true });
      } catch {
        return;
      }
      for (const entry of entries) {
        const path = join(current, entry.name);
        if (entry.isDirectory()) walk(path);
        else files[path] = readFileSync(path, "utf8");
      }
    };
    walk(directory);
    return files;
  }

  it("every command family refuses a broken config.toml with the same error and changes nothing", async () => {
    const home = freshHome();
    const imported = await home.run(["conversation", "import", "fixtures/sample/coding-session.jsonl"], {
      cwd: PROJECT_ROOT,
    });
    expect(imported.exitCode, imported.stderr).toBe(0);
    const id = "01jsample0000";
    const directory = join(home.env.XDG_CONFIG_HOME!, "cxc");
    mkdirSync(directory, { recursive: true });
    const path = join(directory, "config.toml");
    writeFileSync(path, BROKEN);
    const before = snapshot(home.home);
    const commands = [
      ["conversation", "ls"],
      ["c", "list", "--archived"],
      ["conversation", "show", id],
      ["conversation", "print", id],
      ["conversation", "grep", "logcat"],
      ["conversation", "stats", id],
      ["conversation", "new"],
      ["conversation", "use", id],
      ["conversation", "edit", id, "--title", "x"],
      ["conversation", "archive", id],
      ["conversation", "unarchive", id],
      ["conversation", "rm", "--yes", id],
      ["conversation", "fork", id],
      ["conversation", "compact", id],
      ["conversation", "import", join(PROJECT_ROOT, "fixtures/sample/coding-session.jsonl")],
      ["conversation", "export", id],
      ["q", "hello"],
      ["config", "show"],
      ["init", home.cwd],
    ];
    for (const command of commands) {
      const result = await home.run(command, { cwd: home.cwd });
      expect(result.stdout, command.join(" ")).toBe("");
      expectOneLineError(result, {
        exitCode: 2,
        error: `${path}:1:11: invalid TOML: illegal character in key`,
        hint: "fix that line; configuration files are TOML (https://toml.io)",
      });
    }
    expect(snapshot(home.home)).toEqual(before);
    expect(readdirSync(home.cwd)).toEqual([]);
  }, 120_000);

  it("a broken workspace config.toml and a broken -c file are refused the same way", async () => {
    const home = freshHome();
    const workspace = join(home.cwd, "project");
    mkdirSync(join(workspace, ".cxc"), { recursive: true });
    writeFileSync(join(workspace, ".cxc", "config.toml"), BROKEN);
    expectOneLineError(await home.run(["conversation", "ls"], { cwd: workspace }), {
      exitCode: 2,
      error: `${join(workspace, ".cxc", "config.toml")}:1:11: invalid TOML: illegal character in key`,
      hint: "fix that line; configuration files are TOML (https://toml.io)",
    });
    const overlay = join(home.cwd, "overlay.toml");
    writeFileSync(overlay, BROKEN);
    expectOneLineError(await home.run(["-c", overlay, "conversation", "ls"]), {
      exitCode: 2,
      error: `${overlay}:1:11: invalid TOML: illegal character in key`,
      hint: "fix that line; configuration files are TOML (https://toml.io)",
    });
  });
});

describe("the command line never echoes what was glued to an unknown option", () => {
  for (const [args, shown] of [
    [["conversation", "ls", "--api-key=sk-ant-secret-1"], "--api-key=…"],
    [["--token=sk-ant-secret-2", "conversation", "ls"], "--token=…"],
    [["conversation", "show", "-Xsk-ant-secret-3"], "-X…"],
  ] as const) {
    it(args.join(" "), async () => {
      const home = freshHome();
      const result = await home.run(args);
      expect(result.stderr + result.stdout).not.toContain("secret");
      expect(result.stderr.split("\n")[0]).toBe(`cxc: error: unknown option '${shown}'`);
      expect(result.stderr).toMatch(/\nhint: run with --help for usage\n$/);
      expect(result.exitCode).toBe(2);
    });
  }
});
