/**
 * Pins and facts blocks through the real Codex (agents/codex), offline against the fake provider's
 * Responses API: cxc's sample session with one tool result pinned (`keep 2.1 --only results`) and
 * the last user message pinned (`keep 20 --only user`) is masked (`-k r+t:-5calls`), summarized
 * (`-k s:..-2`) and exported; Codex resumes it and its next request carries the pinned result
 * verbatim and the facts block. Then, with cxc's hooks installed, Codex's own compaction (provoked
 * as test/agents/codex-hooks.test.ts does: a small window, a reply reporting 9000 input tokens)
 * writes a summary that drops everything, and the restore in its next request re-adds the pinned
 * result, and the user message pinned where it stood (the export marks its rollout line, and Codex
 * never rewrites a line it wrote). Codex keeps the latest user messages through its compaction,
 * cxc's summary among them, so the pinned result also stays in that kept message.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { groupTurns } from "../../src/core/conversation/turns.js";
import {
  type AgentPlace,
  requireAgent,
  runCodex,
  newAgentPlace,
  inputTexts,
  writeCodexConfig,
} from "../helpers/agents.js";
import { makeTempHome, PROJECT_ROOT, type TempHome } from "../helpers/cli.js";
import { type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { loadSample } from "../helpers/sample.js";
import { seedConversation } from "../cli/conversation-helpers.js";

const CODEX_COMPACT_PROMPT = "CONTEXT CHECKPOINT COMPACTION";
const DROPPED = "The user and the assistant worked on logcat.";

let fake: FakeProvider;
let root: string;
let place: AgentPlace;
let codex: string;
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
  const result = await cxcHome.run(args, {
    cwd: place.cwd,
    env: { HOME: place.home, CODEX_HOME: join(place.home, ".codex") },
  });
  expect(result.exitCode, `cxc ${args.join(" ")}: ${result.stderr}`).toBe(0);
  return result;
}

/** One `codex exec resume` turn in the exported session; the texts of each request it sent. */
async function codexTurn(
  prompt: string,
  config: string[] = [],
): Promise<{ route?: number; texts: string[] }[]> {
  const before = fake.requests.length;
  await runCodex(codex, place, ["resume", sessionId, prompt], { config, trustHooks: true });
  return fake.requests.slice(before).map((request) => ({
    ...(request.route === undefined ? {} : { route: request.route }),
    texts: inputTexts((request.body as { input: unknown }).input),
  }));
}

beforeAll(async () => {
  codex = requireAgent(PROJECT_ROOT, "codex");
  ({ root, place } = newAgentPlace("cxc-codex-pins-"));
  fake = await startFakeProvider({
    routes: [{ bodyIncludes: CODEX_COMPACT_PROMPT, reply: textReply(DROPPED) }],
  });
  writeCodexConfig(place.home, fake.url);
  cxcHome = makeTempHome();
  await seedConversation(cxcHome, { id: "sample000001", events: loadSample().events, active: true });
}, 60_000);

afterAll(async () => {
  await fake?.close();
  cxcHome?.cleanup();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe("pins and facts blocks inside the real Codex", () => {
  it("resume with the pinned result verbatim after masking and a summary, and the facts block", async () => {
    await cxc(["conversation", "keep", "2.1", "--only", "results"]);
    await cxc(["conversation", "keep", "20", "--only", "user"]);
    await cxc(["conversation", "compact", "-k", "r+t:-5calls"]);
    await cxc(["conversation", "compact", "-k", "s:..-2"]);
    const exported = await cxc(["conversation", "export", "--to", "codex"]);
    sessionId = /codex resume ([0-9a-f-]{36})/.exec(exported.stdout)![1]!;
    // The reply reports a context near Codex's window, for the compaction of the next turn.
    fake.enqueue(textReply("Noted.", { usage: { inputTokens: 9000 } }));
    const requests = await codexTurn("What did parse-line.ts look like?");
    expect(requests.map((request) => request.route)).toEqual([undefined]);
    const texts = requests[0]!.texts.join("\n");
    expect(texts).toContain("[Pinned messages, kept verbatim]");
    expect(texts).toContain(pinnedText);
    expect(texts).toContain("[Facts of these turns, from their raw events]");
    expect(texts).toContain("don't add dependencies");
    expect(texts).toContain(lastText.split("\n")[0]!);
  }, 120_000);

  it("gets the pinned messages back from cxc's restore after Codex's own compaction drops them", async () => {
    await cxc(["hooks", "install", "--agent", "codex"]);
    fake.enqueue(textReply("Going on."));
    const requests = await codexTurn("Go on.", [
      "model_auto_compact_token_limit=8000",
      "model_context_window=20000",
    ]);
    // Codex's own compaction (the route), then the turn's request.
    expect(requests.map((request) => request.route)).toEqual([0, undefined]);
    const texts = requests[1]!.texts;
    const summary = texts.find((text) => text.includes(DROPPED));
    expect(summary).toBeDefined();
    const restore = texts.find((text) => text.includes("cxc kept these facts"));
    expect(restore, texts.join("\n---\n").slice(0, 3000)).toBeDefined();
    expect(restore).toContain("[Pinned messages, kept verbatim]");
    expect(restore).toContain(pinnedText.split("\n").slice(0, 5).join("\n"));
    // The message pinned where it stood comes back too: the export marked its rollout line.
    expect(restore).toMatch(/\nturn \d+, the user:\n```+text\n/);
    expect(restore).toContain(lastText.split("\n")[0]!);
    // The pinned section ends with its last message, not with what Codex kept after cxc's summary.
    expect(restore).not.toContain("</summary>");
    expect(restore).not.toContain(DROPPED);
  }, 120_000);
});
