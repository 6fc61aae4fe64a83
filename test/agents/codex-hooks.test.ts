/**
 * cxc's restore inside the real Codex (agents/codex, installed by .ci/run), offline against the
 * loopback fake provider's Responses API: `cxc hooks install --agent codex` writes Codex's
 * `hooks.json`; a session whose first turn says a binding sentence and changes a file, then Codex's
 * own compaction (provoked as test/agents/codex.test.ts does: a small window, a reply reporting
 * 9000 input tokens), with a summary that drops all of it: Codex's request after compacting
 * carries the restore. `--dangerously-bypass-hook-trust` stands in for the user's review of the
 * new hook in Codex's `/hooks`.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
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

const CODEX_COMPACT_PROMPT = "CONTEXT CHECKPOINT COMPACTION";
const SUMMARY = "The user and the assistant talked about a small project.";
const BINDING = "Never touch the migrations folder.";

const exec = (id: string, cmd: string) =>
  ({ type: "tool-call", id, name: "exec_command", arguments: { cmd } }) as const;

/** The file under `directory` (at any depth) whose name contains `part`. */
function findFile(directory: string, part: string): string {
  for (const name of readdirSync(directory, { recursive: true }) as string[]) {
    if (name.includes(part)) return join(directory, name);
  }
  throw new Error(`no file with ${part} under ${directory}`);
}

let fake: FakeProvider;
let root: string;
let place: AgentPlace;
let codex: string;
let cxcHome: TempHome;

async function codexExec(
  args: string[],
  config: string[] = [],
  extraEnv: Record<string, string> = {},
): Promise<string> {
  return (await codexRun(args, config, extraEnv)).id;
}

/** One `codex exec --json`; its thread id and what it printed. */
async function codexRun(
  args: string[],
  config: string[] = [],
  extraEnv: Record<string, string> = {},
): Promise<{ id: string; stdout: string; stderr: string }> {
  return runCodex(codex, place, args, {
    config,
    env: extraEnv,
    trustHooks: true,
    sandbox: "workspace-write",
  });
}

beforeAll(async () => {
  codex = requireAgent(PROJECT_ROOT, "codex");
  ({ root, place } = newAgentPlace("cxc-codex-hooks-"));
  mkdirSync(join(place.cwd, "src"), { recursive: true });
  mkdirSync(join(place.cwd, "migrations"), { recursive: true });
  writeFileSync(join(place.cwd, "src", "app.ts"), 'export const greeting = "helo";\n');
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

describe("cxc's restore inside the real Codex", () => {
  it("puts the binding sentence and the file modified into Codex's request after it compacts", async () => {
    const env = { HOME: place.home, CODEX_HOME: join(place.home, ".codex") };
    const installed = await cxcHome.run(["hooks", "install", "--agent", "codex"], { cwd: place.cwd, env });
    expect(installed.exitCode, installed.stderr).toBe(0);
    expect(readFileSync(join(place.home, ".codex", "hooks.json"), "utf8")).toContain("hook codex");

    fake.enqueue(
      { blocks: [exec("call_h_sed", "sed -i 's/helo/hello/' src/app.ts")] },
      textReply("Fixed the greeting."),
    );
    const id = await codexExec([`${BINDING} Fix the greeting in src/app.ts.`]);
    expect(readFileSync(join(place.cwd, "src", "app.ts"), "utf8")).toContain('"hello"');
    fake.enqueue(textReply("Nothing else for now.", { usage: { inputTokens: 9000 } }));
    await codexExec(["resume", id, "Anything else?"]);

    fake.enqueue(textReply("The parser is next."));
    const before = fake.requests.length;
    await codexExec(
      ["resume", id, "What is next?"],
      ["model_auto_compact_token_limit=8000", "model_context_window=20000"],
    );
    const requests = fake.requests.slice(before);
    // Codex's own compaction (the route), then the turn's request.
    expect(requests.map((request) => request.route)).toEqual([0, undefined]);
    const texts = inputTexts((requests[1]!.body as { input: unknown }).input);
    expect(texts.some((text) => text.includes(SUMMARY))).toBe(true);
    const restore = texts.find((text) => text.includes("cxc kept these facts"));
    expect(restore, texts.join("\n---\n").slice(0, 3000)).toBeDefined();
    expect(restore).toContain(`- "${BINDING}" (turn 1)`);
    expect(restore).toContain("Files modified: src/app.ts");
    const log = join(place.home, ".local", "state", "cxc", "hooks.log");
    expect(() => readFileSync(log, "utf8")).toThrow();
  });

  it("advises at the end of a turn over the notice line (Codex's Stop hook)", async () => {
    const env = { HOME: place.home, CODEX_HOME: join(place.home, ".codex") };
    const installed = await cxcHome.run(["hooks", "install", "--agent", "codex"], { cwd: place.cwd, env });
    expect(installed.exitCode, installed.stderr).toBe(0);
    fake.enqueue(
      { blocks: [exec("call_s_1", "ls")] },
      { blocks: [exec("call_s_2", "cat src/app.ts")] },
      textReply("Listed and read.", { usage: { inputTokens: 12_000, outputTokens: 40 } }),
    );
    const lines = {
      CXC_ADVISOR_NOTICE_TOKENS: "1000",
      CXC_ADVISOR_RECOMMEND_TOKENS: "10000",
      CXC_ADVISOR_REQUEST_TOKENS: "100000000",
    };
    const run = await codexRun(["List the files, then read src/app.ts."], [], lines);
    // Codex ran cxc's Stop hook at the end of the turn: the session's record holds the tier it
    // announced (`codex exec` prints no hook message; the TUI shows a Stop hook's systemMessage).
    const record = JSON.parse(
      readFileSync(join(place.home, ".local", "state", "cxc", "hooks", "codex", `${run.id}.json`), "utf8"),
    ) as Record<string, unknown>;
    expect(record.last_announced).toBe("recommend");
    // What the hook answered, asked again on the rollout Codex wrote (as another session).
    const rollout = findFile(join(place.home, ".codex", "sessions"), run.id);
    const asked = await cxcHome.run(["hook", "codex"], {
      cwd: place.cwd,
      env: { ...env, ...lines },
      input: JSON.stringify({
        hook_event_name: "Stop",
        session_id: "another-session",
        transcript_path: rollout,
        cwd: place.cwd,
      }),
    });
    expect(asked.exitCode, asked.stderr).toBe(0);
    const message = (JSON.parse(asked.stdout) as { systemMessage: string }).systemMessage;
    expect(message).toContain("cxc advisor: Recommended: compact now. Context is at 12.0k tokens");
    expect(message).toContain("To compact, type: /compact");
  });
});
