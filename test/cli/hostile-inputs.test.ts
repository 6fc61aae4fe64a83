// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${…} here is shell syntax in expected messages
/**
 * The corpus of hostile inputs (fixtures/hostile/, plus cases built here that git cannot hold:
 * escape sequences in file names, symlinks, 20,000 levels of nesting). Each case is one command
 * and its expected outcome: the exit code and the exact error line (and hint), with stderr holding
 * nothing else — no stack, no internal error, no control byte — and an import writing nothing.
 */
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type CxcResult, makeTempHome, PROJECT_ROOT, type TempHome } from "../helpers/cli.js";
import {
  type FakeErrorReply,
  type FakeProvider,
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
    error: `${HOSTILE}/import/openai-text-number.json: message 0: content part 0: \`text\` must be a string`,
  },
  {
    name: "an Anthropic block without a type",
    path: `${HOSTILE}/import/anthropic-block-without-type.json`,
    error: `${HOSTILE}/import/anthropic-block-without-type.json: message 0, block 0 needs a string \`type\``,
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
    error: /^cxc: error: .*\/escapes\/17648402467-31m\/events\.json:1:4: not valid JSON \(unexpected end\)$/,
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
    error: `${TEST_MODEL}: The provider rejected the request: 400 bad request 2J0;x end`,
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
    expect(result.stdout).toBe("safe text2J done\n");
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
