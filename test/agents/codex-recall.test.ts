/**
 * Recall inside the real Codex (agents/codex, installed by .ci/run), offline against the loopback
 * fake provider's Responses API in a temporary HOME (docs/recall.md, "Inside Claude Code and
 * Codex"): `cxc hooks install --agent codex` writes Codex's `hooks.json` and registers `cxc mcp`
 * with Codex's own `codex mcp add`; a turn whose command printed a long log; Codex's own
 * compaction (provoked as test/agents/codex.test.ts does: a small window, a reply reporting 9000
 * input tokens) with a summary that drops it; the restore carries the recall index; the model
 * calls cxc's `recall` with the reference from the restore, and Codex's next request carries the
 * log byte for byte as the model was first sent it. A session resumed in a new process is known
 * from its start; two Codex processes alive at once in the project, the first session resumed
 * and a new one, each recall their own session only.
 * `--dangerously-bypass-hook-trust` stands in for the user's review of the new
 * hooks in Codex's `/hooks`.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
import { runOverlapping } from "../helpers/overlapping-sessions.js";

const CODEX_COMPACT_PROMPT = "CONTEXT CHECKPOINT COMPACTION";
const SUMMARY = "The user asked about a deploy; the assistant looked at a log.";
const SECRET_LINE = "ERR_DB_7731: connection refused at db.internal:5432 (pool exhausted)";
const LOG = `${Array.from({ length: 120 }, (_, index) => `2026-12-01T10:00:${String(index % 60).padStart(2, "0")}Z worker ${index}: ok`).join("\n")}\n${SECRET_LINE}\n`;

const exec = (id: string, cmd: string) =>
  ({ type: "tool-call", id, name: "exec_command", arguments: { cmd } }) as const;
/** A call of cxc's `recall`, as the model makes it in Codex: `recall` in the namespace `mcp__cxc`. */
const recallCall = (id: string, input: Record<string, unknown>) =>
  ({ type: "tool-call", id, name: "recall", namespace: "mcp__cxc", arguments: input }) as const;

type Item = Record<string, unknown>;

let fake: FakeProvider;
let root: string;
let place: AgentPlace;
let codex: string;
let cxcHome: TempHome;

/** One `codex exec --json` in the project; its thread id. */
async function codexExec(args: string[], config: string[] = []): Promise<string> {
  return (await runCodex(codex, place, args, { config, trustHooks: true, sandbox: "workspace-write" })).id;
}

/** The output of the call `id` in a Responses request's input. */
function output(body: unknown, id: string): string | undefined {
  for (const item of (body as { input: Item[] }).input)
    if (item.type === "function_call_output" && item.call_id === id)
      return typeof item.output === "string" ? item.output : JSON.stringify(item.output);
  return undefined;
}

/**
 * What an MCP tool's call `id` returned, in a Responses request's input: Codex sends it as content
 * parts, its own `Wall time` line first, then the server's text.
 */
function recallOutput(body: unknown, id: string): string {
  for (const item of (body as { input: Item[] }).input) {
    if (item.type !== "function_call_output" || item.call_id !== id) continue;
    if (typeof item.output === "string") return item.output;
    const parts = (item.output as { type: string; text?: string }[]).map((part) => part.text ?? "");
    expect(parts[0]).toMatch(/^Wall time: /);
    return parts.slice(1).join("");
  }
  throw new Error(`no output of ${id}`);
}

beforeAll(async () => {
  codex = requireAgent(PROJECT_ROOT, "codex");
  ({ root, place } = newAgentPlace("cxc-codex-recall-"));
  writeFileSync(join(place.cwd, "app.log"), LOG);
  fake = await startFakeProvider({
    routes: [{ bodyIncludes: CODEX_COMPACT_PROMPT, reply: textReply(SUMMARY) }],
  });
  writeCodexConfig(place.home, fake.url);
  cxcHome = makeTempHome();
}, 60_000);

afterAll(async () => {
  await fake?.close();
  cxcHome?.cleanup();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe("recall inside the real Codex", () => {
  it("reads back, byte for byte, the log Codex's own compaction dropped, by the restore's reference; another session cannot", async () => {
    const env = {
      HOME: place.home,
      CODEX_HOME: join(place.home, ".codex"),
      PATH: `${dirname(codex)}:${cxcHome.env.PATH}`,
    };
    const installed = await cxcHome.run(["hooks", "install", "--agent", "codex"], { cwd: place.cwd, env });
    expect(installed.exitCode, installed.stderr).toBe(0);
    expect(installed.stdout).toContain(
      "Registered cxc's MCP server (recall) with `codex mcp add` (user scope).",
    );
    expect(readFileSync(join(place.home, ".codex", "config.toml"), "utf8")).toContain("[mcp_servers.cxc]");

    fake.enqueue({ blocks: [exec("call_log", "cat app.log")] }, textReply("The worker pool failed."));
    const id = await codexExec(["Why did the deploy fail? Look at app.log."]);
    const first = fake.requests.filter((request) => request.route === undefined);
    // Codex offers an MCP server's tools as a namespace: `recall` inside `mcp__cxc`.
    const offered = (first[0]!.body as { tools: Item[] }).tools.find((tool) => tool.name === "mcp__cxc");
    expect(offered?.type).toBe("namespace");
    expect(((offered?.tools ?? []) as Item[]).map((tool) => tool.name)).toEqual(["recall"]);
    const sent = output(first[1]!.body, "call_log")!;
    expect(sent).toContain(SECRET_LINE);

    fake.enqueue(textReply("Noted.", { usage: { inputTokens: 9000 } }));
    await codexExec(["resume", id, "Thanks, keep that in mind."]);

    const before = fake.requests.length;
    fake.enqueue(
      { blocks: [recallCall("call_recall", { reference: "turn 1, call 1" })] },
      textReply("ERR_DB_7731: the pool was exhausted."),
    );
    await codexExec(
      ["resume", id, "What was the exact error code?"],
      ["model_auto_compact_token_limit=8000", "model_context_window=20000"],
    );
    const requests = fake.requests.slice(before);
    // Codex's own compaction (the route), the turn's request, and the one after the recall call.
    expect(requests.map((request) => request.route)).toEqual([0, undefined, undefined]);
    const texts = inputTexts((requests[1]!.body as { input: unknown }).input);
    // The summary dropped the log; the restore lists it with the reference the model uses.
    expect(texts.some((text) => text.includes(SUMMARY))).toBe(true);
    expect(texts.some((text) => text.includes(SECRET_LINE))).toBe(false);
    const restore = texts.find((text) => text.includes("[Recall index:"));
    expect(restore, texts.join("\n---\n").slice(-3000)).toMatch(
      /\nturn 1, call 1: exec_command cat app\.log \([\d.]+k chars\)/,
    );
    const recalled = recallOutput(requests[2]!.body, "call_recall");
    expect(recalled).toContain("turn 1, call 1: exec_command\narguments:\n");
    // The command's output as the model was first sent it, whole and byte for byte.
    expect(sent.endsWith(`${SECRET_LINE}\n`)).toBe(true);
    expect(recalled.includes(`result:\n${sent}`), recalled.slice(-300)).toBe(true);

    // A resumed session, in a new Codex process, is known from its start (cxc's SessionStart
    // hook, source resume): recall answers in its first request, before any turn has ended.
    const resumed = fake.requests.length;
    fake.enqueue(
      { blocks: [recallCall("call_again", { query: "ERR_DB_7731" })] },
      textReply("Found it again."),
    );
    await codexExec(["resume", id, "Find that error code again."]);
    const again = fake.requests.slice(resumed);
    expect(again).toHaveLength(2);
    const found = recallOutput(again[1]!.body, "call_again");
    expect(found).toContain("turn 1, call 1");
    expect(found).toContain(SECRET_LINE);

    // Two Codex processes alive at once in the project: the first session resumed (A) and a new
    // one (B). A's first answer is held until B has run whole, so when A's model calls recall the
    // project's newest rollout is B's: each server reads its own session all the same.
    const runs = await runOverlapping(
      fake,
      {
        prompt: "Resumed: what was that error code?",
        first: { blocks: [recallCall("call_a_query", { query: "ERR_DB_7731" })] },
        later: textReply("A: found it."),
        run: (prompt) => codexExec(["resume", id, prompt]),
      },
      {
        prompt: "New here: what was the error code of the deploy?",
        first: {
          blocks: [
            recallCall("call_b_ref", { reference: "turn 1, call 1" }),
            recallCall("call_b_query", { query: "ERR_DB_7731" }),
          ],
        },
        later: textReply("B: I cannot see that."),
        run: (prompt) => codexExec([prompt]),
      },
    );
    expect(runs.aRequestsWhileB).toBe(1);
    expect(runs.a.session).toBe(id);
    expect(runs.b.session).not.toBe(id);
    const answeredB = runs.b.bodies;
    expect(answeredB).toHaveLength(2);
    const byReference = recallOutput(answeredB[1], "call_b_ref");
    const byQuery = recallOutput(answeredB[1], "call_b_query");
    // B's server knows its session (not "does not know"): there is nothing hidden in it.
    expect(byReference).toMatch(
      /^recall: turn 1(, call 1)? (is not in this conversation|is not hidden|does not exist)/,
    );
    expect(byQuery).toMatch(/^Nothing is hidden from this conversation/);
    for (const text of [byReference, byQuery]) {
      expect(text).not.toContain("ERR_DB_7731");
      expect(text).not.toContain("worker 7: ok");
    }
    // A's server, asked after B's rollout was written, reads A's.
    const answeredA = runs.a.bodies;
    expect(answeredA).toHaveLength(2);
    const foundA = recallOutput(answeredA[1], "call_a_query");
    expect(foundA).toContain("turn 1, call 1");
    expect(foundA).toContain(SECRET_LINE);
  }, 240_000);
});
