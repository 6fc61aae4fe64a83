/**
 * `cxc hook <agent>` under hostile and unusual input, through the built CLI (the promises of
 * docs/security.md, "The hooks inside the agents"): a transcript that is a device, a FIFO or a
 * socket is refused at once; one past 16 MiB still gets its restore and advice from its end;
 * stdin held open after one JSON value; a prompt full of escape sequences, bidirectional
 * overrides and C1 bytes; a decision model that hangs; a restore budget too small; an unwritable
 * state directory; a log that grew past its size; an agent name cxc has no hook for; a run by hand
 * in a terminal, and `hooks status --reset`.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createServer as createSocketServer } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CXC_BIN, makeTempHome, type TempHome } from "../helpers/cli.js";
import { claudeTranscript, compactInput, stopInput } from "../helpers/hook-inputs.js";
import { startInTmux } from "../helpers/pty.js";

let home: TempHome;

beforeEach(() => {
  home = makeTempHome();
  mkdirSync(home.cwd, { recursive: true });
});
afterEach(() => home.cleanup());

const LINES = {
  CXC_ADVISOR_NOTICE_TOKENS: "1000",
  CXC_ADVISOR_RECOMMEND_TOKENS: "2000",
  CXC_ADVISOR_REQUEST_TOKENS: "900000",
};
const logPath = () => join(home.env.HOME!, ".local", "state", "cxc", "hooks.log");
const logLines = () =>
  existsSync(logPath()) ? readFileSync(logPath(), "utf8").split("\n").filter(Boolean) : [];
const hook = (agent: string, input: unknown, env: Record<string, string> = {}) =>
  home.run(["hook", agent], { input: JSON.stringify(input), env: { ...LINES, ...env } });
const systemMessage = (stdout: string) => (JSON.parse(stdout) as { systemMessage: string }).systemMessage;
const restored = (stdout: string) =>
  (JSON.parse(stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput
    .additionalContext;

describe("the transcript path: only a regular file is read", () => {
  it("refuses a device, a FIFO and a socket at once, at Stop and at the restore", async () => {
    const fifo = join(home.cwd, "fifo");
    execFileSync("mkfifo", [fifo]);
    const socketPath = join(home.cwd, "socket");
    const socket = createSocketServer();
    await new Promise<void>((resolve) => socket.listen(socketPath, resolve));
    try {
      for (const [path, kind] of [
        ["/dev/zero", "a device"],
        [fifo, "a FIFO"],
        [socketPath, "a socket"],
      ] as const) {
        for (const input of [stopInput(path), compactInput(path)]) {
          const result = await hook("claude-code", input, { CXC_ADVISOR_NOTICE_TOKENS: "1" });
          expect(result).toMatchObject({ exitCode: 0, stdout: "" });
          expect(logLines().at(-1)).toContain(
            `the transcript ${path} is ${kind}, not a regular file; not read`,
          );
        }
      }
      expect(logLines()).toHaveLength(6);
    } finally {
      socket.close();
    }
  });
});

/** A Claude Code transcript of about `megabytes` MB: a first turn, long answers, a last turn. */
function bigTranscript(megabytes: number): string {
  const lines: string[] = [];
  let parent: string | null = null;
  const record = (type: string, uuid: string, message: Record<string, unknown>, second: number) => {
    lines.push(
      JSON.stringify({
        type,
        uuid,
        parentUuid: parent,
        sessionId: "s1",
        timestamp: new Date(Date.UTC(2026, 11, 1, 10, 0, second)).toISOString(),
        message,
      }),
    );
    parent = uuid;
  };
  const filler = "All of this is an answer that takes room. ".repeat(24_000);
  record("user", "u0", { role: "user", content: "Always answer in French. Begin." }, 0);
  const turns = Math.ceil((megabytes * 1024 * 1024) / filler.length);
  for (let turn = 1; turn <= turns; turn++) {
    record(
      "assistant",
      `a${turn}`,
      {
        id: `m${turn}`,
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [{ type: "text", text: filler }],
      },
      turn,
    );
    record("user", `u${turn}`, { role: "user", content: `Go on (${turn}).` }, turn);
  }
  record(
    "assistant",
    "last",
    {
      id: "m-last",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [
        { type: "text", text: "Never touch the migrations folder, noted." },
        {
          type: "tool_use",
          id: "t-last",
          name: "Edit",
          input: { file_path: "/work/p/src/app.ts", old_string: "a", new_string: "b" },
        },
      ],
      usage: { input_tokens: 10, cache_read_input_tokens: 2500, output_tokens: 5 },
    },
    59,
  );
  lines.splice(
    lines.length - 1,
    0,
    JSON.stringify({
      type: "user",
      uuid: "u-rule",
      parentUuid: `u${turns}`,
      sessionId: "s1",
      timestamp: new Date(Date.UTC(2026, 11, 1, 10, 0, 58)).toISOString(),
      message: { role: "user", content: "Never touch the migrations folder. Fix src/app.ts." },
    }),
  );
  const last = JSON.parse(lines.at(-1)!) as Record<string, unknown>;
  lines[lines.length - 1] = JSON.stringify({ ...last, parentUuid: "u-rule" });
  return `${lines.join("\n")}\n`;
}

describe("a transcript past 16 MiB", () => {
  it("still gets its restore and its advice, from its end, and the log says how much was read", async () => {
    const path = join(home.cwd, "big.jsonl");
    writeFileSync(path, bigTranscript(20));
    const restore = await hook("claude-code", compactInput(path));
    expect(restore.exitCode).toBe(0);
    const context = restored(restore.stdout);
    expect(context).toContain('- "Never touch the migrations folder." (turn ');
    expect(context).toContain("Files modified: src/app.ts");
    // The first turn is before the part read.
    expect(context).not.toContain("Always answer in French");
    const advice = await hook("claude-code", stopInput(path));
    expect(systemMessage(advice.stdout)).toContain("Recommended: compact now");
    const notes = logLines();
    expect(notes).toHaveLength(2);
    for (const note of notes) {
      expect(note).toMatch(
        /: note: the transcript is 2\d\.\d MiB: read its last 1\d\.\d MiB, so what came before \(\d+\.\d MiB\) is not covered$/,
      );
    }
  });
});

describe("stdin", () => {
  it("stops reading once it holds one JSON value, while the agent keeps stdin open", async () => {
    const path = join(home.cwd, "t.jsonl");
    writeFileSync(path, claudeTranscript(["Fix f0.", "Now f1."], 2500));
    const child = spawn(process.execPath, [CXC_BIN, "hook", "claude-code"], {
      cwd: home.cwd,
      env: { ...home.env, ...LINES },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    // The value in two writes, then nothing: stdin stays open until the hook has exited.
    const text = JSON.stringify(stopInput(path));
    child.stdin.write(text.slice(0, 20));
    setTimeout(() => child.stdin.write(`${text.slice(20)}\n`), 50);
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    child.stdin.destroy();
    expect(code).toBe(0);
    expect(systemMessage(stdout)).toContain("Recommended: compact now");
  }, 9_000);
});

describe("what the hook prints is sanitized", () => {
  const hostile =
    "Never run \u001b]52;c;ZWNobyBoaQ==\u0007 or \u001b[2J\u001b[H the \u202eslmth.exe\u202c migrations\u009b31m. Fix f0.";

  it("the advice: no escape sequence, bidirectional override or C1 byte from the user's prompt", async () => {
    const path = join(home.cwd, "t.jsonl");
    writeFileSync(path, claudeTranscript([hostile, "Now f1."], 2500));
    const result = await hook("claude-code", stopInput(path));
    expect(result.exitCode).toBe(0);
    expect(result.stdout).not.toMatch(/[\u001b\u0007\u0080-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(result.stdout).not.toMatch(/\\u001b|\\u0007|\\u009b|\\u202e/i);
    const message = systemMessage(result.stdout);
    expect(message).toContain(
      'Keep the user\'s instructions verbatim: "Never run  or  the slmth.exe migrations."',
    );
  });

  it("the restore: the same, and its JSON holds no raw C1 byte", async () => {
    const path = join(home.cwd, "t.jsonl");
    writeFileSync(path, claudeTranscript([hostile, "Now f1."], 100));
    const result = await hook("claude-code", compactInput(path));
    expect(result.stdout).not.toMatch(/[\u001b\u0007\u0080-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(restored(result.stdout)).toContain('- "Never run  or  the slmth.exe migrations." (turn 1)');
  });
});

describe("a decision model that hangs", () => {
  let server: Server;
  let requests = 0;
  beforeEach(async () => {
    requests = 0;
    // Accepts each request and never answers.
    server = createServer(() => {
      requests += 1;
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  });
  afterEach(() => {
    server.closeAllConnections();
    server.close();
  });

  it("is left out after it failed, said once, and the advice follows the token lines meanwhile", async () => {
    const address = server.address() as { port: number };
    const env = {
      CXC_ADVISOR_MODEL: "anthropic/claude-haiku-4-5",
      CXC_ADVISOR_TIMEOUT_MS: "300",
      ANTHROPIC_API_KEY: "sk-ant-test",
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${address.port}`,
    };
    const path = join(home.cwd, "t.jsonl");
    writeFileSync(path, claudeTranscript(["Fix f0.", "Now f1."], 2500));
    const first = await hook("claude-code", stopInput(path), env);
    expect(first).toMatchObject({ exitCode: 0 });
    expect(requests).toBe(1);
    // The next turns: the model is not asked; the first advice says why, once.
    writeFileSync(path, claudeTranscript(["Fix f0.", "Now f1.", "And f2."], 2500));
    const second = await hook("claude-code", stopInput(path, "s2"), env);
    expect(requests).toBe(1);
    const message = systemMessage(second.stdout);
    expect(message).toContain("Recommended: compact now");
    expect(message).toMatch(
      /the decision model anthropic\/claude-haiku-4-5 failed \(it did not answer in time\); cxc leaves it out until \d\d:\d\d UTC/,
    );
    writeFileSync(path, claudeTranscript(["Fix f0.", "Now f1.", "And f2."], 950_000));
    const third = await hook("claude-code", stopInput(path, "s2"), env);
    expect(requests).toBe(1);
    expect(systemMessage(third.stdout)).toContain("Compaction requested");
    expect(systemMessage(third.stdout)).not.toContain("leaves it out");
    // `hooks status --reset all` forgets the failure: the model is asked again.
    await home.run(["hooks", "status", "--reset", "all"]);
    await hook("claude-code", stopInput(path, "s3"), env);
    expect(requests).toBe(2);
  });
});

describe("what used to leave no trace", () => {
  it("a restore budget too small for its heading is logged", async () => {
    const path = join(home.cwd, "t.jsonl");
    writeFileSync(path, claudeTranscript(["Never touch the migrations folder. Fix f0."], 100));
    const result = await hook("claude-code", compactInput(path), {
      CXC_HOOKS__RESTORE__MAX_CHARACTERS: "40",
    });
    expect(result).toMatchObject({ exitCode: 0, stdout: "" });
    expect(logLines()).toEqual([
      expect.stringMatching(
        /claude-code SessionStart compact: note: hooks\.restore\.max_characters is 40, too small for the restore's heading \(\d+ characters\) and one fact: all 2 facts were left out; raise it \(the default is 4000\)$/,
      ),
    ]);
  });

  it("an unwritable state directory: the advice is still shown, and stderr says what could not be written", async () => {
    const path = join(home.cwd, "t.jsonl");
    writeFileSync(path, claudeTranscript(["Fix f0.", "Now f1."], 2500));
    // A state directory under a regular file: nothing can be created there, not even as root.
    const blocked = join(home.cwd, "state-is-a-file");
    writeFileSync(blocked, "");
    const result = await hook("claude-code", stopInput(path), { XDG_STATE_HOME: blocked });
    expect(result.exitCode).toBe(0);
    expect(systemMessage(result.stdout)).toContain("Recommended: compact now");
    expect(result.stderr).toContain(`cxc hook: cannot write ${join(blocked, "cxc", "hooks.log")}`);
    expect(result.stderr).toContain("cannot record the session's advice in");
  });

  it("hooks.log is moved aside past 1 MiB", async () => {
    mkdirSync(join(home.env.HOME!, ".local", "state", "cxc"), { recursive: true });
    const old = `${"2026-01-01T00:00:00.000Z claude-code Stop: an old failure\n".repeat(20_000)}`;
    writeFileSync(logPath(), old);
    await hook("claude-code", "not json");
    expect(readFileSync(`${logPath()}.1`, "utf8")).toBe(old);
    expect(logLines()).toHaveLength(1);
    const status = await home.run(["hooks", "status"]);
    expect(status.stdout).toContain(`Hook log (${logPath()}): 1 failure, the last: `);
    expect(status.stdout).toContain(`older lines: ${logPath()}.1`);
  });

  it("`cxc hook foo` (a typo in the agent's settings) exits 0 and is logged, so status shows it", async () => {
    for (const args of [
      ["hook", "foo"],
      ["hook", "claude_code"],
    ]) {
      const result = await home.run(args, { input: JSON.stringify(stopInput("/nowhere")) });
      expect(result).toMatchObject({ exitCode: 0, stdout: "" });
    }
    expect(logLines()).toEqual([
      expect.stringContaining('foo input: cxc has no hook for the agent "foo"'),
      expect.stringContaining('claude_code input: cxc has no hook for the agent "claude_code"'),
    ]);
    const status = await home.run(["hooks", "status"]);
    expect(status.stdout).toContain("2 failures, the last: ");
    expect(status.stdout).toContain('cxc has no hook for the agent "claude_code"');
  });
});

describe("a Stop run by hand", () => {
  it("in a terminal records nothing, and says so; `hooks status --reset` forgets a session's record", async () => {
    const path = join(home.cwd, "t.jsonl");
    writeFileSync(path, claudeTranscript(["Fix f0.", "Now f1."], 2500));
    const input = join(home.cwd, "input.json");
    writeFileSync(input, JSON.stringify(stopInput(path)));
    const pty = startInTmux(
      ["sh", "-c", `'${process.execPath}' '${CXC_BIN}' hook claude-code < '${input}'`],
      {
        env: { ...home.env, ...LINES },
        cwd: home.cwd,
      },
    );
    try {
      await pty.waitFor("run by hand");
      expect(await pty.exitCode()).toBe(0);
      expect(pty.screen()).toContain("Recommended: compact now");
    } finally {
      pty.close();
    }
    // The session's announcement is still there for the agent's own Stop.
    const agentRun = await hook("claude-code", stopInput(path));
    expect(systemMessage(agentRun.stdout)).toContain("Recommended: compact now");
    expect((await hook("claude-code", stopInput(path))).stdout).toBe("");
    const reset = await home.run(["hooks", "status", "--reset", "s1"]);
    expect(reset.stdout).toBe("Reset the record of the session s1: its next Stop announces as if new.\n");
    expect(systemMessage((await hook("claude-code", stopInput(path))).stdout)).toContain(
      "Recommended: compact now",
    );
    expect((await home.run(["hooks", "status", "--reset", "s9"])).stdout).toContain(
      "No record of the session s9",
    );
  });
});
