/**
 * The summary check in the assistant's `compact` tool, end to end: the built bin/cxc against the
 * loopback fake provider. The approval prompt (in a pseudo-terminal) shows what the proposed
 * summary does not mention before the user answers; the tool result the model receives (read
 * from the next request body) lists it too, with how to mend it; and a second call with a mended
 * summary for the same turns replaces the first once the next turn starts.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createEventBuilder } from "../helpers/builders.js";
import { CXC_BIN, makeTempHome, type TempHome } from "../helpers/cli.js";
import { type FakeProvider, type FakeReply, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { startInTmux } from "../helpers/pty.js";
import { seedConversation } from "./conversation-helpers.js";

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

const env = () => ({
  ANTHROPIC_API_KEY: "test-key",
  ANTHROPIC_BASE_URL: provider.anthropicBaseURL,
  CXC_ASSISTANT__MODEL__ID: "anthropic/claude-sonnet-4-6",
});

const CURRENT = "now the current task: the retry budget";
const THIN = "THIN-SUMMARY: we looked at the logs.";
const MENDED =
  "MENDED-SUMMARY: read and changed src/store/log.ts (rotation). Never touch main. Keep rotation under 200 ms.";

/** The rest of the file the first turn reads: plain code with nothing a summary must keep. */
const LOG_MODULE_BODY = Array.from(
  { length: 40 },
  (_, index) => `const step${index} = (value: number): number => value * ${index + 2} + ${index};`,
).join("\n");

/** Two turns with facts a summary should keep, then the turn the compact call is made in. */
async function buildHistory(): Promise<void> {
  const build = createEventBuilder();
  const events = [
    ...build.turn("Fix the log rotation. Never touch main.", {
      tools: [
        {
          name: "fs_read_file",
          arguments: { path: "src/store/log.ts" },
          // A file long enough that a short summary saves something (the tool refuses a rule that
          // saves about nothing).
          result: `export function rotateLog() {}\n${LOG_MODULE_BODY}`,
        },
      ],
      answer: "Rotation happens in `rotateLog()`; I will change src/store/log.ts.",
    }),
    ...build.turn("Keep rotation under 200 ms.", {
      tools: [
        { name: "fs_modify_file", arguments: { path: "src/store/log.ts", patterns: [] }, result: "ok" },
      ],
      answer: "Done.",
    }),
    ...build.turn(CURRENT, { answer: "Working on it." }),
  ];
  await seedConversation(home, { id: "check0000001", events, active: true });
}

function compactCall(id: string, summary: string): FakeReply {
  return {
    blocks: [
      {
        type: "tool-call",
        id,
        name: "compact",
        arguments: { rules: [{ before_quote: CURRENT, summary, note: "The first two turns are done." }] },
      },
    ],
  };
}

/** The tool result the model received for call `id`, from the request bodies the provider got. */
function toolResultSent(id: string): string {
  for (const request of provider.requests) {
    const { messages } = request.body as { messages: { content: unknown }[] };
    for (const message of messages) {
      if (!Array.isArray(message.content)) continue;
      for (const block of message.content as { type: string; tool_use_id?: string; content?: unknown }[]) {
        if (block.type === "tool_result" && block.tool_use_id === id) {
          return typeof block.content === "string" ? block.content : JSON.stringify(block.content);
        }
      }
    }
  }
  throw new Error(`no request carried the result of ${id}`);
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

describe("the compact tool's summary check", () => {
  it("tells the model what its summary leaves out, and a mended summary for the same turns replaces it", async () => {
    await buildHistory();
    provider.enqueue(
      compactCall("toolu_thin", THIN),
      compactCall("toolu_mended", MENDED),
      textReply("Mended the summary."),
    );
    const result = await home.run(
      ["-c", "conversation.tools.compact.run=unattended", "q", "-t", "compact", "compact the finished turns"],
      { env: env() },
    );
    expect(result.exitCode, result.stderr).toBe(0);

    const thin = toolResultSent("toolu_thin");
    expect(thin).toContain("Recorded 1 compaction.");
    expect(thin).toContain("The summary of rule 1 (turns 1..2) does not mention these ");
    expect(thin).toContain("  number      200 ms — the user's, turn 2");
    // Paths and the user's constraints are carried by the facts block stored with the summary.
    expect(thin).not.toContain("  constraint  ");
    expect(thin).not.toContain("  path        ");
    expect(thin).toContain("  identifier  rotateLog — ");
    expect(thin).toContain("call compact again for the same turns with a summary that includes them");

    const mended = toolResultSent("toolu_mended");
    expect(mended).toContain("does not mention this item:\n  identifier  rotateLog — ");
    expect(mended).not.toContain("src/store/log.ts —");

    // The result's line on stderr ends with the check's count, which the result text reaches only
    // after a few lines (every line cxc writes to a stderr that is not a terminal starts `cxc: `).
    const thinCount = /does not mention these (\d+) items/.exec(thin)![1];
    expect(result.stderr).toContain(
      `cxc:   ↳ ok: recorded 1 compaction, taking effect at turn 5; the summary check: ${thinCount} items left out (the model sees the list)\n`,
    );
    expect(result.stderr).toContain(
      "cxc:   ↳ ok: recorded 1 compaction, taking effect at turn 5; the summary check: 1 item left out (the model sees the list)\n",
    );
    for (const line of result.stderr.trimEnd().split("\n")) expect(line).toMatch(/^(cxc|hint): /);

    // Both are recorded; the newer one is what the next turn sends.
    expect(storedEvents().filter((event) => event.type === "compaction")).toHaveLength(2);
    provider.enqueue(textReply("carrying on"));
    expect((await home.run(["q", "carry on"], { env: env() })).exitCode).toBe(0);
    // The summary stands in for turns 1..2 as its own turn, right after the summary request; the
    // compact turn itself (with both calls' arguments) is kept verbatim after it.
    const { messages } = provider.requests.at(-1)!.body as { messages: { content: unknown }[] };
    const texts = messages.map((message) => JSON.stringify(message.content));
    expect(texts[0]).toContain("[Summary of previous conversation]");
    expect(texts[1]).toContain("MENDED-SUMMARY");
    expect(texts.slice(0, 2).join()).not.toContain("THIN-SUMMARY");
    expect(texts.join()).not.toContain("Fix the log rotation.");
  });

  it("shows the check in the approval prompt, before the question", async () => {
    await buildHistory();
    provider.enqueue(compactCall("toolu_thin", THIN), textReply("Proposed."));
    mkdirSync(home.cwd, { recursive: true });
    const session = startInTmux(
      [process.execPath, CXC_BIN, "q", "-u", "compact", "compact the finished turns"],
      {
        env: { ...home.env, ...env() },
        cwd: home.cwd,
      },
    );
    try {
      const screen = await session.waitFor("Run builtin tool compact?");
      const check = screen.indexOf("check    The summary of turns 1..2 does not mention these ");
      expect(check).toBeGreaterThan(screen.indexOf("why      The first two turns are done."));
      expect(check).toBeLessThan(screen.indexOf("Run builtin tool compact?"));
      expect(screen).toContain("number      200 ms — the user's, turn 2");
      expect(screen).toContain("identifier  rotateLog — named by the assistant in turn 1");
      session.send("n", { literal: true });
      expect(await session.exitCode()).toBe(0);
    } finally {
      session.close();
    }
  }, 60_000);
});
