/**
 * cxc's plugin inside the real opencode (agents/opencode, installed by .ci/run), offline against
 * the loopback fake provider in a temporary HOME: `cxc hooks install --agent opencode` writes cxc's
 * plugin file into opencode's `plugins/` folder (and uninstall removes it and the folder it made);
 * over a low notice line the advice runs at `session.idle` (its record names the tier); after
 * opencode's own compaction, with a summary that drops everything, opencode's next request carries
 * the user's binding sentence verbatim and the file read after the summary, and, with
 * `hooks.restore.compaction_prompt` on, its summarizer's prompt carries them too; a session cxc
 * exported with a message pinned in place (its part marked), resumed and compacted by opencode,
 * gets that message back verbatim after opencode's summary. Three opencode runs of a few seconds
 * each, in order.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentPlace,
  requireAgent,
  newAgentPlace,
  messageTexts,
  nodeWithSqlite,
  OPENCODE_COMPACT_PROMPT,
  OPENCODE_TITLE_PROMPT,
  opencodeEnvironment,
  runAgent,
  writeOpencodeConfig,
} from "../helpers/agents.js";
import { CXC_BIN, makeTempHome, PROJECT_ROOT, type TempHome } from "../helpers/cli.js";
import { type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";

const RULE = "Never touch the migrations folder.";
const SUMMARY = "The user and the assistant talked about a small project.";
const HEADING = "cxc kept these facts of the conversation before this compaction";
const LINES = {
  CXC_ADVISOR_NOTICE_TOKENS: "5",
  CXC_ADVISOR_RECOMMEND_TOKENS: "100000000",
  CXC_ADVISOR_REQUEST_TOKENS: "200000000",
};

type Message = { role: string; content: unknown };

let fake: FakeProvider;
let root: string;
let place: AgentPlace;
let opencode: string;
let cxcHome: TempHome;
let plugin: string;
let sessionId: string | undefined;

function cxc(args: string[]) {
  return cxcHome.run(args, { cwd: place.cwd, env: opencodeEnvironment(place) });
}

/**
 * `cxc hooks install --agent opencode` run by a Node with `node:sqlite` when there is one (the
 * plugin then runs its hooks with it and reads opencode's database directly; under Node 20 it
 * goes through `opencode db`, as test/agents/opencode.test.ts shows both readers agree).
 */
async function install(): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const node = nodeWithSqlite(PROJECT_ROOT) ?? process.execPath;
  const { execa } = await import("execa");
  const result = await execa(node, [CXC_BIN, "hooks", "install", "--agent", "opencode"], {
    cwd: place.cwd,
    env: { ...cxcHome.env, ...opencodeEnvironment(place) },
    extendEnv: false,
    reject: false,
  });
  return { exitCode: result.exitCode ?? 1, stdout: result.stdout, stderr: result.stderr };
}

/** `opencode run` in the session (the first run starts it); the prompt's words as arguments. */
async function opencodeRun(prompt: string, env: Record<string, string> = {}): Promise<void> {
  const args = ["run", ...(sessionId === undefined ? [] : ["--session", sessionId]), ...prompt.split(" ")];
  const result = await runAgent(opencode, args, {
    cwd: place.cwd,
    env: { ...opencodeEnvironment(place), ...LINES, ...env },
  });
  expect(result.code, `opencode: ${result.stderr.slice(-800)}`).toBe(0);
  if (sessionId === undefined) {
    const listed = await runAgent(opencode, ["session", "list", "--format", "json"], {
      cwd: place.cwd,
      env: opencodeEnvironment(place),
    });
    sessionId = (JSON.parse(listed.stdout) as { id: string }[])[0]!.id;
  }
}

beforeAll(async () => {
  opencode = requireAgent(PROJECT_ROOT, "opencode");
  ({ root, place } = newAgentPlace("cxc-opencode-hooks-"));
  writeFileSync(join(place.cwd, "notes.txt"), "remember the milk\n");
  fake = await startFakeProvider({
    routes: [
      { bodyIncludes: OPENCODE_TITLE_PROMPT, reply: textReply("Notes") },
      { bodyIncludes: OPENCODE_COMPACT_PROMPT, reply: textReply(SUMMARY) },
    ],
  });
  // A small window: a reply reporting 18,000 input tokens makes opencode compact after it.
  writeOpencodeConfig(place.home, fake.url, { context: 20_000, output: 4096 });
  plugin = join(place.home, ".config", "opencode", "plugins", "cxc.js");
  cxcHome = makeTempHome();
}, 60_000);

afterAll(async () => {
  await fake?.close();
  cxcHome?.cleanup();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe("cxc's plugin inside opencode", () => {
  it("installs as a plugin file, and advises at session.idle over a low notice line", async () => {
    const installed = await install();
    expect(installed.exitCode, installed.stderr).toBe(0);
    expect(installed.stdout).toContain(`Installed cxc's opencode plugin as ${plugin}`);
    expect(readFileSync(plugin, "utf8")).toMatch(/^\/\/ cxc's plugin for opencode/);
    const again = await install();
    expect(again.stdout).toContain("already installed");

    fake.enqueue(
      {
        blocks: [
          {
            type: "tool-call",
            id: "toolu_notes",
            name: "read",
            arguments: { filePath: join(place.cwd, "notes.txt") },
          },
        ],
      },
      textReply("Your notes say: remember the milk."),
    );
    await opencodeRun(`${RULE} What do my notes say?`);
    const record = JSON.parse(
      readFileSync(
        join(place.home, ".local", "state", "cxc", "hooks", "opencode", `${sessionId}.json`),
        "utf8",
      ),
    ) as { last_announced?: string };
    expect(record.last_announced).toBe("notice");
  }, 90_000);

  it("brings the binding sentence and the file read back after opencode compacts, into its summarizer too when asked", async () => {
    const from = fake.requests.length;
    fake.enqueue(
      textReply("There is nothing else.", { usage: { inputTokens: 18_000 } }),
      textReply("Carrying on after the compaction."),
    );
    await opencodeRun("What else is there?", { CXC_HOOKS__RESTORE__COMPACTION_PROMPT: "true" });
    const requests = fake.requests.slice(from);
    const summarizer = requests.find((request) => request.route === 1);
    expect(summarizer, "opencode compacted").toBeDefined();
    expect(JSON.stringify(summarizer!.body)).toContain(RULE);
    const after = requests.filter((request) => request.route === undefined).at(-1)!;
    const texts = messageTexts((after.body as { messages: Message[] }).messages);
    const summary = texts.findIndex((text) => text.includes(SUMMARY));
    expect(summary).toBeGreaterThan(-1);
    const restored = texts.slice(summary).find((text) => text.includes(HEADING));
    expect(restored).toBeDefined();
    expect(restored).toContain(`- "${RULE}" (turn 1)`);
    expect(restored).toContain("notes.txt");
    expect(fake.remaining()).toBe(0);
  }, 120_000);

  it("brings back a message pinned in place in a session cxc exported, after opencode compacts it", async () => {
    // opencode on cxc's PATH: the export runs `opencode import`.
    const bin = join(root, "bin");
    mkdirSync(bin, { recursive: true });
    if (!existsSync(join(bin, "opencode"))) symlinkSync(opencode, join(bin, "opencode"));
    const env = { ...opencodeEnvironment(place), PATH: `${bin}:${opencodeEnvironment(place).PATH}` };
    const fixture = join(PROJECT_ROOT, "fixtures", "agents", "opencode", "session.json");
    const imported = await cxcHome.run(["conversation", "import", fixture], { cwd: place.cwd, env });
    expect(imported.exitCode, imported.stderr).toBe(0);
    expect((await cxcHome.run(["conversation", "keep", "4", "--only", "user"], { env })).exitCode).toBe(0);
    const exported = await cxcHome.run(["conversation", "export", "--to", "opencode"], {
      cwd: place.cwd,
      env,
    });
    expect(exported.exitCode, exported.stderr).toBe(0);
    const match = /opencode --session (ses_\w+)/.exec(exported.stdout);
    expect(match, exported.stdout).not.toBeNull();
    sessionId = match![1]!;

    const from = fake.requests.length;
    fake.enqueue(
      textReply("Nothing more.", { usage: { inputTokens: 18_000 } }),
      textReply("Carrying on after the compaction."),
    );
    await opencodeRun("Anything more?");
    const requests = fake.requests.slice(from);
    expect(
      requests.some((request) => request.route === 1),
      "opencode compacted",
    ).toBe(true);
    const after = requests.filter((request) => request.route === undefined).at(-1)!;
    const texts = messageTexts((after.body as { messages: Message[] }).messages);
    const summary = texts.findIndex((text) => text.includes(SUMMARY));
    expect(summary).toBeGreaterThan(-1);
    const restored = texts.slice(summary).find((text) => text.includes(HEADING));
    expect(restored).toBeDefined();
    expect(restored).toContain("[Pinned messages, kept verbatim]");
    // The turn's number is the resumed session's: the message itself comes verbatim.
    expect(restored).toMatch(/\nturn \d+, the user:\n```text\nWhat should I do first\?\n```/);
    expect(fake.remaining()).toBe(0);
  }, 120_000);

  it("uninstall removes the plugin file and the folder it made", async () => {
    const removed = await cxc(["hooks", "uninstall", "--agent", "opencode"]);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(existsSync(plugin)).toBe(false);
    expect(readdirSync(join(place.home, ".config", "opencode"))).not.toContain("plugins");
    const log = join(place.home, ".local", "state", "cxc", "hooks.log");
    expect(existsSync(log) ? readFileSync(log, "utf8") : "").toBe("");
  });
});
