/**
 * `import --from claude-code|pi|codex|gemini` and `export --to …` end to end over the committed
 * fixtures the real agents wrote (fixtures/agents/): detection, one file and a project folder
 * (subagent transcripts left out and counted), the import summary, `--skip-existing`, `ls` and
 * `show` naming the source, bad input (one error naming file and line, nothing written, the source
 * untouched), and exports into the agent's own folder or `--output`, never over a file. The real
 * agents resume what cxc writes in test/agents/.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeTempHome, PROJECT_ROOT, type TempHome } from "../helpers/cli.js";
import { startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { errorLines, snapshotTree } from "./conversation-helpers.js";

const CLAUDE_FIXTURE = join(PROJECT_ROOT, "fixtures", "agents", "claude-code", "session.jsonl");
const PI_FIXTURE = join(PROJECT_ROOT, "fixtures", "agents", "pi", "session.jsonl");
const CODEX_FIXTURE = join(PROJECT_ROOT, "fixtures", "agents", "codex", "session.jsonl");
const CODEX_MID_TURN_FIXTURE = join(PROJECT_ROOT, "fixtures", "agents", "codex-encrypted", "mid-turn.jsonl");
const GEMINI_FIXTURE = join(PROJECT_ROOT, "fixtures", "agents", "gemini", "session.jsonl");
const OPENCODE_FIXTURE = join(PROJECT_ROOT, "fixtures", "agents", "opencode", "session.json");
const CLAUDE_SESSION = "3b513450-3d6c-443e-9a7e-01eceba20536";

const homes: TempHome[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) home.cleanup();
});

function freshHome(): TempHome {
  const home = makeTempHome();
  homes.push(home);
  mkdirSync(home.cwd, { recursive: true });
  return home;
}

/** A Claude Code project folder: the fixture, another session, and a subagent transcript. */
function claudeProject(home: TempHome): string {
  const folder = join(home.cwd, "claude-project");
  mkdirSync(join(folder, CLAUDE_SESSION, "subagents"), { recursive: true });
  copyFileSync(CLAUDE_FIXTURE, join(folder, `${CLAUDE_SESSION}.jsonl`));
  const other = readFileSync(CLAUDE_FIXTURE, "utf8")
    .split(CLAUDE_SESSION)
    .join("7c0ffee0-0000-4000-8000-000000000001");
  writeFileSync(join(folder, "7c0ffee0-0000-4000-8000-000000000001.jsonl"), other);
  writeFileSync(join(folder, CLAUDE_SESSION, "subagents", "agent-a1.jsonl"), "not read\n");
  return folder;
}

describe("import from Claude Code and pi", () => {
  it("detects each agent's file and prints what came in and what was left out", async () => {
    const home = freshHome();
    const claude = await home.run(["conversation", "import", CLAUDE_FIXTURE]);
    expect(claude.exitCode, claude.stderr).toBe(0);
    expect(claude.stdout).toMatch(
      /^Imported Claude Code session .*session\.jsonl as \w{13} \(What files are here\? .*, 3 turns\)\n {2}62 lines read: 3 turns, 1 compaction of Claude Code's as an overlay; left out: \d+ skipped records \([^)]+\), no records of unknown types, no side-chain records, no abandoned branches\nImported 1 conversation; \w{13} is now the active conversation\.\n$/,
    );
    const pi = await home.run(["conversation", "import", PI_FIXTURE, "--format", "json"]);
    expect(pi.exitCode, pi.stderr).toBe(0);
    const [entry] = JSON.parse(pi.stdout) as {
      file: string;
      turns: number;
      import: Record<string, unknown>;
    }[];
    expect(entry).toMatchObject({
      file: PI_FIXTURE,
      turns: 3,
      import: { agent: "pi", turns: 3, compactions: 1 },
    });

    const listed = await home.run(["conversation", "ls"]);
    expect(listed.stdout).toMatch(/FROM/);
    expect(listed.stdout).toMatch(/ 3 .* Claude Code +What files are here\?/);
    expect(listed.stdout).toMatch(/ 3 .* pi +What files are here,/);
    const json = JSON.parse((await home.run(["conversation", "ls", "--format", "json"])).stdout) as {
      source: string;
    }[];
    expect(json.map((item) => item.source).sort()).toEqual(["claude-code", "pi"]);
  });

  it("imports a project folder, leaving subagent transcripts out, and --skip-existing syncs it again", async () => {
    const home = freshHome();
    const folder = claudeProject(home);
    const before = snapshotTree(folder);
    const first = await home.run(["conversation", "import", folder, "--from", "claude-code"]);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stdout.match(/^Imported Claude Code session /gm)).toHaveLength(2);
    expect(first.stdout).toContain("Left out 1 subagent transcript (side chains).");
    expect(first.stdout).toContain("Imported 2 conversations.");
    const again = await home.run(["conversation", "import", folder]);
    expect(again.exitCode).toBe(1);
    expect(errorLines(again.stderr).error).toMatch(/^.*\.jsonl was already imported as conversation \w{13}$/);
    const synced = await home.run(["conversation", "import", folder, "--skip-existing"]);
    expect(synced.exitCode, synced.stderr).toBe(0);
    expect(synced.stdout).toContain("Imported 0 conversations; skipped 2 that already existed.");
    expect(snapshotTree(folder)).toEqual(before);

    const id = / as (\w{13}) /.exec(first.stdout)![1]!;
    const shown = await home.run(["conversation", "show", id]);
    expect(shown.stdout).toMatch(/^from: +Claude Code, .*claude-project\/[0-9a-f-]{36}\.jsonl$/m);
  });

  it("imports Codex's dated sessions folder, detected, and shows where they came from", async () => {
    const home = freshHome();
    const day = join(home.cwd, "sessions", "2026", "12", "01");
    mkdirSync(day, { recursive: true });
    copyFileSync(CODEX_FIXTURE, join(day, "rollout-2026-12-01T12-00-41-01a2317b.jsonl"));
    const result = await home.run(["conversation", "import", join(home.cwd, "sessions")]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^Imported Codex session .*rollout-[^ ]+\.jsonl as \w{13} \(What files are here, and what do the notes say\?, 3 turns\)\n {2}\d+ lines read: 3 turns, 1 compaction of Codex's as an overlay; left out: \d+ skipped records \([^)]+\), no records of unknown types/,
    );
    expect((await home.run(["conversation", "ls"])).stdout).toMatch(/ 3 .* Codex +What files are here,/);
  });

  it("imports Gemini CLI's chats folder, detected, leaving out a resume's empty file and a subagent's", async () => {
    const home = freshHome();
    const chats = join(home.cwd, "gemini", "tmp", "project", "chats");
    mkdirSync(join(chats, "5ccea5e2-parent"), { recursive: true });
    writeFileSync(join(chats, "..", ".project_root"), "/home/user/elsewhere");
    copyFileSync(GEMINI_FIXTURE, join(chats, "session-2026-12-03T07-43-aaaaaaaa.jsonl"));
    // What Gemini CLI leaves beside a resumed session: its header and context, no prompt.
    const header = readFileSync(GEMINI_FIXTURE, "utf8").split("\n").slice(0, 2).join("\n");
    writeFileSync(join(chats, "session-2026-12-03T07-44-aaaaaaaa.jsonl"), `${header}\n`);
    writeFileSync(join(chats, "5ccea5e2-parent", "subagent.jsonl"), "not read\n");
    const result = await home.run(["conversation", "import", chats]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^Imported Gemini CLI session .*session-2026-12-03T07-43-aaaaaaaa\.jsonl as \w{13} \(Never touch the migrations folder\. What do my notes and my todo list say\?, 3 turns\)\n {2}\d+ lines read: 3 turns, 1 compaction of Gemini CLI's as an overlay; left out: \d+ skipped records \([^)]+\), no records of unknown types, no side-chain records, no abandoned branches\nLeft out 1 subagent transcript \(side chains\)\.\nLeft out 1 file without a single prompt\.\n/,
    );
    const shown = JSON.parse((await home.run(["conversation", "show", "--format", "json"])).stdout) as {
      source: string;
    };
    expect(shown.source).toBe("gemini");
    expect((await home.run(["conversation", "ls"])).stdout).toMatch(/ 3 .* Gemini CLI +Never touch/);
    const stats = await home.run(["conversation", "stats"]);
    expect(stats.stdout).toContain("Gemini CLI");
    // The project folder comes from Gemini's marker beside the chats folder.
    const exported = await home.run(["conversation", "export", "--to", "gemini", "--format", "json"], {
      env: { GEMINI_CLI_HOME: join(home.cwd, "gemini-home") },
    });
    expect(exported.exitCode, exported.stderr).toBe(0);
    expect((JSON.parse(exported.stdout) as { cwd: string }).cwd).toBe("/home/user/elsewhere");
  });

  it("imports a document opencode export printed, detected, and refuses a broken one, writing nothing", async () => {
    const home = freshHome();
    const result = await home.run(["conversation", "import", OPENCODE_FIXTURE]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^Imported opencode session .*session\.json as \w{13} \(Notes and the changelog, 4 turns\)\n {2}12 messages read: 4 turns, 1 compaction of opencode's as an overlay; left out: \d+ skipped records \([^)]+\), no records of unknown types, no side-chain records, no abandoned branches\n/,
    );
    expect((await home.run(["conversation", "ls"])).stdout).toMatch(
      / 4 .* opencode +Notes and the changelog/,
    );
    const other = freshHome();
    const document = JSON.parse(readFileSync(OPENCODE_FIXTURE, "utf8")) as {
      messages: { info: Record<string, unknown> }[];
    };
    document.messages[2]!.info.role = "system";
    const broken = join(other.cwd, "broken.json");
    writeFileSync(broken, JSON.stringify(document));
    const refused = await other.run(["conversation", "import", broken]);
    expect(refused.exitCode).toBe(1);
    expect(errorLines(refused.stderr).error).toMatch(
      /broken\.json: message 3: its role must be user or assistant$/,
    );
    // A document cut short (an export interrupted while it was written).
    const text = readFileSync(OPENCODE_FIXTURE, "utf8");
    const truncated = join(other.cwd, "truncated.json");
    writeFileSync(truncated, text.slice(0, Math.floor(text.length / 2)));
    const cut = await other.run(["conversation", "import", truncated, "--from", "opencode"]);
    expect(cut.exitCode).toBe(1);
    expect(errorLines(cut.stderr).error).toMatch(
      /truncated\.json: not valid JSON \(.*\); not an opencode session$/,
    );
    const database = join(other.cwd, "opencode.db");
    writeFileSync(database, "SQLite format 3\u0000 but not a database");
    const notDatabase = await other.run(["conversation", "import", database, "--from", "opencode"]);
    expect(notDatabase.exitCode).toBe(1);
    // Under a Node with node:sqlite the file is not a database; under Node 20 (no opencode on PATH
    // here) the floor is named.
    expect(errorLines(notDatabase.stderr).error).toMatch(
      /opencode\.db: (cannot read the database \(file is not a database\)|reading opencode's database needs Node 22\.13 or later)/,
    );
    expect(
      existsSync(join(other.home, "conversations")) ? readdirSync(join(other.home, "conversations")) : [],
    ).toEqual([]);
  });

  it("refuses a Gemini CLI session with a bad line in the middle, or no prompt, and writes nothing", async () => {
    const home = freshHome();
    const lines = readFileSync(GEMINI_FIXTURE, "utf8").split("\n");
    const broken = join(home.cwd, "broken.jsonl");
    writeFileSync(broken, [...lines.slice(0, 6), lines[6]!.slice(0, 40), ...lines.slice(7)].join("\n"));
    const empty = join(home.cwd, "empty.jsonl");
    writeFileSync(empty, `${lines.slice(0, 2).join("\n")}\n`);
    const cases: [string, RegExp][] = [
      [broken, /^.*broken\.jsonl:7: not valid JSON .*not a Gemini CLI session line$/],
      [empty, /^.*empty\.jsonl: a Gemini CLI session without a single prompt; nothing to import$/],
    ];
    for (const [file, error] of cases) {
      const result = await home.run(["conversation", "import", file]);
      expect(result.exitCode, file).toBe(1);
      expect(errorLines(result.stderr).error).toMatch(error);
    }
    expect(
      existsSync(join(home.home, "conversations")) ? readdirSync(join(home.home, "conversations")) : [],
    ).toEqual([]);
  });

  it("refuses a file that is not a session of the named format with one error naming file and line", async () => {
    const home = freshHome();
    const broken = join(home.cwd, "broken.jsonl");
    const lines = readFileSync(CLAUDE_FIXTURE, "utf8").split("\n");
    lines.splice(4, 0, "{not json");
    writeFileSync(broken, lines.join("\n"));
    const empty = join(home.cwd, "empty");
    mkdirSync(empty);
    const cases: [string[], RegExp][] = [
      [[broken], /^.*broken\.jsonl:5: not valid JSON .*not a Claude Code session line$/],
      [
        [PI_FIXTURE, "--from", "claude-code"],
        /^.*session\.jsonl:1: this is a pi session .*not Claude Code's$/,
      ],
      [[CLAUDE_FIXTURE, "--from", "pi"], /^.*session\.jsonl:1: .*pi/],
      [[join(home.cwd, "missing.jsonl"), "--from", "pi"], /^.*missing\.jsonl: no such file or directory$/],
      [[empty, "--from", "pi"], /^.*: holds no \.jsonl session files$/],
      [["-", "--from", "pi"], /^--from pi reads a session file or folder, not standard input$/],
    ];
    for (const [args, error] of cases) {
      const result = await home.run(["conversation", "import", ...args]);
      expect(result.exitCode, args.join(" ")).not.toBe(0);
      expect(errorLines(result.stderr).error, args.join(" ")).toMatch(error);
      expect(result.stderr.trim().split("\n").length, result.stderr).toBeLessThanOrEqual(2);
    }
    expect(
      existsSync(join(home.home, "conversations")) ? readdirSync(join(home.home, "conversations")) : [],
    ).toEqual([]);
  });

  it("a folder with one bad session imports nothing", async () => {
    const home = freshHome();
    const folder = claudeProject(home);
    writeFileSync(join(folder, "zz-broken.jsonl"), '{"type":"user","sessionId":"x"}\n');
    const result = await home.run(["conversation", "import", folder]);
    expect(result.exitCode).toBe(1);
    expect(errorLines(result.stderr).error).toMatch(
      /zz-broken\.jsonl:1: a user record needs a string `uuid`$/,
    );
    expect(
      existsSync(join(home.home, "conversations")) ? readdirSync(join(home.home, "conversations")) : [],
    ).toEqual([]);
  });
});

describe("export to Claude Code, pi, Codex and Gemini CLI", () => {
  async function imported(home: TempHome, file: string): Promise<string> {
    const result = await home.run(["conversation", "import", file]);
    expect(result.exitCode, result.stderr).toBe(0);
    return / as (\w{13}) /.exec(result.stdout)![1]!;
  }

  it("writes a new session in the agent's folder for the conversation's directory and prints how to resume it", async () => {
    const home = freshHome();
    const id = await imported(home, CLAUDE_FIXTURE);
    const result = await home.run(["conversation", "export", id, "--to", "claude-code", "--format", "json"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const written = JSON.parse(result.stdout) as {
      path: string;
      session_id: string;
      cwd: string;
      resume: string;
    };
    // The fixture's working directory is a placeholder, so the export lands in its project folder.
    expect(written.cwd).toBe("/home/user/project");
    expect(written.path).toBe(
      join(home.env.HOME!, ".claude", "projects", "-home-user-project", `${written.session_id}.jsonl`),
    );
    expect(written.resume).toBe(`cd /home/user/project && claude --resume ${written.session_id}`);
    const records = readFileSync(written.path, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(
      records.every((record) => record.type === "last-prompt" || record.sessionId === written.session_id),
    ).toBe(true);
    // Claude Code's own summary goes back as its own compaction.
    expect(records.some((record) => record.subtype === "compact_boundary")).toBe(true);

    const pi = await home.run(["conversation", "export", id, "--to", "pi"]);
    expect(pi.exitCode, pi.stderr).toBe(0);
    expect(pi.stdout).toMatch(
      /^Exported \w{13} to .*\.pi\/agent\/sessions\/--home-user-project--\/[\dT-]+Z_[0-9a-f-]{36}\.jsonl\nContinue it with: cd \/home\/user\/project && pi --session \S+\.jsonl\n$/,
    );
  });

  it("writes --output, never over an existing file", async () => {
    const home = freshHome();
    const id = await imported(home, PI_FIXTURE);
    const output = join(home.cwd, "out", "session.jsonl");
    const first = await home.run(["conversation", "export", id, "--to", "pi", "--output", output]);
    expect(first.exitCode, first.stderr).toBe(0);
    const content = readFileSync(output, "utf8");
    expect(JSON.parse(content.split("\n")[0]!)).toMatchObject({
      type: "session",
      version: 3,
      cwd: "/home/user/project",
    });
    const second = await home.run(["conversation", "export", id, "--to", "claude-code", "--output", output]);
    expect(second.exitCode).toBe(2);
    expect(errorLines(second.stderr).error).toBe(`${output} already exists; export never overwrites a file`);
    expect(readFileSync(output, "utf8")).toBe(content);
    expect(readdirSync(join(home.cwd, "out"))).toEqual(["session.jsonl"]);
    // Claude Code resumes by id from its own folder only: cxc says where the file must go.
    const claude = await home.run([
      "conversation",
      "export",
      id,
      "--to",
      "claude-code",
      "--output",
      join(home.cwd, "cc.jsonl"),
    ]);
    expect(claude.exitCode, claude.stderr).toBe(0);
    expect(claude.stderr).toMatch(
      /^cxc: Claude Code resumes a session from its own folder: copy the file to .*\.claude\/projects\/-home-user-project\/[0-9a-f-]{36}\.jsonl first\n$/,
    );
  });

  it("writes a Gemini CLI session in its project's folder, claiming one for a new project, never over a file", async () => {
    const home = freshHome();
    const id = await imported(home, GEMINI_FIXTURE);
    const gemini = join(home.cwd, "gemini-home", ".gemini");
    const env = { GEMINI_CLI_HOME: join(home.cwd, "gemini-home") };
    // Another project holds the folder name `project`: the export claims `project-1`.
    mkdirSync(join(gemini, "tmp", "project"), { recursive: true });
    writeFileSync(join(gemini, "tmp", "project", ".project_root"), "/somewhere/else/project");
    const first = await home.run(["conversation", "export", id, "--to", "gemini", "--format", "json"], {
      env,
    });
    expect(first.exitCode, first.stderr).toBe(0);
    const written = JSON.parse(first.stdout) as {
      path: string;
      session_id: string;
      cwd: string;
      resume: string;
    };
    expect(written.path).toMatch(
      new RegExp(
        `^${gemini}/tmp/project-1/chats/session-\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-${written.session_id.slice(0, 8)}\\.jsonl$`,
      ),
    );
    expect(readFileSync(join(gemini, "tmp", "project-1", ".project_root"), "utf8")).toBe(
      "/home/user/project",
    );
    expect(written.resume).toBe(`cd /home/user/project && gemini --resume ${written.session_id}`);
    const records = readFileSync(written.path, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records[0]).toMatchObject({ sessionId: written.session_id, kind: "main" });
    // Gemini CLI's own snapshot opens it, in the shape of its own compression.
    expect(records[1]).toMatchObject({
      type: "user",
      content: [{ text: expect.stringContaining("<state_snapshot>") }],
    });
    expect(records[2]).toMatchObject({
      type: "gemini",
      content: "Got it. Thanks for the additional context!",
    });
    // A second export finds the folder by its marker and adds a session beside the first.
    const second = await home.run(["conversation", "export", id, "--to", "gemini"], { env });
    expect(second.exitCode, second.stderr).toBe(0);
    expect(second.stdout).toContain(`${gemini}/tmp/project-1/chats/session-`);
    expect(readdirSync(join(gemini, "tmp", "project-1", "chats"))).toHaveLength(2);
    const output = join(home.cwd, "gemini.jsonl");
    writeFileSync(output, "mine\n");
    const refused = await home.run(["conversation", "export", id, "--to", "gemini", "--output", output], {
      env,
    });
    expect(refused.exitCode).toBe(2);
    expect(readFileSync(output, "utf8")).toBe("mine\n");
  });

  it("writes an opencode session for `opencode import` when opencode is not on PATH, never over a file", async () => {
    const home = freshHome();
    const id = await imported(home, OPENCODE_FIXTURE);
    const env = { PATH: "/usr/bin:/bin" };
    const result = await home.run(["conversation", "export", id, "--to", "opencode", "--format", "json"], {
      env,
      cwd: home.cwd,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const written = JSON.parse(result.stdout) as {
      path: string;
      session_id: string;
      import: string;
      resume: string;
    };
    expect(written.session_id).toMatch(/^ses_[0-9a-f]{12}[0-9A-Za-z]{14}$/);
    expect(written.path).toBe(join(home.cwd, `opencode-${written.session_id}.json`));
    // The session's recorded folder is not on this machine: the session is the current folder's.
    expect(written.import).toBe(`opencode import ${written.path}`);
    expect(written.resume).toBe(`opencode --session ${written.session_id}`);
    const document = JSON.parse(readFileSync(written.path, "utf8")) as {
      info: Record<string, unknown>;
      messages: { info: Record<string, unknown>; parts: Record<string, unknown>[] }[];
    };
    expect(document.info).toMatchObject({
      id: written.session_id,
      directory: home.cwd,
      title: "Notes and the changelog",
    });
    // opencode orders messages and parts by id: they grow.
    const ids = document.messages.flatMap((message) => [
      message.info.id as string,
      ...message.parts.map((part) => part.id as string),
    ]);
    const messageIds = document.messages.map((message) => message.info.id as string);
    expect([...messageIds].sort()).toEqual(messageIds);
    expect(new Set(ids).size).toBe(ids.length);
    // opencode's own summary opens it, in the shape of its own compaction.
    expect(document.messages[0]!.parts).toEqual([expect.objectContaining({ type: "compaction" })]);
    expect(document.messages[1]!.info).toMatchObject({ summary: true, agent: "compaction" });
    const output = join(home.cwd, "mine.json");
    writeFileSync(output, "mine\n");
    const refused = await home.run(["conversation", "export", id, "--to", "opencode", "--output", output], {
      env,
    });
    expect(refused.exitCode).toBe(2);
    expect(readFileSync(output, "utf8")).toBe("mine\n");
  });

  it("writes a Codex rollout under CODEX_HOME's dated sessions folder, with both ways to resume it", async () => {
    const home = freshHome();
    const id = await imported(home, CODEX_FIXTURE);
    const codexHome = join(home.cwd, "codex-home");
    const env = { CODEX_HOME: codexHome };
    const result = await home.run(["conversation", "export", id, "--to", "codex", "--format", "json"], {
      env,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const written = JSON.parse(result.stdout) as {
      path: string;
      session_id: string;
      cwd: string;
      resume: string;
      resume_in_scripts: string;
    };
    expect(written.path).toMatch(
      new RegExp(
        `^${codexHome}/sessions/\\d{4}/\\d{2}/\\d{2}/rollout-\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}-${written.session_id}\\.jsonl$`,
      ),
    );
    expect(written.resume).toBe(`cd /home/user/project && codex resume ${written.session_id}`);
    expect(written.resume_in_scripts).toBe(
      `cd /home/user/project && codex exec resume ${written.session_id} "…"`,
    );
    const records = readFileSync(written.path, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; payload: Record<string, unknown> });
    expect(records[0]).toMatchObject({
      type: "session_meta",
      payload: { id: written.session_id, cwd: "/home/user/project" },
    });
    // No provider unless asked: Codex resumes under the one it is configured with.
    expect(records[0]!.payload).not.toHaveProperty("model_provider");
    expect(records[1]!.type).toBe("compacted");

    const text = await home.run(["conversation", "export", id, "--to", "codex", "--model", "fake/gpt-fake"], {
      env,
    });
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      /^Exported \w{13} to \S+\.jsonl\nContinue it with: cd \/home\/user\/project && codex resume ([0-9a-f-]{36})\nIn a script: cd \/home\/user\/project && codex exec resume \1 "…"\n$/,
    );
    const path = /^Exported \w{13} to (\S+\.jsonl)$/m.exec(text.stdout)![1]!;
    expect(JSON.parse(readFileSync(path, "utf8").split("\n")[0]!).payload.model_provider).toBe("fake");

    const output = join(home.cwd, "rollout.jsonl");
    const elsewhere = await home.run(["conversation", "export", id, "--to", "codex", "--output", output], {
      env,
    });
    expect(elsewhere.exitCode, elsewhere.stderr).toBe(0);
    expect(elsewhere.stderr).toMatch(
      /^cxc: Codex resumes a session from its own folder: copy the file to .*codex-home\/sessions\/.*\.jsonl first\n$/,
    );
    const again = await home.run(["conversation", "export", id, "--to", "codex", "--output", output], {
      env,
    });
    expect(again.exitCode).toBe(2);
    expect(errorLines(again.stderr).error).toBe(`${output} already exists; export never overwrites a file`);
  });
});

describe("continuing an imported Codex session in cxc", () => {
  it("gives Codex's reasoning back to the model that wrote it, and to another model as text", async () => {
    const home = freshHome();
    const provider = await startFakeProvider();
    try {
      const imported = await home.run(["conversation", "import", CODEX_FIXTURE]);
      expect(imported.exitCode, imported.stderr).toBe(0);
      // Codex's own compaction covers the turn that reasoned: undo it, so the turn is sent.
      const id = / as (\w{13}) /.exec(imported.stdout)![1]!;
      expect((await home.run(["conversation", "compact", id, "--reset", "-y"])).exitCode).toBe(0);
      // The provider Codex recorded (`fake`), configured for cxc over the Responses API.
      const config = [
        "-c",
        "providers.fake.type=openai",
        "-c",
        `providers.fake.base_url=${provider.openaiBaseURL}`,
      ];
      const env = {
        FAKE_KEY: "k",
        CXC_PROVIDERS__FAKE__API_KEY_ENV: "FAKE_KEY",
        OPENAI_API_KEY: "k",
        OPENAI_BASE_URL: provider.openaiBaseURL,
      };
      provider.enqueue(textReply("Same model."), textReply("Another model."));
      const same = await home.run([...config, "q", "--id", id, "-m", "fake/gpt-fake", "What next?"], { env });
      expect(same.exitCode, same.stderr).toBe(0);
      const other = await home.run([...config, "q", "--id", id, "-m", "openai/gpt-5", "And then?"], { env });
      expect(other.exitCode, other.stderr).toBe(0);
      const [first, second] = provider.requests.map(
        (request) => request.body as { input: Record<string, unknown>[] },
      );
      expect(provider.requests.map((request) => request.path)).toEqual(["/v1/responses", "/v1/responses"]);
      expect(first!.input.find((item) => item.type === "reasoning")).toMatchObject({
        encrypted_content: "enc-fixture-1",
        summary: [{ type: "summary_text", text: "List the files, then read the notes." }],
      });
      expect(second!.input.some((item) => item.type === "reasoning")).toBe(false);
      expect(JSON.stringify(second!.input)).not.toContain("enc-fixture-1");
      expect(JSON.stringify(second!.input)).toContain(
        "<think>\\nList the files, then read the notes.\\n</think>",
      );
    } finally {
      await provider.close();
    }
  });
});

describe("continuing a Codex session with OpenAI's encrypted compaction inside a turn", () => {
  it("sends that turn's prompt once, in Codex's history before the compaction item, and the turn's steps after it", async () => {
    const home = freshHome();
    const provider = await startFakeProvider();
    try {
      const imported = await home.run(["conversation", "import", CODEX_MID_TURN_FIXTURE]);
      expect(imported.exitCode, imported.stderr).toBe(0);
      const id = / as (\w{13}) /.exec(imported.stdout)![1]!;
      const config = [
        "-c",
        "providers.fake.type=openai",
        "-c",
        `providers.fake.base_url=${provider.openaiBaseURL}`,
      ];
      const env = { FAKE_KEY: "k", CXC_PROVIDERS__FAKE__API_KEY_ENV: "FAKE_KEY" };
      provider.enqueue(textReply("The parser."));
      const turn = await home.run([...config, "q", "--id", id, "-m", "fake/gpt-fake", "And then?"], { env });
      expect(turn.exitCode, turn.stderr).toBe(0);
      const input = (provider.requests[0]!.body as { input: Record<string, unknown>[] }).input;
      const prompt = "Is there a changelog?";
      const holding = input.flatMap((item, index) => (JSON.stringify(item).includes(prompt) ? [index] : []));
      expect(holding).toHaveLength(1);
      const compaction = input.findIndex((item) => item.type === "compaction");
      expect(input[compaction]).toEqual({ type: "compaction", encrypted_content: expect.any(String) });
      expect(holding[0]).toBeLessThan(compaction);
      const position = (text: string) => input.findIndex((item) => JSON.stringify(item).includes(text));
      // The turn's steps before the compaction are what the item stands for; its answer follows it.
      expect(position("call_fixture_changelog")).toBe(-1);
      expect(position("There is no CHANGELOG.md.")).toBe(compaction + 1);
      expect(position("And then?")).toBe(input.length - 1);
      const shown = await home.run(["conversation", "show", id]);
      expect(shown.stdout).toContain("[user, encrypted compaction by fake/gpt-fake]");
    } finally {
      await provider.close();
    }
  });
});

describe("import --update", () => {
  it("appends what a grown session holds beyond the conversation, and says so", async () => {
    const home = freshHome();
    const lines = readFileSync(CLAUDE_FIXTURE, "utf8").split("\n");
    const file = join(home.cwd, `${CLAUDE_SESSION}.jsonl`);
    writeFileSync(file, `${lines.slice(0, 30).join("\n")}\n`);
    const imported = await home.run(["conversation", "import", file]);
    const id = /as (\w{13}) /.exec(imported.stdout)![1]!;
    writeFileSync(file, lines.join("\n"));
    const updated = await home.run(["conversation", "import", file, "--update"]);
    expect(updated.exitCode, updated.stderr).toBe(0);
    expect(updated.stdout).toMatch(
      new RegExp(
        `^Updated ${id} \\(imported from it\\) from .*: \\d+ events appended \\(1 new turn, now 3 turns\\)\\.\\n$`,
      ),
    );
    const json = await home.run(["--format", "json", "conversation", "import", file, "--update"]);
    expect(JSON.parse(json.stdout)).toEqual({
      id,
      file,
      via: "import",
      appended_events: 0,
      usage_backfilled: 0,
      new_turns: 0,
      turns: 3,
    });
  });

  it("brings back an opencode session that grew: its compaction and turns after the import appended", async () => {
    const home = freshHome();
    const document = JSON.parse(readFileSync(OPENCODE_FIXTURE, "utf8")) as {
      info: unknown;
      messages: unknown[];
    };
    const file = join(home.cwd, "opencode-session.json");
    writeFileSync(file, JSON.stringify({ info: document.info, messages: document.messages.slice(0, 6) }));
    const imported = await home.run(["conversation", "import", file]);
    const id = /as (\w{13}) /.exec(imported.stdout)![1]!;
    writeFileSync(file, JSON.stringify(document));
    const updated = await home.run(["conversation", "import", file, "--update"]);
    expect(updated.exitCode, updated.stderr).toBe(0);
    expect(updated.stdout).toBe(
      `Updated ${id} (imported from it) from ${file}: 7 events appended (2 new turns, now 4 turns).\n`,
    );
    const json = await home.run(["--format", "json", "conversation", "import", file, "--update"]);
    expect(JSON.parse(json.stdout)).toEqual({
      sessions: [
        { id, file, via: "import", appended_events: 0, usage_backfilled: 0, new_turns: 0, turns: 4 },
      ],
      not_imported: 0,
    });
    const shown = JSON.parse((await home.run(["--format", "json", "conversation", "show", id])).stdout);
    expect(shown.compactions).toEqual([expect.objectContaining({ note: "opencode's own compaction" })]);
  });

  it("brings back an opencode session cxc exported and opencode continued; refuses one whose exported part changed", async () => {
    const home = freshHome();
    const id = /as (\w{13}) /.exec(
      (await home.run(["conversation", "import", OPENCODE_FIXTURE])).stdout,
    )![1]!;
    const output = join(home.cwd, "exported.json");
    const exported = await home.run(["conversation", "export", id, "--to", "opencode", "--output", output]);
    expect(exported.exitCode, exported.stderr).toBe(0);
    type Message = { info: Record<string, unknown>; parts: Record<string, unknown>[] };
    const document = JSON.parse(readFileSync(output, "utf8")) as {
      info: { id: string };
      messages: Message[];
    };
    // What opencode adds when the session goes on: a prompt and its answer.
    const sessionID = document.info.id;
    const message = (role: string, messageId: string, text: string, created: number): Message => ({
      info: {
        id: messageId,
        sessionID,
        role,
        time: { created },
        ...(role === "assistant" ? { modelID: "fake-model", providerID: "fake" } : {}),
      },
      parts: [{ id: `prt_${messageId}`, sessionID, messageID: messageId, type: "text", text }],
    });
    const grown = {
      ...document,
      messages: [
        ...document.messages,
        message("user", "msg_zz01", "Anything else?", 1_900_000_000_000),
        message("assistant", "msg_zz02", "Nothing else.", 1_900_000_001_000),
      ],
    };
    writeFileSync(output, JSON.stringify(grown));
    const updated = await home.run(["conversation", "import", output, "--update"]);
    expect(updated.exitCode, updated.stderr).toBe(0);
    expect(updated.stdout).toBe(
      `Updated ${id} (exported to it) from ${output}: 3 events appended (1 new turn, now 5 turns).\n`,
    );
    expect((await home.run(["conversation", "print", id, "--last", "1"])).stdout).toContain("Nothing else.");
    // A message of the exported part that changed: refused, nothing written.
    const changed = structuredClone(grown);
    const prompt = changed.messages.find((entry) => entry.parts[0]?.text === "What should I do first?")!;
    prompt.parts[0]!.text = "EDITED";
    writeFileSync(output, JSON.stringify(changed));
    const before = snapshotTree(home.home);
    const refused = await home.run(["conversation", "import", output, "--update"]);
    expect(refused.exitCode).toBe(1);
    expect(errorLines(refused.stderr).error).toMatch(
      new RegExp(
        `^${output}: the session no longer begins with the compacted view of ${id} cxc exported there \\(event \\d+ of \\d+ differs: turn 3, a user message \\("EDITED"\\)\\); --update only appends what came after it$`,
      ),
    );
    expect(snapshotTree(home.home)).toEqual(before);
  });

  it("refuses what it cannot bring back, and writes nothing", async () => {
    const home = freshHome();
    const file = join(home.cwd, "session.jsonl");
    copyFileSync(PI_FIXTURE, file);
    const cases: [string[], number, RegExp][] = [
      [
        [file, "--update"],
        1,
        /^no conversation came from .*session\.jsonl: it was neither imported from this pi session nor exported to it$/,
      ],
      [
        [join(PROJECT_ROOT, "fixtures", "jp-workspace", ".jp"), "--update"],
        2,
        /^--update brings back a Claude Code, pi, Codex, Gemini CLI or opencode session; this is not one$/,
      ],
      [[file, "--update", "--title", "x"], 2, /^--update cannot be used with --title$/],
      [[claudeProject(home), "--update"], 2, /^--update takes one session file; .* holds 2$/],
    ];
    const before = snapshotTree(home.home);
    for (const [args, exitCode, error] of cases) {
      const result = await home.run(["conversation", "import", ...args]);
      expect(result.exitCode, args.join(" ")).toBe(exitCode);
      expect(errorLines(result.stderr).error).toMatch(error);
    }
    expect(snapshotTree(home.home)).toEqual(before);
  });

  it("refuses an exported session whose exported lines changed, naming the first", async () => {
    const home = freshHome();
    const imported = await home.run(["conversation", "import", PI_FIXTURE]);
    const id = /as (\w{13}) /.exec(imported.stdout)![1]!;
    const output = join(home.cwd, "out.jsonl");
    const exported = await home.run(["conversation", "export", id, "--to", "pi", "--output", output]);
    expect(exported.exitCode, exported.stderr).toBe(0);
    const lines = readFileSync(output, "utf8").split("\n");
    lines[3] = lines[3]!.replace(/"text":"/, '"text":"EDITED ');
    writeFileSync(output, lines.join("\n"));
    const result = await home.run(["conversation", "import", output, "--update"]);
    expect(result.exitCode).toBe(1);
    expect(errorLines(result.stderr).error).toBe(
      `${output}: line 4 is not the line cxc exported there (the session's first ${lines.length - 1} lines are the compacted view of ${id}); --update only appends what came after them`,
    );
  });
});

describe("import --update brings the usage of a session imported before cxc kept it", () => {
  it("backfills each request's usage: the figure becomes Claude Code's own count", async () => {
    const home = freshHome();
    expect((await home.run(["conversation", "import", CLAUDE_FIXTURE])).exitCode).toBe(0);
    // As an older cxc imported it: the same events, without the usage Claude Code recorded.
    const [id] = readdirSync(join(home.home, "conversations"));
    const log = join(home.home, "conversations", id!, "events.jsonl");
    const [header, ...lines] = readFileSync(log, "utf8").split("\n");
    const stripped = lines.map((line) => {
      if (line.trim() === "") return line;
      const event = JSON.parse(line) as { metadata?: Record<string, unknown> };
      if (event.metadata?.usage === undefined) return line;
      delete event.metadata.usage;
      if (Object.keys(event.metadata).length === 0) delete event.metadata;
      return JSON.stringify(event);
    });
    writeFileSync(log, [header, ...stripped].join("\n"));
    const before = await home.run(["conversation", "stats"]);
    expect(before.stdout).toContain(
      `estimated: this session was imported before cxc kept each request's usage, so Claude Code's own count is not here; \`cxc conversation import ${CLAUDE_FIXTURE} --update\` brings it`,
    );
    const updated = await home.run(["conversation", "import", CLAUDE_FIXTURE, "--update"]);
    expect(updated.exitCode, updated.stderr).toBe(0);
    expect(updated.stdout).toMatch(/The usage of \d+ requests it held came in too/);
    const stats = JSON.parse((await home.run(["--format", "json", "conversation", "stats"])).stdout);
    expect(stats.context).toMatchObject({
      tokens: 15,
      tokens_source: "reported",
      reported_by: "claude-code",
    });
    // Once is enough: a second update brings nothing, usage included.
    const again = await home.run(["conversation", "import", CLAUDE_FIXTURE, "--update"]);
    expect(again.stdout).not.toContain("usage");
  });
});
