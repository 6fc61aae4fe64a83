/**
 * `cxc q -u compact "summarize everything except the current task"` end to end: the built bin/cxc
 * against the loopback fake provider (Anthropic, OpenAI and Google wire formats), the approval prompt
 * driven in a pseudo-terminal (tmux), and refusal when there is no terminal to ask.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { declinedText } from "../../src/query/approval.js";
import { createEventBuilder } from "../helpers/builders.js";
import { CXC_BIN, makeTempHome, type TempHome } from "../helpers/cli.js";
import { type FakeProvider, type FakeReply, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { startInTmux } from "../helpers/pty.js";
import { seedConversation } from "./conversation-helpers.js";

/**
 * `chat` is OpenAI through Chat Completions, `responses` through the Responses API, `google` the
 * Gemini API.
 */
type ProviderKind = "anthropic" | "chat" | "responses" | "google";

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

function providerEnv(kind: ProviderKind): Record<string, string> {
  if (kind === "google") {
    return {
      GEMINI_API_KEY: "test-key",
      GOOGLE_GEMINI_BASE_URL: provider.url,
      CXC_ASSISTANT__MODEL__ID: "google/gemini-2.5-pro",
    };
  }
  return kind === "anthropic"
    ? {
        ANTHROPIC_API_KEY: "test-key",
        ANTHROPIC_BASE_URL: provider.anthropicBaseURL,
        CXC_ASSISTANT__MODEL__ID: "anthropic/claude-sonnet-4-6",
      }
    : {
        OPENAI_API_KEY: "test-key",
        OPENAI_BASE_URL: provider.openaiBaseURL,
        CXC_ASSISTANT__MODEL__ID: "openai/gpt-5",
        CXC_PROVIDERS__OPENAI__API: kind,
      };
}

function cxc(kind: ProviderKind, args: string[], env: Record<string, string> = {}) {
  return home.run(args, { env: { ...providerEnv(kind), ...env } });
}

const QUESTIONS = [
  "set up the project skeleton",
  "fix the container width bug",
  "now the current task: one-sided drag",
];
const SUMMARY = "ORIGINAL-SUMMARY: we set up the skeleton and fixed the container width.";
const NOTE = "Everything earlier is recoverable from files on disk.";

/** Three plain turns written through the real store, so the compact turn is the fourth. */
async function buildHistory(): Promise<void> {
  const build = createEventBuilder();
  const events = QUESTIONS.flatMap((question) => build.turn(question, { answer: `answer to ${question}` }));
  await seedConversation(home, { id: "compact00001", events, active: true });
}

function compactReply(): FakeReply {
  return {
    blocks: [
      {
        type: "tool-call",
        id: "toolu_compact_1",
        name: "compact",
        arguments: {
          rules: [{ before_quote: "now the current task: one-sided drag", summary: SUMMARY, note: NOTE }],
        },
      },
    ],
  };
}

function storedEvents(): Record<string, unknown>[] {
  const sessions = JSON.parse(readFileSync(join(home.home, "sessions", "default.json"), "utf8")) as {
    active: string;
  };
  return readFileSync(join(home.home, "conversations", sessions.active, "events.jsonl"), "utf8")
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const compactionsOf = (events: Record<string, unknown>[]) =>
  events.filter((event) => event.type === "compaction");
const lastResponse = (events: Record<string, unknown>[]) =>
  events.filter((event) => event.type === "tool_call_response").at(-1);

/** Request `index`'s messages without cache markers (the Anthropic adapter moves its breakpoint). */
function messagesOf(index: number): unknown[] {
  const body = provider.requests[index]!.body as {
    messages?: unknown[];
    input?: unknown[];
    contents?: unknown[];
  };
  const messages = body.messages ?? body.input ?? body.contents;
  return JSON.parse(JSON.stringify(messages, (key, value) => (key === "cache_control" ? undefined : value)));
}

describe.each(["anthropic", "chat", "responses", "google"] as const)("cxc q -u compact (%s)", (kind) => {
  it("records the proposal deferred, and the next turn sends the compacted view", async () => {
    await buildHistory();
    provider.enqueue(compactReply(), textReply("I proposed a compaction."));
    const result = await cxc(kind, [
      "-c",
      "conversation.tools.compact.run=unattended",
      "q",
      "-u",
      "compact",
      "summarize everything except the current task",
    ]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("I proposed a compaction.");
    const [compaction] = compactionsOf(storedEvents());
    expect(compaction).toMatchObject({
      from_turn: 0,
      to_turn: 1,
      source: "assistant",
      note: NOTE,
      summary: { summary: SUMMARY, source: "supplied", author: "assistant" },
      deferred_until_turn: 4,
    });
    // The compact turn's two requests share the old prefix; the tool was offered and forced.
    const body = JSON.stringify(provider.requests[0]!.body);
    expect(body).toContain('"compact"');
    expect(body).toMatch(kind === "google" ? /"allowedFunctionNames":\["compact"\]/ : /tool_choice/);
    const first = messagesOf(0);
    expect(messagesOf(1).slice(0, first.length)).toEqual(first);
    expect(JSON.stringify(messagesOf(1))).toContain("set up the project skeleton");

    provider.enqueue(textReply("carrying on"));
    expect((await cxc(kind, ["q", "carry on"])).exitCode).toBe(0);
    const next = JSON.stringify(messagesOf(2));
    expect(next).toContain(SUMMARY);
    expect(next).not.toContain("set up the project skeleton");
    expect(next).toContain("now the current task: one-sided drag");

    // show names the source and the note.
    const show = await cxc(kind, ["conversation", "show"]);
    expect(show.stdout).toContain("assistant");
    expect(show.stdout).toContain(NOTE);
    const printed = await cxc(kind, ["--format", "json", "conversation", "print"]);
    expect(printed.stdout).toContain(NOTE);
    if (kind === "google") {
      // `print --format gemini` is the body the next turn sends, but for the new request.
      const wire = await cxc(kind, ["--format", "gemini", "conversation", "print"]);
      expect(wire.exitCode, wire.stderr).toBe(0);
      provider.enqueue(textReply("again"));
      expect((await cxc(kind, ["q", "one more"])).exitCode).toBe(0);
      const sent = provider.requests.at(-1)!.body as { contents: unknown[]; tools?: unknown };
      const printedBody = JSON.parse(wire.stdout) as { contents: unknown[] };
      expect(sent.contents.slice(0, -1)).toEqual(printedBody.contents);
      expect(sent.contents.at(-1)).toEqual({ role: "user", parts: [{ text: "one more" }] });
    }
  });
});

describe("cxc q -u compact without a terminal", () => {
  it("refuses the call (run = ask) and records nothing", async () => {
    await buildHistory();
    provider.enqueue(compactReply(), textReply("I could not compact."));
    const result = await cxc("anthropic", [
      "q",
      "-u",
      "compact",
      "summarize everything except the current task",
    ]);
    expect(result.exitCode).toBe(0);
    const events = storedEvents();
    expect(compactionsOf(events)).toEqual([]);
    expect(lastResponse(events)).toMatchObject({ is_error: true });
    expect(String(lastResponse(events)!.content)).toContain("there is no terminal to ask");
  });
});

describe("the approval prompt in a pseudo-terminal", () => {
  async function promptSession(answer: string, env: Record<string, string> = {}) {
    await buildHistory();
    provider.enqueue(compactReply(), textReply("Done with the proposal."));
    mkdirSync(home.cwd, { recursive: true });
    const session = startInTmux(
      [process.execPath, CXC_BIN, "q", "-u", "compact", "summarize everything except the current task"],
      { env: { ...home.env, ...providerEnv("anthropic"), ...env }, cwd: home.cwd },
    );
    try {
      const screen = await session.waitFor("Run builtin tool compact?");
      session.send(answer, { literal: true });
      const exitCode = await session.exitCode();
      return { screen, exitCode, final: session.screen() };
    } finally {
      session.close();
    }
  }

  it("shows the resolved plan and a preview file, and records on y", async () => {
    const { screen, exitCode } = await promptSession("y");
    expect(screen).toContain("compact — 1 rule proposed");
    // The resolved plan is shown, not the call's JSON.
    expect(screen).not.toContain("with arguments:");
    expect(screen).toContain("turns 1..2 → the assistant's summary");
    expect(screen).toContain('from     "set up the project skeleton"');
    expect(screen).toContain(`why      ${NOTE}`);
    // What it does to the next request, and what it costs with the prompt cache (this fake
    // reports a usage of a few tokens, so the figures are small).
    expect(screen).toMatch(/Context of the next request: \S+ → \S+ tokens/);
    expect(screen.replace(/\s+/g, " ")).toMatch(
      /With the prompt cache: (saves|adds) \S+ tokens a request .*the next request writes \S+ tokens to the cache again from turn 1 on .*\(anthropic\/claude-sonnet-4-6, pr ?ices of \d{4}-\d{2}-\d{2}\)/,
    );
    const previewPath = /preview {2}(\S+\.md)/.exec(screen)![1]!;
    expect(readFileSync(previewPath, "utf8")).toContain("answer to fix the container width bug");
    expect(exitCode).toBe(0);
    expect(compactionsOf(storedEvents())).toHaveLength(1);
  }, 60_000);

  it("records nothing on n and tells the model", async () => {
    const { exitCode } = await promptSession("n");
    expect(exitCode).toBe(0);
    const events = storedEvents();
    expect(compactionsOf(events)).toEqual([]);
    expect(lastResponse(events)).toMatchObject({ content: declinedText("compact"), is_error: true });
  }, 60_000);

  it("shows the edited rules again, resolved, and records them on y", async () => {
    await buildHistory();
    provider.enqueue(compactReply(), textReply("Done with the proposal."));
    mkdirSync(home.cwd, { recursive: true });
    const session = startInTmux(
      [process.execPath, CXC_BIN, "q", "-u", "compact", "summarize everything except the current task"],
      {
        env: {
          ...home.env,
          ...providerEnv("anthropic"),
          EDITOR: `sed -i 's/ORIGINAL-SUMMARY[^"]*/EDITED-SUMMARY./'`,
        },
        cwd: home.cwd,
      },
    );
    try {
      await session.waitFor("Run builtin tool compact?");
      expect(session.screen()).toContain("the assistant's summary (11 words)");
      session.send("e", { literal: true });
      // The edit comes back resolved, and is asked about before anything is recorded.
      const again = await session.waitFor(
        /the assistant's summary \(1 word\)[\s\S]*Run builtin tool compact\?/,
      );
      expect(again).toContain("turns 1..2 → the assistant's summary (1 word)");
      expect(compactionsOf(storedEvents())).toEqual([]);
      session.send("y", { literal: true });
      expect(await session.exitCode()).toBe(0);
    } finally {
      session.close();
    }
    const [compaction] = compactionsOf(storedEvents());
    expect((compaction!.summary as { summary: string }).summary).toBe("EDITED-SUMMARY.");
  }, 60_000);
});
