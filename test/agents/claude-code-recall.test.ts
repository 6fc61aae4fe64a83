/**
 * Recall inside the real Claude Code (agents/, installed by .ci/run), offline against the loopback
 * fake provider in a temporary HOME (docs/recall.md, "Inside Claude Code and Codex"): `cxc hooks
 * install` registers `cxc mcp` with Claude Code's own `claude mcp add`; a turn whose Bash call
 * printed a long log; Claude Code's own `/compact` with a summary that drops it; the restore
 * carries the recall index; then the model calls `mcp__cxc__recall` with the reference from the
 * restore, and Claude Code's next request carries the log byte for byte as the model was first
 * sent it. Each step is one `claude -p` run of the same session. Then a process started with
 * `--continue` (its command line names no session) recalls in its first request (cxc's
 * `SessionStart` hook recorded it at its start); and two Claude Code processes alive at once in
 * the project, the first session resumed and a new one, each recall their own session only.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
import { runOverlapping } from "../helpers/overlapping-sessions.js";

const MODEL = "claude-sonnet-4-5";
const CLAUDE_COMPACT_PROMPT = "Your task is to create a detailed summary of the conversation so far";
const SUMMARY = "The user asked about a deploy; the assistant looked at a log.";
const SECRET_LINE = "ERR_DB_7731: connection refused at db.internal:5432 (pool exhausted)";
const LOG = `${Array.from({ length: 120 }, (_, index) => `2026-12-01T10:00:${String(index % 60).padStart(2, "0")}Z worker ${index}: ok`).join("\n")}\n${SECRET_LINE}\n`;

const call = (id: string, name: string, input: Record<string, unknown>) =>
  ({ type: "tool-call", id, name, arguments: input }) as const;

let fake: FakeProvider;
let root: string;
let place: AgentPlace;
let claude: string;
let cxcHome: TempHome;
let sessionId: string | undefined;

/**
 * One `claude -p` run: of the session (`--resume` it), `--continue`d (the command line names no
 * session), or a new session in the same project. Returns the run's session id.
 */
async function claudeRun(prompt: string, how: "resume" | "continue" | "new" = "resume"): Promise<string> {
  const resume =
    how === "continue"
      ? ["--continue"]
      : how === "new" || sessionId === undefined
        ? []
        : ["--resume", sessionId];
  const result = await runAgent(
    claude,
    [
      "-p",
      prompt,
      "--output-format",
      "stream-json",
      "--verbose",
      "--model",
      MODEL,
      "--allowedTools",
      "Bash mcp__cxc__recall",
      ...resume,
    ],
    // Tool search off: the pinned Claude Code otherwise offers MCP tools through its ToolSearch
    // tool, and the scripted model calls recall directly.
    { cwd: place.cwd, env: { ...claudeCodeEnvironment(place, fake.url), ENABLE_TOOL_SEARCH: "false" } },
  );
  expect(result.code, `claude: ${result.stderr.slice(0, 400)} ${result.stdout.slice(-400)}`).toBe(0);
  const events = result.stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const id = events.find((event) => typeof event.session_id === "string")!.session_id as string;
  sessionId ??= id;
  return id;
}

/** The tool results of a request, by call id. */
function results(body: unknown): Map<string, string> {
  const found = new Map<string, string>();
  for (const message of (body as { messages: { content: unknown }[] }).messages) {
    if (!Array.isArray(message.content)) continue;
    for (const part of message.content as { type: string; tool_use_id?: string; content?: unknown }[])
      if (part.type === "tool_result")
        found.set(
          String(part.tool_use_id),
          typeof part.content === "string"
            ? part.content
            : (part.content as { text?: string }[]).map((block) => block.text ?? "").join(""),
        );
  }
  return found;
}

beforeAll(async () => {
  claude = requireAgent(PROJECT_ROOT, "claude");
  ({ root, place } = newAgentPlace("cxc-claude-recall-"));
  mkdirSync(join(place.home, ".claude"), { recursive: true });
  writeFileSync(join(place.cwd, "app.log"), LOG);
  fake = await startFakeProvider({
    routes: [{ bodyIncludes: CLAUDE_COMPACT_PROMPT, reply: textReply(`<summary>${SUMMARY}</summary>`) }],
  });
  cxcHome = makeTempHome();
}, 60_000);

afterAll(async () => {
  await fake?.close();
  cxcHome?.cleanup();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe("recall inside the real Claude Code", () => {
  it("reads back, byte for byte, the log Claude Code's own compaction dropped, by the restore's reference", async () => {
    const env = { HOME: place.home, PATH: `${dirname(claude)}:${cxcHome.env.PATH}` };
    const installed = await cxcHome.run(["hooks", "install", "--agent", "claude-code", "--user"], {
      cwd: place.cwd,
      env,
    });
    expect(installed.exitCode, installed.stderr).toBe(0);
    expect(installed.stdout).toContain(
      "Registered cxc's MCP server (recall) with `claude mcp add` (user scope).",
    );

    fake.enqueue(
      { blocks: [call("toolu_log", "Bash", { command: "cat app.log", description: "Print the log" })] },
      textReply("The worker pool failed."),
    );
    await claudeRun("Why did the deploy fail? Look at app.log.");
    const first = fake.requests.filter((request) => request.route === undefined);
    const offered = (first[0]!.body as { tools: { name: string }[] }).tools.map((tool) => tool.name);
    expect(offered).toContain("mcp__cxc__recall");
    const sent = results(first[1]!.body).get("toolu_log")!;
    expect(sent).toContain(SECRET_LINE);

    // A second turn: Claude Code's compaction keeps the last messages verbatim (cxc's reader then
    // keeps their turn whole), so the log's turn is the one before them.
    fake.enqueue(textReply("Noted."));
    await claudeRun("Thanks, keep that in mind.");
    await claudeRun("/compact");
    const before = fake.requests.length;
    fake.enqueue(
      { blocks: [call("toolu_recall", "mcp__cxc__recall", { reference: "turn 1, call 1" })] },
      textReply("ERR_DB_7731: the pool was exhausted."),
    );
    await claudeRun("What was the exact error code?");
    const after = fake.requests.slice(before).filter((request) => request.route === undefined);
    expect(after).toHaveLength(2);
    const texts = messageTexts((after[0]!.body as { messages: unknown }).messages).join("\n");
    // The summary dropped the log; the restore lists it with the reference the model uses.
    expect(texts).toContain(SUMMARY);
    expect(texts).not.toContain(SECRET_LINE);
    expect(texts).toMatch(/\nturn 1, call 1: Bash cat app\.log Print the log \([\d.]+k chars\)/);
    const recalled = results(after[1]!.body).get("toolu_recall")!;
    expect(recalled).toContain(`turn 1, call 1: Bash\narguments:\n`);
    // The Bash output as the model was first sent it, whole and byte for byte (Claude Code adds a
    // reminder of its own after a tool result in each request: that is not the tool's output).
    const output = sent.slice(0, sent.indexOf("\n\n<system-reminder>"));
    expect(output.endsWith(SECRET_LINE)).toBe(true);
    expect(recalled.includes(`result:\n${output}`), recalled.slice(-300)).toBe(true);
    expect(recalled).toContain(SECRET_LINE);

    // A process started with `--continue` (its command line names no session) is known from its
    // start (cxc's SessionStart hook, source resume): recall answers in its first request.
    const continued = fake.requests.length;
    fake.enqueue(
      { blocks: [call("toolu_again", "mcp__cxc__recall", { query: "ERR_DB_7731" })] },
      textReply("Found it again."),
    );
    // (The pinned Claude Code, in print mode, goes on in a new session file that holds the history.)
    await claudeRun("Find that error code again.", "continue");
    const again = fake.requests.slice(continued).filter((request) => request.route === undefined);
    expect(again).toHaveLength(2);
    const found = results(again[1]!.body).get("toolu_again")!;
    expect(found).toContain("turn 1, call 1");
    expect(found).toContain(SECRET_LINE);

    // Two Claude Code processes alive at once in the project: the first session resumed (A) and a
    // new one (B). A's first answer is held until B has run whole, so when A's model calls recall
    // the project's newest transcript is B's: each server reads its own session all the same.
    const runs = await runOverlapping(
      fake,
      {
        prompt: "Resumed: what was that error code?",
        first: { blocks: [call("toolu_a_query", "mcp__cxc__recall", { query: "ERR_DB_7731" })] },
        later: textReply("A: found it."),
        run: (prompt) => claudeRun(prompt),
      },
      {
        prompt: "New here: what was the error code of the deploy?",
        first: {
          blocks: [
            call("toolu_b_ref", "mcp__cxc__recall", { reference: "turn 1, call 1" }),
            call("toolu_b_query", "mcp__cxc__recall", { query: "ERR_DB_7731" }),
          ],
        },
        later: textReply("B: I cannot see that."),
        run: (prompt) => claudeRun(prompt, "new"),
      },
    );
    expect(runs.aRequestsWhileB).toBe(1);
    expect(runs.a.session).toBe(sessionId);
    expect(runs.b.session).not.toBe(sessionId);
    const answeredB = runs.b.bodies;
    expect(answeredB).toHaveLength(2);
    const byReference = results(answeredB[1]).get("toolu_b_ref")!;
    const byQuery = results(answeredB[1]).get("toolu_b_query")!;
    // B's server knows its session (not "does not know"): there is nothing hidden in it.
    expect(byReference).toMatch(
      /^recall: turn 1(, call 1)? (is not in this conversation|is not hidden|does not exist)/,
    );
    expect(byQuery).toMatch(/^Nothing is hidden from this conversation/);
    for (const text of [byReference, byQuery]) {
      expect(text).not.toContain("ERR_DB_7731");
      expect(text).not.toContain("worker 7: ok");
    }
    // A's server, asked after B's transcript was written, reads A's.
    const answeredA = runs.a.bodies;
    expect(answeredA).toHaveLength(2);
    const foundA = results(answeredA[1]).get("toolu_a_query")!;
    expect(foundA).toContain("turn 1, call 1");
    expect(foundA).toContain(SECRET_LINE);
  }, 240_000);
});
