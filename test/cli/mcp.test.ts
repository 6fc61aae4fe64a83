/**
 * `cxc mcp` (docs/recall.md, "Inside Claude Code and Codex"): a stdio MCP server on the official
 * SDK that always lists `recall` and reads the transcript of the session its agent process
 * recorded (cxc's hook at `Stop` and `SessionStart`), and no other. Each "agent" here is a process of its own
 * (test/helpers/mcp-agent.mjs) that runs cxc's hook through a shell and starts `cxc mcp` as its
 * child with the SDK's client, as Claude Code and Codex do; two of them run at once in one project.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agentBinary } from "../helpers/agents.js";
import { CXC_BIN, makeTempHome, PROJECT_ROOT, type TempHome } from "../helpers/cli.js";

const AGENT = join(PROJECT_ROOT, "test", "helpers", "mcp-agent.mjs");
const FIXTURE = join(PROJECT_ROOT, "fixtures", "agents", "claude-code", "session.jsonl");

let home: TempHome;
let project: string;

beforeEach(() => {
  home = makeTempHome();
  project = join(home.cwd, "project");
  mkdirSync(project, { recursive: true });
});
afterEach(() => home.cleanup());

interface AgentRun {
  readonly tools: { name: string; description: string; inputSchema: unknown }[];
  readonly results: { text: string; isError: boolean }[];
}

async function agent(plan: Record<string, unknown>): Promise<AgentRun> {
  const run = await execa(process.execPath, [AGENT, JSON.stringify({ bin: CXC_BIN, ...plan })], {
    env: { ...home.env, XDG_STATE_HOME: join(home.cwd, "state") },
    extendEnv: false,
    cwd: project,
    timeout: 60_000,
  });
  return JSON.parse(String(run.stdout)) as AgentRun;
}

/** A Claude Code transcript of the fixture, its hidden note's words replaced. */
function transcript(name: string, note: string): string {
  const path = join(home.cwd, `${name}.jsonl`);
  if (note === "remember the milk") copyFileSync(FIXTURE, path);
  else writeFileSync(path, readFileSync(FIXTURE, "utf8").replaceAll("remember the milk", note));
  return path;
}

/**
 * A turn whose tool printed `output`, then Claude Code's own compaction of it, as the agent appends
 * them to the fixture's session: one JSONL text.
 */
function compactedTurn(output: string): string {
  const common = {
    isSidechain: false,
    sessionId: "3b513450-3d6c-443e-9a7e-01eceba20536",
    cwd: "/home/user/project",
    userType: "external",
    version: "2.1.332",
  };
  const at = (second: number) => ({ timestamp: `2026-12-01T10:20:0${second}.000Z` });
  const assistant = (id: string, content: unknown[]) => ({
    type: "assistant",
    message: { id, role: "assistant", model: "claude-sonnet-4-5", content },
  });
  const records: Record<string, unknown>[] = [
    {
      type: "user",
      uuid: "t4-prompt",
      parentUuid: "b831bba4-f138-41c8-9513-4e2ffeeddfda",
      ...at(1),
      message: { role: "user", content: "Run the otter check." },
    },
    {
      ...assistant("msg_t4_call", [
        { type: "tool_use", id: "toolu_otter", name: "Bash", input: { command: "otter --check" } },
      ]),
      uuid: "t4-call",
      parentUuid: "t4-prompt",
      ...at(2),
    },
    {
      type: "user",
      uuid: "t4-result",
      parentUuid: "t4-call",
      ...at(3),
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_otter", content: output }],
      },
    },
    {
      ...assistant("msg_t4_answer", [{ type: "text", text: "The check passed." }]),
      uuid: "t4-answer",
      parentUuid: "t4-result",
      ...at(4),
    },
    {
      type: "system",
      subtype: "compact_boundary",
      uuid: "t4-boundary",
      parentUuid: null,
      logicalParentUuid: "t4-answer",
      content: "Conversation compacted",
      compactMetadata: { trigger: "auto", preTokens: 900 },
      ...at(5),
    },
    {
      type: "user",
      uuid: "t4-summary",
      parentUuid: "t4-boundary",
      isCompactSummary: true,
      ...at(6),
      message: {
        role: "user",
        content:
          "This session is being continued from a previous conversation.\n\nSummary:\nThe otter check ran.",
      },
    },
  ];
  return records.map((record) => `${JSON.stringify({ ...common, ...record })}\n`).join("");
}

describe("cxc mcp", () => {
  it("serves recall over its own session's transcript; two sessions in one project never read each other's", async () => {
    const first = transcript("first", "remember the milk");
    const second = transcript("second", "water the ferns");
    const calls = [{ query: "milk" }, { query: "ferns" }, { reference: "turn 1" }, { reference: "turn 9" }];
    const [a, b] = await Promise.all([
      agent({
        agent: "claude-code",
        session: { session_id: "session-a", transcript_path: first, cwd: project },
        calls,
      }),
      agent({
        agent: "claude-code",
        session: {
          hook_event_name: "SessionStart",
          source: "compact",
          session_id: "session-b",
          transcript_path: second,
          cwd: project,
        },
        calls,
      }),
    ]);
    for (const run of [a, b]) {
      expect(run.tools.map((tool) => tool.name)).toEqual(["recall"]);
      expect(run.tools[0]!.inputSchema).toMatchObject({ type: "object" });
    }
    // A finds its own note, never B's; B the reverse.
    expect(a.results[0]!.text).toContain("turn 1: ");
    expect(a.results[0]!.text).toContain("remember the milk");
    expect(a.results[1]!.text).toMatch(/^No hidden content matches ferns\./);
    expect(b.results[0]!.text).toMatch(/^No hidden content matches milk\./);
    expect(b.results[1]!.text).toContain("water the ferns");
    // The summarized turn read back whole, from its own transcript.
    expect(a.results[2]!.isError).toBe(false);
    expect(a.results[2]!.text).toContain("user:\nWhat files are here? And what do my notes say: @notes.txt");
    expect(a.results[2]!.text).toContain("remember the milk");
    expect(b.results[2]!.text).not.toContain("remember the milk");
    expect(a.results[3]).toEqual({
      text: "recall: turn 9 is not in this conversation: it has 3 turns; use a reference from the recall index",
      isError: true,
    });
  });

  it("reads what the agent appended since the last call; a transcript replaced or truncated is read whole again", async () => {
    const path = transcript("first", "remember the milk");
    const ferns = readFileSync(FIXTURE, "utf8").replaceAll("remember the milk", "water the ferns");
    const appended = compactedTurn("otter-4471 passed");
    // The agent is still writing the third record when the second call comes.
    const cut = appended.indexOf("otter-4471");
    const calls = [
      { query: "otter-4471" },
      { append: appended.slice(0, cut), path },
      { query: "otter-4471" },
      { append: appended.slice(cut), path },
      { query: "otter-4471" },
      { reference: "turn 4, call 1" },
      { query: "milk" },
      { replace: ferns + appended, path },
      { query: "milk" },
      { query: "ferns" },
      { write: ferns, path },
      { query: "otter-4471" },
      { query: "ferns" },
    ];
    const run = await agent({
      agent: "claude-code",
      session: { session_id: "session-a", transcript_path: path, cwd: project },
      calls,
    });
    const [before, partial, found, read, milk, replacedMilk, replacedFerns, truncated, truncatedFerns] =
      run.results;
    expect(before).toEqual({
      text: expect.stringMatching(/^No hidden content matches otter-4471\./),
      isError: false,
    });
    expect(partial).toEqual(before);
    expect(found!.isError).toBe(false);
    expect(found!.text).toContain("turn 4, call 1");
    expect(found!.text).toContain("otter-4471 passed");
    expect(read!.text).toContain("otter --check");
    expect(read!.text).toContain("otter-4471 passed");
    // What was read before the append is still there.
    expect(milk!.text).toContain("remember the milk");
    // Replaced by another file: read whole, nothing of the first one left.
    expect(replacedMilk!.text).toMatch(/^No hidden content matches milk\./);
    expect(replacedFerns!.text).toContain("water the ferns");
    // Truncated in place (the appended turn gone): read whole again.
    expect(truncated!.text).toMatch(/^No hidden content matches otter-4471\./);
    expect(truncatedFerns!.text).toContain("water the ferns");
  });

  it("lists recall without a session, and a call then is a tool error that says why", async () => {
    const run = await agent({
      agent: "codex",
      calls: [{ query: "milk" }, { reference: "turn 1", query: "x" }],
    });
    expect(run.tools.map((tool) => tool.name)).toEqual(["recall"]);
    expect(run.results[0]!.isError).toBe(true);
    expect(run.results[0]!.text).toMatch(
      /^recall: cxc does not know this session: no session is recorded yet for this codex process \(pid \d+\): cxc's hooks record it when the session starts \(SessionStart\) and at the end of each turn \(Stop\)/,
    );
    expect(run.results[1]).toMatchObject({ isError: true });
  });

  it("follows a session that changes in the same process (/clear, resume)", async () => {
    const first = transcript("first", "remember the milk");
    const run = await agent({
      agent: "claude-code",
      session: { session_id: "session-a", transcript_path: first, cwd: project },
      calls: [{ query: "milk" }],
    });
    expect(run.results[0]!.text).toContain("remember the milk");
    const state = join(home.cwd, "state", "cxc", "mcp");
    const records = (await import("node:fs")).readdirSync(state);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatch(/^claude-code-\d+\.json$/);
    const record = JSON.parse(readFileSync(join(state, records[0]!), "utf8"));
    expect(record).toMatchObject({ agent: "claude-code", session_id: "session-a", transcript_path: first });
  });

  it("the restore after the agent compacts carries the recall index, whose references the server reads", async () => {
    const first = transcript("first", "remember the milk");
    const env = { ...home.env, XDG_STATE_HOME: join(home.cwd, "state") };
    const restore = await execa(process.execPath, [CXC_BIN, "hook", "claude-code"], {
      input: JSON.stringify({
        hook_event_name: "SessionStart",
        source: "compact",
        session_id: "session-a",
        transcript_path: first,
        cwd: project,
      }),
      env,
      extendEnv: false,
      cwd: project,
    });
    const context = JSON.parse(String(restore.stdout)).hookSpecificOutput.additionalContext as string;
    const index = context.slice(context.indexOf("[Recall index"));
    const lines = index.split("\n");
    // The fixture's own earlier compaction (turn 1), then the one under way (turns 2..3).
    expect(lines.slice(1, 3)).toEqual([
      expect.stringMatching(/^turn 1: summarized \(2 calls, \d+ chars\)$/),
      expect.stringMatching(/^turns 2\.\.3: summarized \(1 call, \d+ chars\)$/),
    ]);
    const call = lines.find((line) => /^turn \d+, call \d+: Read /.test(line))!;
    expect(call).toBeDefined();
    // The reference the restore gave reads the call back through the server.
    const reference = call.slice(0, call.indexOf(":"));
    const run = await agent({
      agent: "claude-code",
      session: { session_id: "session-a", transcript_path: first, cwd: project },
      calls: [{ reference }],
    });
    expect(run.results[0]!.isError).toBe(false);
    expect(run.results[0]!.text).toMatch(new RegExp(`^${reference}: Read\narguments:\n`));
  });

  it("with recall off the restore has no index", async () => {
    const first = transcript("first", "remember the milk");
    const restore = await execa(process.execPath, [CXC_BIN, "hook", "claude-code"], {
      input: JSON.stringify({
        hook_event_name: "SessionStart",
        source: "compact",
        session_id: "s",
        transcript_path: first,
        cwd: project,
      }),
      env: {
        ...home.env,
        XDG_STATE_HOME: join(home.cwd, "state"),
        CXC_CONVERSATION__RECALL__ENABLED: "false",
      },
      extendEnv: false,
      cwd: project,
    });
    // The fixture gives the restore no facts: with the index gone it says nothing at all.
    expect(restore.exitCode).toBe(0);
    expect(String(restore.stdout)).toBe("");
  });
});

const CLAUDE = agentBinary(PROJECT_ROOT, "claude");
const CODEX = agentBinary(PROJECT_ROOT, "codex");

describe("cxc hooks install registers cxc mcp through the agent's own command", () => {
  /** The environment with the pinned agents' commands first on PATH (or none of them). */
  const withAgents = (
    binaries: readonly (string | undefined)[],
  ): Record<string, string> & { HOME: string; CODEX_HOME: string } => ({
    ...home.env,
    HOME: home.env.HOME ?? "",
    PATH: [
      ...binaries.filter((binary) => binary !== undefined).map((binary) => dirname(binary!)),
      "/usr/bin",
      "/bin",
    ].join(":"),
    CODEX_HOME: join(home.env.HOME ?? "", ".codex"),
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  });

  it.skipIf(CLAUDE === undefined)(
    "claude mcp add in the install's scope, claude mcp remove on uninstall",
    async () => {
      const env = withAgents([CLAUDE]);
      const installed = await home.run(["hooks", "install", "--agent", "claude-code"], { env });
      expect(installed.exitCode, installed.stderr).toBe(0);
      expect(installed.stdout).toContain(
        "Registered cxc's MCP server (recall) with `claude mcp add` (user scope).",
      );
      // Claude Code's own file, as Claude Code wrote it (read here, never written by cxc).
      const config = JSON.parse(readFileSync(join(env.HOME, ".claude.json"), "utf8"));
      expect(config.mcpServers.cxc).toMatchObject({
        command: process.execPath,
        args: [CXC_BIN, "mcp", "--agent", "claude-code"],
      });
      const listed = await execa(CLAUDE!, ["mcp", "get", "cxc"], { env, extendEnv: false, reject: false });
      expect(String(listed.stdout)).toContain("cxc");
      // Project scope: the project's .mcp.json, written by `claude mcp add --scope project`.
      const projectInstall = await home.run(
        ["hooks", "install", "--agent", "claude-code", "--project", project],
        { env },
      );
      expect(projectInstall.exitCode, projectInstall.stderr).toBe(0);
      expect(JSON.parse(readFileSync(join(project, ".mcp.json"), "utf8")).mcpServers.cxc.args).toEqual([
        CXC_BIN,
        "mcp",
        "--agent",
        "claude-code",
      ]);
      const removed = await home.run(["hooks", "uninstall", "--agent", "claude-code"], { env });
      expect(removed.exitCode, removed.stderr).toBe(0);
      expect(removed.stdout).toContain("Removed cxc's MCP server with `claude mcp remove --scope user cxc`.");
      expect(
        JSON.parse(readFileSync(join(env.HOME, ".claude.json"), "utf8")).mcpServers?.cxc,
      ).toBeUndefined();
    },
  );

  it.skipIf(CODEX === undefined)(
    "codex mcp add for the user; a project install prints the command instead",
    async () => {
      const env = withAgents([CODEX]);
      const installed = await home.run(["hooks", "install", "--agent", "codex"], { env });
      expect(installed.exitCode, installed.stderr).toBe(0);
      expect(installed.stdout).toContain(
        "Registered cxc's MCP server (recall) with `codex mcp add` (user scope).",
      );
      const toml = readFileSync(join(env.CODEX_HOME, "config.toml"), "utf8");
      expect(toml).toContain("[mcp_servers.cxc]");
      expect(toml).toContain(`"mcp"`);
      const projectInstall = await home.run(["hooks", "install", "--agent", "codex", "--project", project], {
        env,
      });
      expect(projectInstall.exitCode, projectInstall.stderr).toBe(0);
      expect(projectInstall.stderr).toContain(
        `hint: cxc's MCP server (recall) was not registered: Codex's \`mcp add\` registers servers for the user only (its config.toml); to offer it to every session, run: codex mcp add cxc -- ${process.execPath} ${CXC_BIN} mcp --agent codex`,
      );
      const removed = await home.run(["hooks", "uninstall", "--agent", "codex"], { env });
      expect(removed.exitCode, removed.stderr).toBe(0);
      expect(readFileSync(join(env.CODEX_HOME, "config.toml"), "utf8")).not.toContain("[mcp_servers.cxc]");
    },
  );

  it("without the agent's command the hooks are installed and the one command is printed", async () => {
    const env = withAgents([]);
    const installed = await home.run(["hooks", "install", "--agent", "claude-code"], { env });
    expect(installed.exitCode, installed.stderr).toBe(0);
    expect(installed.stdout).toContain("Installed cxc's Claude Code hooks");
    expect(installed.stderr).toContain(
      `hint: cxc's MCP server (recall) was not registered: \`claude\` is not on PATH; once it is, run: claude mcp add --scope user cxc -- ${process.execPath} ${CXC_BIN} mcp --agent claude-code`,
    );
    expect(existsSync(join(env.HOME, ".claude.json"))).toBe(false);
  });
});

describe("a session exported from cxc", () => {
  it("carries the recall index naming its conversation, which the agent's recall reads from the store", async () => {
    const env = { ...home.env, XDG_STATE_HOME: join(home.cwd, "state") };
    const imported = await home.run(["--format", "json", "conversation", "import", FIXTURE], { env });
    expect(imported.exitCode, imported.stderr).toBe(0);
    const id = (JSON.parse(imported.stdout) as { id: string }[])[0]!.id;
    const exported = join(home.cwd, "exported.jsonl");
    const written = await home.run(
      ["conversation", "export", id, "--to", "claude-code", "--output", exported],
      {
        env,
      },
    );
    expect(written.exitCode, written.stderr).toBe(0);
    const lines = readFileSync(exported, "utf8").split("\n").filter(Boolean);
    const index = lines
      .map((line) => JSON.parse(line) as { type: string; message?: { content?: unknown } })
      .find(
        (record) => record.type === "user" && String(record.message?.content).startsWith("[Recall index"),
      );
    expect(index, "the export holds the index as a user message").toBeDefined();
    const text = String(index!.message!.content);
    expect(text.split("\n")[1]).toMatch(
      new RegExp(`^cxc ${id} turn 1: summarized \\(2 calls, \\d+ chars\\)$`),
    );
    const run = await agent({
      agent: "claude-code",
      session: { session_id: "exported", transcript_path: exported, cwd: project },
      calls: [
        { reference: `cxc ${id} turn 1` },
        { query: "milk" },
        { reference: "cxc 01NOTACONVERSATION turn 1" },
      ],
    });
    expect(run.results[0]!.isError).toBe(false);
    expect(run.results[0]!.text).toContain(`cxc ${id} turn 1\n## turn 1`);
    expect(run.results[0]!.text).toContain("remember the milk");
    expect(run.results[1]!.text).toContain(`cxc ${id} turn 1: `);
    expect(run.results[2]).toMatchObject({
      isError: true,
      text: expect.stringContaining(
        "cxc 01NOTACONVERSATION is not a conversation in this machine's cxc store",
      ),
    });
  });
});
