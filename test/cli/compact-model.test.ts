/**
 * `compact -s` with a real model protocol: the built CLI talks to the loopback fake provider
 * through the real SDKs. The request must carry the RAW events of the (extended) range, the summary
 * instructions as the system prompt and the final `Summarize the conversation above.` message; a
 * failed summary (500s, a stream cut mid-way, a reply cut at the output limit) falls back to the
 * digest and says so, or, with `conversation.compaction.summary.fallback = "abort"`, applies
 * nothing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SUMMARY_INSTRUCTIONS, FACTS_NOTICE } from "../../src/compaction/model-summarizer.js";
import type { TempHome } from "../helpers/cli.js";
import { errorReply, type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { loadSample } from "../helpers/sample.js";
import { errorLines } from "./conversation-helpers.js";
import { compactionsOf, homeWithSample, logBytes } from "./compact-helpers.js";

let provider: FakeProvider;
let home: TempHome;
beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(() => provider?.close());
afterEach(() => {
  home?.cleanup();
  provider.requests.length = 0;
});

/** The fake provider as Anthropic, and the assistant model configured (a key alone picks no summary model). */
function anthropicEnv(): Record<string, string> {
  return {
    ANTHROPIC_API_KEY: "test-key",
    ANTHROPIC_BASE_URL: provider.anthropicBaseURL,
    CXC_ASSISTANT__MODEL__ID: "anthropic/claude-sonnet-4-6",
  };
}

/** The user request texts of raw turn `number` (1-based) of the sample. */
function requestOf(number: number): string {
  const turn = loadSample().turns[number - 1]!;
  const request = turn.events.find((event) => event.type === "chat_request");
  if (request?.type !== "chat_request") throw new Error(`turn ${number} has no request`);
  return request.content;
}

describe("compact -s with a model", () => {
  it("reads the range as the view shows it when its raw turns do not fit the summary model's window", async () => {
    home = await homeWithSample();
    const digest = await home.run(["conversation", "compact", "-m", "builtin/digest", "-k", "s:4..6"]);
    expect(digest.exitCode, digest.stderr).toBe(0);
    const digestText = compactionsOf(home)[0]!.summary!.summary;
    provider.enqueue(textReply("A summary over the view."));
    // The same window rule for every summary, not only a review's draft (src/compaction/summaries.ts).
    const small = ["-c", 'providers.anthropic.models.claude-sonnet-4-6={"context_window": 2000}'];
    const result = await home.run(["conversation", "compact", ...small, "-s", "--turn", "3..8"], {
      env: anthropicEnv(),
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const text = JSON.stringify(provider.requests[0]!.body);
    // The earlier summary stands in for turns 4..6; the turns outside it are still raw.
    expect(text).toContain("[Summary of previous conversation]");
    expect(text).toContain(JSON.stringify(digestText.slice(0, 60)).slice(1, -1));
    expect(text).toContain(JSON.stringify(requestOf(3)).slice(1, -1));
    expect(text).toContain(JSON.stringify(requestOf(7)).slice(1, -1));
  });

  it("sends the raw events of the extended range and stores the summary", async () => {
    home = await homeWithSample();
    const digest = await home.run(["conversation", "compact", "-m", "builtin/digest", "-k", "s:4..6"]);
    expect(digest.exitCode, digest.stderr).toBe(0);
    provider.enqueue(textReply("The user and the assistant added --since to logcat."));
    const result = await home.run(["conversation", "compact", "-s", "focus on the tests", "--turn", "3..5"], {
      env: anthropicEnv(),
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain("Generating summary of turns 3..6 with anthropic/claude-sonnet-4-6");
    // Extended over the digest summary of 4..6, which it wholly covers.
    expect(result.stdout).toContain("Compacted turns 3..6 (4 total, summary: ");
    // The summary check: the model's one sentence names none of the identifiers the turns used
    // (the files it wrote are in the facts block, which the check does not ask for).
    expect(result.stdout).toMatch(
      /\nThe summary of turns 3\.\.6 \(anthropic\/claude-sonnet-4-6\) does not mention these \d+ items:\n/,
    );
    expect(result.stdout).toContain(
      "\n  identifier  --noEmit — named by the assistant in turn 5; used in tool calls",
    );
    expect(result.stdout).not.toContain("\n  path ");

    expect(provider.requests).toHaveLength(1);
    const [request] = provider.requests;
    expect(request!.path).toBe("/v1/messages");
    const body = request!.body as {
      system: { text: string }[];
      messages: { role: string; content: { type: string; text?: string }[] }[];
      tools?: unknown;
    };
    expect(body.system[0]!.text.startsWith(`${DEFAULT_SUMMARY_INSTRUCTIONS}\n\n${FACTS_NOTICE}`)).toBe(true);
    expect(body.tools).toBeUndefined();
    const last = body.messages.at(-1)!;
    expect(last.role).toBe("user");
    expect(last.content.at(-1)!.text).toBe(
      "Summarize the conversation above.\n\nAdditional context: focus on the tests",
    );
    const text = JSON.stringify(body.messages);
    for (const turn of [3, 4, 5, 6]) expect(text).toContain(JSON.stringify(requestOf(turn)).slice(1, -1));
    for (const turn of [2, 7]) expect(text).not.toContain(JSON.stringify(requestOf(turn)).slice(1, -1));
    // Raw, not projected: no earlier summary, and native tool calls rather than a transcript.
    expect(text).not.toContain("[Summary of previous conversation]");
    expect(text).not.toContain("## Digest of");
    expect(text).toContain('"type":"tool_use"');

    const stored = compactionsOf(home).at(-1)!;
    expect(stored).toMatchObject({ from_turn: 2, to_turn: 5, source: "user" });
    expect(stored.summary).toEqual({
      summary: "The user and the assistant added --since to logcat.",
      source: "derived",
      recipe: "anthropic/claude-sonnet-4-6",
      facts: expect.stringContaining("\nFiles modified: src/since.ts, test/since.test.ts"),
    });
    // The model was shown the facts block and told it follows its summary.
    expect(body.system.map((part) => part.text).join("")).toContain(FACTS_NOTICE);
  });

  it("prints the top ten of what the summary does not mention, in the order --format json ranks them all", async () => {
    home = await homeWithSample();
    provider.enqueue(textReply("Added a --since flag to logcat."));
    const json = await home.run(["--format", "json", "conversation", "compact", "-k", "s:..19"], {
      env: anthropicEnv(),
    });
    expect(json.exitCode, json.stderr).toBe(0);
    const lost = JSON.parse(json.stdout).compactions[0].summary.lost;
    expect(lost.total).toBeGreaterThan(10);
    home.cleanup();
    home = await homeWithSample();
    provider.enqueue(textReply("Added a --since flag to logcat."));
    const text = await home.run(["conversation", "compact", "-k", "s:..19"], { env: anthropicEnv() });
    expect(text.exitCode, text.stderr).toBe(0);
    const lines = text.stdout.split("\n");
    const heading = lines.findIndex((line) => line.startsWith("The summary of turns 1..19 ("));
    expect(lines[heading]).toBe(
      `The summary of turns 1..19 (anthropic/claude-sonnet-4-6) does not mention ${lost.total} items; the 10 that matter most:`,
    );
    const shown = lost.items.slice(0, 10).map((item: { kind: string; value: string; reason: string }) => {
      // Long values are cut at 160 characters in text; the JSON has them whole.
      const cut = item.value.length > 160 ? `${item.value.slice(0, 159)}…` : item.value;
      return `  ${item.kind.padEnd(10)}  ${cut} — ${item.reason}`;
    });
    expect(lines.slice(heading + 1, heading + 11)).toEqual(shown);
    expect(lines[heading + 11]).toBe(`  … and ${lost.total - 10} more (--format json lists them all)`);
    // Paths and the user's constraints are the facts block's, never the check's.
    expect(
      lost.items.every((item: { kind: string }) => item.kind === "identifier" || item.kind === "number"),
    ).toBe(true);
  });

  it("speaks the Responses API for -m openai/…, Chat Completions with providers.openai.api = chat", async () => {
    home = await homeWithSample();
    provider.enqueue(textReply("A short summary."), textReply("Another summary."));
    const env = { OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: provider.openaiBaseURL };
    const result = await home.run(["conversation", "compact", "-m", "openai/gpt-test", "-k", "s:2..3"], {
      env,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const body = provider.requests[0]!.body as {
      model: string;
      instructions: string;
      input: { role: string; content: unknown }[];
    };
    expect(provider.requests[0]!.path).toBe("/v1/responses");
    expect(body.model).toBe("gpt-test");
    expect(
      body.instructions.startsWith(`${DEFAULT_SUMMARY_INSTRUCTIONS}\n\n${FACTS_NOTICE}\n\n<facts>\n`),
    ).toBe(true);
    expect(body.input.at(-1)).toMatchObject({ role: "user", content: "Summarize the conversation above." });
    expect(compactionsOf(home)[0]!.summary?.recipe).toBe("openai/gpt-test");

    const chat = await home.run(
      ["-c", "providers.openai.api=chat", "conversation", "compact", "-m", "openai/gpt-test", "-k", "s:4..5"],
      { env },
    );
    expect(chat.exitCode, chat.stderr).toBe(0);
    const chatBody = provider.requests[1]!.body as { messages: { role: string; content: unknown }[] };
    expect(provider.requests[1]!.path).toBe("/v1/chat/completions");
    expect(chatBody.messages[0]).toMatchObject({ role: "system" });
    expect(
      String(chatBody.messages[0]!.content).startsWith(`${DEFAULT_SUMMARY_INSTRUCTIONS}\n\n${FACTS_NOTICE}`),
    ).toBe(true);
  });

  const failures: [string, () => void, string][] = [
    [
      "a 500 on every attempt",
      () => provider.enqueue(...Array.from({ length: 4 }, () => errorReply(500, { retryAfterSeconds: 0 }))),
      "Summarization failed for anthropic/claude-sonnet-4-6: ",
    ],
    [
      "a stream cut mid-way",
      () => provider.enqueue(textReply("The user and the assistant", { cutAfterEvents: 4 })),
      "Summarization failed for anthropic/claude-sonnet-4-6: ",
    ],
    [
      "a reply cut at the output limit",
      () => provider.enqueue(textReply("The user and", { stop: "max-tokens" })),
      "Summarization failed for anthropic/claude-sonnet-4-6: the model hit its max output token limit",
    ],
  ];

  it.each(failures)("falls back to the digest after %s, and says so", async (_name, script, message) => {
    home = await homeWithSample();
    script();
    const result = await home.run(["conversation", "compact", "-k", "r:2..3", "-k", "s:4..6"], {
      env: anthropicEnv(),
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const reason = message.replace("Summarization failed for anthropic/claude-sonnet-4-6: ", "");
    expect(result.stderr).toMatch(
      /cxc: warning: summary model anthropic\/claude-sonnet-4-6 failed \(.+\); summarized turns 4\.\.6 with builtin\/digest instead/,
    );
    expect(result.stderr).toContain(reason);
    // The event says honestly who wrote the summary.
    const [strip, summary] = compactionsOf(home);
    expect(strip).toMatchObject({ from_turn: 1, to_turn: 2, reasoning: "strip" });
    expect(summary).toMatchObject({
      from_turn: 3,
      to_turn: 5,
      summary: { source: "derived", recipe: "builtin/digest" },
    });
    expect(result.stdout).toContain("The summary of turns 4..6 (builtin/digest)");
    expect(provider.remaining()).toBe(0);
  });

  it.each(failures)(
    "applies nothing after %s when -m named the model, the mechanical rule neither",
    async (_name, script, message) => {
      home = await homeWithSample();
      const before = logBytes(home);
      script();
      const result = await home.run(
        ["conversation", "compact", "-m", "anthropic/claude-sonnet-4-6", "-k", "r:2..3", "-k", "s:4..6"],
        { env: anthropicEnv() },
      );
      expect(result.exitCode).toBe(1);
      const { error, hint } = errorLines(result.stderr);
      expect(error.startsWith(message), error).toBe(true);
      expect(hint).toContain("-m builtin/digest");
      expect(logBytes(home)).toBe(before);
      expect(provider.remaining()).toBe(0);
    },
  );

  it.each(failures)("applies nothing after %s with fallback = abort", async (_name, script, message) => {
    home = await homeWithSample();
    const before = logBytes(home);
    script();
    // Two rules: the mechanical one must not be applied either, because everything is appended at the end.
    const result = await home.run(
      [
        "-c",
        "conversation.compaction.summary.fallback=abort",
        "conversation",
        "compact",
        "-k",
        "r:2..3",
        "-k",
        "s:4..6",
      ],
      { env: anthropicEnv() },
    );
    expect(result.exitCode, result.stderr).toBe(1);
    const { error, hint } = errorLines(result.stderr);
    expect(error.startsWith(message), error).toBe(true);
    expect(error).toContain("Nothing was compacted.");
    expect(hint).toContain("-m builtin/digest");
    expect(result.stdout).toBe("");
    expect(logBytes(home)).toBe(before);
    expect(provider.remaining()).toBe(0);
  });

  it("a configured or named model without its key is a failure like any other", async () => {
    home = await homeWithSample();
    // Named with -m: the user asked for that model, so nothing is applied.
    const named = await home.run(["conversation", "compact", "-s", "-m", "anthropic/claude-test"]);
    expect(named.exitCode).toBe(1);
    expect(errorLines(named.stderr).error).toBe(
      "Summarization failed for anthropic/claude-test: Missing environment variable ANTHROPIC_API_KEY. Nothing was compacted.",
    );
    expect(compactionsOf(home)).toEqual([]);
    // The assistant model: the digest stands in, and says so.
    const assistant = await home.run([
      "-c",
      "assistant.model.id=anthropic/claude-test",
      "conversation",
      "compact",
      "-s",
    ]);
    expect(assistant.exitCode, assistant.stderr).toBe(0);
    expect(assistant.stderr).toContain(
      "cxc: warning: summary model anthropic/claude-test failed (Missing environment variable ANTHROPIC_API_KEY); summarized turns 2..19 with builtin/digest instead",
    );
    await home.run(["conversation", "compact", "--reset"]);
    const configured = await home.run([
      "-c",
      "assistant.model.id=anthropic/claude-test",
      "-c",
      "conversation.compaction.summary.fallback=abort",
      "conversation",
      "compact",
      "-s",
    ]);
    expect(configured.exitCode).toBe(1);
    expect(errorLines(configured.stderr).error).toBe(
      "Summarization failed for anthropic/claude-test: Missing environment variable ANTHROPIC_API_KEY. Nothing was compacted.",
    );
    expect(compactionsOf(home).map((compaction) => compaction.summary?.recipe)).toEqual(["builtin/digest"]);
    expect(provider.requests).toHaveLength(0);
  });

  it("a model id that names no provider stays an error (the user's to fix), whatever the fallback", async () => {
    home = await homeWithSample();
    const before = logBytes(home);
    const result = await home.run(["conversation", "compact", "-s", "-m", "nosuch/model"], {
      env: anthropicEnv(),
    });
    expect(result.exitCode).toBe(1);
    expect(errorLines(result.stderr).error).toBe('Unknown provider "nosuch".');
    expect(logBytes(home)).toBe(before);
  });

  it("refuses a fallback setting other than digest or abort", async () => {
    home = await homeWithSample();
    const result = await home.run([
      "-c",
      "conversation.compaction.summary.fallback=never",
      "conversation",
      "compact",
      "-s",
    ]);
    expect(result.exitCode).toBe(2);
    expect(errorLines(result.stderr).error).toBe(
      'conversation.compaction.summary.fallback must be "digest" or "abort", not "never"',
    );
  });
});
