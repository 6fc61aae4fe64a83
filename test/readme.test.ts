/**
 * The README's shell blocks, run line by line exactly as written, so the README cannot drift from
 * what cxc does. Each line runs in `bash -c`, with `cxc` on the PATH (a shim to this checkout's
 * bin/cxc.cjs), in a home of its own: HOME and CXC_HOME are temporary, and the repository's
 * fixtures stand where the README's paths point (a jp workspace at `~/project/.jp`, a Claude Code
 * session under `~/.claude/projects/…`). Every block starts from a fresh home.
 *
 * A line that needs a model runs against the loopback fake provider, configured as a user would
 * (`assistant.model.id` and a key, here in the environment); a line that asks at a terminal runs
 * in a real pseudo-terminal (tmux) and is answered there. The lines that cannot run inside a test
 * are listed in NOT_RUN with the reason, and the test fails on a README line it neither runs nor
 * lists, and on a listed line the README no longer has.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cxcShimDirectory, PROJECT_ROOT } from "./helpers/cli.js";
import { type FakeProvider, startFakeProvider, textReply } from "./helpers/fake-provider.js";
import { startInTmux } from "./helpers/pty.js";

/** README lines no test can run, and why. */
const NOT_RUN: Readonly<Record<string, string>> = {
  "npm ci && npm run demo": "installs the very checkout under test; the demo is run by test/demo.test.ts",
  "npm ci && npm ci --prefix agents && npm test":
    "installs the checkout and runs the suite this test belongs to",
  "npm ci": "installs the very checkout under test (CI runs it first)",
  "npm ci --prefix agents": "installs the agents the interop tests use (CI runs it first)",
  "npm ci --prefix agents/codex": "installs Codex for the interop tests (CI runs it first)",
  "npm ci --prefix agents/opencode":
    "installs opencode and a newer Node for the interop tests (CI runs it first)",
  "npm run typecheck": "a step of CI of its own (.ci/run)",
  "npm run lint": "a step of CI of its own (.ci/run)",
  "npm test": "the suite this test belongs to",
  "npm run bench": "measures for minutes on a quiet machine; benchmarks are not tests (docs/benchmarks.md)",
  "node bench/first-byte.mjs": "a benchmark (docs/benchmarks.md)",
  "node bench/jp-tokens.mjs": "a benchmark (docs/benchmarks.md)",
  "bash .ci/run": "CI itself, which runs this test",
  "pi install ~/src/cxc":
    "installs a checkout at a path of the user's into a real pi; test/agents/pi-extension.test.ts installs this checkout into pi, and .ci/run (scripts/published-package.mjs) the packed package",
};

/** The command of a README line, without its trailing `# comment`. */
function commandOf(line: string): string {
  return line.replace(/\s+#\s.*$/, "").trim();
}

/** The fenced `sh` blocks of the README, as lists of their non-empty lines. */
function readmeBlocks(): string[][] {
  const text = readFileSync(join(PROJECT_ROOT, "README.md"), "utf8");
  return [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) =>
    match[1]!.split("\n").filter((line) => line.trim() !== ""),
  );
}

/** What a line must print, beyond exiting 0 (keyed by a part of its command). */
const EXPECTED: readonly [string, RegExp][] = [
  ["completion bash", /^$/],
  ["import ~/project/.jp", /\nImported \d+ conversations \(1 archived\)\.\n$/],
  ["coding-session.jsonl", /^Imported 01jsample0000 \(Add a --since filter to logcat, 20 turns\)\n/],
  ["use recent", /^(Active conversation|Already active): 01jsample0000 \(/],
  // The first session lands on a conversation where every rule acts.
  [
    "compact --dry-run",
    /^Would have kept turn 1\.\nWould have compacted turns 2\.\.19 \(18 total, reasoning \+ tools\)\./,
  ],
  ["compact -k s:..-3", /^Compacted turns 1\.\.17 \(17 total, summary/],
  ["compact -k r+t:-5calls", /^Compacted turns 1\.\.17 \(17 total, already compacted\)\.\n/],
  ["print --compacted", /^── turn/],
  ["compact --reset", /^(Removed \d+ compaction|No compaction events to remove\.)/],
  ["import ~/.claude", /; \w{13} is now the active conversation\.\n$/],
  ["compact --interactive", /\S/],
  ["cxc q", /^Agreed: the failing command's output stays as it is\.\n$/],
  ["export --to claude-code", /claude --resume [0-9a-f-]{36}/],
  // Last: the bare `compact` (the entries above take the lines with flags).
  [
    "cxc conversation compact",
    /^Kept turn 1\.\nCompacted turns 2\.\.19 \(18 total, reasoning \+ tools\)\.\nKept turn 20\.\n$/,
  ],
];

/** Lines that ask at a terminal: run in tmux and answered with these keys. */
const AT_A_TERMINAL: Readonly<Record<string, { readonly prompt: RegExp; readonly keys: string }>> = {
  "cxc conversation compact --continue": { prompt: /Apply\? \(y\/N\)/, keys: "y" },
};

let provider: FakeProvider;
const bases: string[] = [];

beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(async () => {
  await provider.close();
  for (const base of bases) rmSync(base, { recursive: true, force: true });
});

interface BlockHome {
  readonly cwd: string;
  readonly env: Record<string, string>;
}

/** A fresh home with the fixtures where the README's paths point, and `cxc` on the PATH. */
function blockHome(withModel: boolean): BlockHome {
  const base = mkdtempSync(join(tmpdir(), "cxc-readme-"));
  bases.push(base);
  const home = join(base, "user");
  cpSync(join(PROJECT_ROOT, "fixtures", "jp-workspace", ".jp"), join(home, "project", ".jp"), {
    recursive: true,
  });
  const sessions = join(home, ".claude", "projects", "-home-me-project");
  mkdirSync(sessions, { recursive: true });
  copyFileSync(
    join(PROJECT_ROOT, "fixtures", "agents", "claude-code", "session.jsonl"),
    join(sessions, "3b513450-3d6c-443e-9a7e-01eceba20536.jsonl"),
  );
  const cwd = join(base, "work");
  mkdirSync(cwd, { recursive: true });
  // The sample the first session imports, where it is in a checkout.
  cpSync(join(PROJECT_ROOT, "fixtures", "sample"), join(cwd, "fixtures", "sample"), { recursive: true });
  const env: Record<string, string> = {
    PATH: `${cxcShimDirectory(base)}:${process.env.PATH ?? ""}`,
    HOME: home,
    CXC_HOME: join(base, "store"),
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    NO_COLOR: "1",
    TZ: "UTC",
    PAGER: "cat",
  };
  if (withModel) {
    Object.assign(env, {
      ANTHROPIC_API_KEY: "test-key",
      ANTHROPIC_BASE_URL: provider.anthropicBaseURL,
      CXC_ASSISTANT__MODEL__ID: "anthropic/claude-sonnet-4-6",
    });
  }
  return { cwd, env };
}

/** Runs one README line as written; returns its output, or throws saying which line failed. */
async function runLine(line: string, home: BlockHome): Promise<string> {
  const command = commandOf(line);
  const terminal = AT_A_TERMINAL[command];
  if (terminal !== undefined) {
    const pty = startInTmux(["bash", "-c", line], { env: home.env, cwd: home.cwd });
    try {
      await pty.waitFor(terminal.prompt);
      pty.send(terminal.keys, { literal: true });
      const code = await pty.exitCode();
      expect(code, `${line}\n${pty.screen()}`).toBe(0);
      return pty.screen();
    } finally {
      pty.close();
    }
  }
  // Asynchronous, so the fake provider in this process can answer while the line runs.
  const result = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn("bash", ["-c", line], {
      cwd: home.cwd,
      env: home.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
    child.on("close", (status: number | null) => resolve({ status, stdout, stderr }));
  });
  expect(result.status, `${line}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`).toBe(0);
  const expected = EXPECTED.find(([part]) => command.includes(part));
  if (expected !== undefined) expect(result.stdout, line).toMatch(expected[1]);
  return result.stdout;
}

describe("README.md", () => {
  const blocks = readmeBlocks();

  it("has its shell blocks, and lists exactly the lines no test can run", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    const commands = new Set(blocks.flat().map(commandOf));
    expect(Object.keys(NOT_RUN).filter((command) => !commands.has(command))).toEqual([]);
    for (const command of Object.keys(AT_A_TERMINAL)) expect(commands).toContain(command);
  });

  it.each(blocks.map((lines, index) => [index + 1, lines] as const))(
    "block %i runs as typed",
    async (_index, lines) => {
      const runnable = lines.filter((line) => NOT_RUN[commandOf(line)] === undefined);
      if (runnable.length === 0) return;
      const withModel = runnable.some((line) => line.includes("--interactive"));
      if (withModel) {
        // The review's opening draft (the summarizer is the configured model), then its answer.
        provider.enqueue(
          textReply(
            "The user asked what the files are and what the notes say; the listing and the notes were read.",
          ),
          textReply("Agreed: the failing command's output stays as it is."),
        );
      }
      const home = blockHome(withModel);
      // The alias and completion lines belong in the checkout, where `$PWD/bin/cxc.cjs` is.
      const inCheckout = runnable.some((line) => line.startsWith("alias cxc="));
      for (const line of runnable) await runLine(line, inCheckout ? { ...home, cwd: PROJECT_ROOT } : home);
      if (withModel) expect(provider.remaining()).toBe(0);
    },
  );
});

describe("the cxc the README's lines find", () => {
  it("is this checkout's, on the PATH of the lines", () => {
    const home = blockHome(false);
    const found = execFileSync("bash", ["-c", "command -v cxc"], { env: home.env, encoding: "utf8" }).trim();
    expect(found.startsWith(join(home.cwd, ".."))).toBe(true);
    expect(spawnSync("bash", ["-c", "cxc --version"], { env: home.env, encoding: "utf8" }).stdout).toMatch(
      /^\d+\.\d+\.\d+\n$/,
    );
  });
});
