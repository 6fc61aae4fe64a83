/**
 * Pins and facts blocks through the real Claude Code (agents/), offline against the fake provider:
 * cxc's sample session with one tool result pinned (`keep 2.1 --only results`) is masked
 * (`-k r+t:-5calls`), summarized (`-k s:..-2`) and exported; Claude Code resumes it and its next
 * request carries the pinned result verbatim and the facts block (turn 1's binding sentences).
 * Then, with cxc's hooks installed, Claude Code's own `/compact` writes a summary that drops
 * everything, and the restore in its next request re-adds the pinned result, and the user message
 * pinned where it stood (the export marks its record, and Claude Code keeps the mark).
 */
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { groupTurns } from "../../src/core/conversation/turns.js";
import {
  type AgentPlace,
  requireAgent,
  newAgentPlace,
  claudeCodeEnvironment,
  messageTexts,
  runAgent,
} from "../helpers/agents.js";
import { makeTempHome, PROJECT_ROOT, type TempHome } from "../helpers/cli.js";
import { type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { loadSample } from "../helpers/sample.js";
import { seedConversation } from "../cli/conversation-helpers.js";

const MODEL = "claude-sonnet-4-5";
const CLAUDE_COMPACT_PROMPT = "Your task is to create a detailed summary of the conversation so far";
const DROPPED = "The user and the assistant worked on logcat.";

let fake: FakeProvider;
let root: string;
let place: AgentPlace;
let claude: string;
let cxcHome: TempHome;
let sessionId: string;
const pinned = groupTurns(loadSample().events)[1]!.events.find(
  (event) => event.type === "tool_call_response",
)!;
const pinnedText = pinned.type === "tool_call_response" ? pinned.content.trim() : "";
/** The user's message of the last turn: pinned where it stands, after the summary. */
const last = groupTurns(loadSample().events)
  .at(-1)!
  .events.find((event) => event.type === "chat_request")!;
const lastText = last.type === "chat_request" ? last.content : "";

async function cxc(args: string[]) {
  const result = await cxcHome.run(args, { cwd: place.cwd, env: { HOME: place.home } });
  expect(result.exitCode, `cxc ${args.join(" ")}: ${result.stderr}`).toBe(0);
  return result;
}

/** One Claude Code turn in the exported session; the texts of the request it sent for it. */
async function claudeTurn(prompt: string): Promise<string[]> {
  fake.enqueue(textReply("Noted."));
  const before = fake.requests.length;
  const result = await runAgent(
    claude,
    ["-p", prompt, "--output-format", "json", "--model", MODEL, "--resume", sessionId],
    { cwd: place.cwd, env: claudeCodeEnvironment(place, fake.url) },
  );
  expect(result.code, `claude: ${result.stderr.slice(0, 400)} ${result.stdout.slice(0, 400)}`).toBe(0);
  const turns = fake.requests.slice(before).filter((request) => request.route === undefined);
  expect(turns).toHaveLength(1);
  return messageTexts((turns[0]!.body as { messages: unknown }).messages);
}

beforeAll(async () => {
  claude = requireAgent(PROJECT_ROOT, "claude");
  ({ root, place } = newAgentPlace("cxc-claude-pins-"));
  fake = await startFakeProvider({
    routes: [{ bodyIncludes: CLAUDE_COMPACT_PROMPT, reply: textReply(`<summary>${DROPPED}</summary>`) }],
  });
  cxcHome = makeTempHome();
  await seedConversation(cxcHome, { id: "sample000001", events: loadSample().events, active: true });
}, 60_000);

afterAll(async () => {
  await fake?.close();
  cxcHome?.cleanup();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe("pins and facts blocks inside the real Claude Code", () => {
  it("resume with the pinned result verbatim after masking and a summary, and the facts block", async () => {
    await cxc(["conversation", "keep", "2.1", "--only", "results"]);
    await cxc(["conversation", "keep", "20", "--only", "user"]);
    await cxc(["conversation", "compact", "-k", "r+t:-5calls"]);
    await cxc(["conversation", "compact", "-k", "s:..-2"]);
    const exported = await cxc(["conversation", "export", "--to", "claude-code"]);
    sessionId = /claude --resume ([0-9a-f-]{36})/.exec(exported.stdout)![1]!;
    const texts = (await claudeTurn("What did parse-line.ts look like?")).join("\n");
    expect(texts).toContain("[Pinned messages, kept verbatim]");
    expect(texts).toContain(pinnedText);
    expect(texts).toContain("[Facts of these turns, from their raw events]");
    expect(texts).toContain("don't add dependencies");
  }, 120_000);

  it("gets the pinned result back from cxc's restore after Claude Code's own compaction drops it", async () => {
    await cxc(["hooks", "install", "--agent", "claude-code"]);
    const env = claudeCodeEnvironment(place, fake.url);
    const compacted = await runAgent(claude, ["-p", "/compact", "--model", MODEL, "--resume", sessionId], {
      cwd: place.cwd,
      env,
    });
    expect(compacted.code, compacted.stderr.slice(0, 400)).toBe(0);
    const texts = await claudeTurn("Go on.");
    const summary = texts.find((text) => text.includes(DROPPED));
    expect(summary).toBeDefined();
    expect(summary).not.toContain(pinnedText);
    const restore = texts.find((text) =>
      text.includes("SessionStart hook additional context: cxc kept these facts"),
    );
    expect(restore, texts.join("\n---\n").slice(0, 3000)).toBeDefined();
    expect(restore).toContain("[Pinned messages, kept verbatim]");
    expect(restore).toContain(pinnedText.split("\n").slice(0, 5).join("\n"));
    // The message pinned where it stood comes back too: Claude Code kept the export's mark of it.
    expect(restore).toMatch(/\nturn \d+, the user:\n```+text\n/);
    expect(restore).toContain(lastText.split("\n")[0]!);
  }, 120_000);
});
