/**
 * `cxc hooks install|uninstall|status` and `cxc hook claude-code|codex` through the built CLI:
 * the settings file merged and given back byte for byte, a broken one refused and untouched; the
 * hook fails open (garbage, a missing transcript, a half-written last line, a broken
 * configuration: exit 0, nothing on stdout, one line in the state directory's log), is silent
 * below the notice line, never writes into the agent's files, and restores after a compaction.
 * The real Claude Code runs these hooks in test/agents/claude-code-hooks.test.ts.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempHome, type TempHome } from "../helpers/cli.js";
import { claudeTranscript as transcript } from "../helpers/hook-inputs.js";

let home: TempHome;
let user: string;
let settings: string;

const USERS_SETTINGS = `{
  "permissions": {
    "allow": ["Bash(ls)"]
  },
  "hooks": {
    "Stop": [
      {
        "hooks": [
          { "type": "command", "command": "notify-send 'turn done'" }
        ]
      }
    ]
  }
}
`;

beforeEach(() => {
  home = makeTempHome();
  user = home.env.HOME!;
  settings = join(user, ".claude", "settings.json");
  mkdirSync(home.cwd, { recursive: true });
});
afterEach(() => home.cleanup());

const logPath = () => join(user, ".local", "state", "cxc", "hooks.log");
const logLines = () =>
  existsSync(logPath()) ? readFileSync(logPath(), "utf8").split("\n").filter(Boolean) : [];
const digest = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

describe("cxc hooks install, uninstall, status", () => {
  it("merges into the user's settings keeping their hooks, changes nothing the second time, and uninstall gives the file back", async () => {
    mkdirSync(join(user, ".claude"), { recursive: true });
    writeFileSync(settings, USERS_SETTINGS);
    const installed = await home.run(["hooks", "install", "--agent", "claude-code"]);
    expect(installed.exitCode, installed.stderr).toBe(0);
    expect(installed.stdout).toContain(
      `Installed cxc's Claude Code hooks in ${settings}: Stop (advice at the end of each turn), SessionStart startup|resume|clear|compact (the session for cxc mcp's recall; the restore after the agent compacts).`,
    );
    const merged = JSON.parse(readFileSync(settings, "utf8"));
    expect(merged.permissions).toEqual({ allow: ["Bash(ls)"] });
    expect(merged.hooks.Stop[0]).toEqual({
      hooks: [{ type: "command", command: "notify-send 'turn done'" }],
    });
    expect(merged.hooks.Stop[1].hooks[0].command).toMatch(/bin\/cxc\.cjs hook claude-code$/);
    expect(merged.hooks.SessionStart[0].matcher).toBe("startup|resume|clear|compact");
    const after = readFileSync(settings, "utf8");

    const again = await home.run(["hooks", "install"]);
    expect(again.stdout).toContain("already installed");
    expect(readFileSync(settings, "utf8")).toBe(after);

    const status = await home.run(["--format", "json", "hooks", "status"], { cwd: home.cwd });
    const report = JSON.parse(status.stdout) as {
      agents: { agent: string; scope: string; installed: unknown[] }[];
    };
    expect(
      report.agents.find((row) => row.agent === "claude-code" && row.scope === "user")!.installed,
    ).toHaveLength(2);
    expect(
      report.agents.find((row) => row.agent === "claude-code" && row.scope === "project")!.installed,
    ).toHaveLength(0);

    const removed = await home.run(["hooks", "uninstall", "--agent", "claude-code"]);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`Removed cxc's Claude Code hooks from ${settings}: Stop, SessionStart.`);
    expect(readFileSync(settings, "utf8")).toBe(USERS_SETTINGS);
  });

  it("writes a project's file with --project DIR, and --dry-run writes nothing", async () => {
    const project = join(home.cwd, "repo");
    mkdirSync(project, { recursive: true });
    const dry = await home.run(["hooks", "install", "--project", project, "--dry-run"]);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stderr).toContain("dry run:");
    expect(JSON.parse(dry.stdout).hooks.Stop).toHaveLength(1);
    expect(existsSync(join(project, ".claude", "settings.json"))).toBe(false);
    const real = await home.run(["hooks", "install", "--project"], { cwd: project });
    expect(real.exitCode, real.stderr).toBe(0);
    expect(existsSync(join(project, ".claude", "settings.json"))).toBe(true);
    const codex = await home.run(["hooks", "install", "--agent", "codex", "--project", project]);
    expect(codex.exitCode, codex.stderr).toBe(0);
    expect(
      JSON.parse(readFileSync(join(project, ".codex", "hooks.json"), "utf8")).hooks.SessionStart[0],
    ).toMatchObject({
      matcher: "startup|resume|clear|compact",
    });
    expect(codex.stderr).toContain("Codex runs new hooks only once you review and trust them");
  });

  it("refuses a settings file that is not valid JSON with one error, and leaves it as it was", async () => {
    mkdirSync(join(user, ".claude"), { recursive: true });
    writeFileSync(settings, '{\n  "model": "opus",\n}\n');
    const before = digest(settings);
    for (const verb of ["install", "uninstall"]) {
      const result = await home.run(["hooks", verb]);
      expect(result.exitCode).toBe(1);
      const errors = result.stderr.split("\n").filter((line) => line.startsWith("cxc: error:"));
      expect(errors).toEqual([
        `cxc: error: ${settings} is not valid JSON (line 3, column 1: ${errors[0]!.replace(/^.*column 1: /, "").replace(/\); nothing was changed$/, "")}); nothing was changed`,
      ]);
      expect(digest(settings)).toBe(before);
    }
    const bad = await home.run(["hooks", "install", "--agent", "aider"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("cxc: error: --agent aider is not an agent cxc has hooks for");
    const both = await home.run(["hooks", "install", "--user", "--project"]);
    expect(both.exitCode).toBe(2);
  });
});

describe("cxc hook claude-code", () => {
  const lines = {
    CXC_ADVISOR_NOTICE_TOKENS: "1000",
    CXC_ADVISOR_RECOMMEND_TOKENS: "2000",
    CXC_ADVISOR_REQUEST_TOKENS: "900000",
  };
  const hook = (input: unknown, env: Record<string, string> = {}) =>
    home.run(["hook", "claude-code"], {
      input: typeof input === "string" ? input : JSON.stringify(input),
      env: { ...lines, ...env },
    });
  const stop = (path: string) => ({
    hook_event_name: "Stop",
    session_id: "s1",
    transcript_path: path,
    cwd: "/work/p",
  });

  it("fails open: garbage, a missing transcript, a broken configuration: exit 0, no stdout, one log line each", async () => {
    for (const [input, env] of [
      ["not json at all", {}],
      [{ hook_event_name: "Stop" }, {}],
      [stop(join(home.cwd, "missing.jsonl")), {}],
    ] as const) {
      const result = await hook(input, env);
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toBe("");
    }
    mkdirSync(join(home.env.XDG_CONFIG_HOME!, "cxc"), { recursive: true });
    writeFileSync(join(home.env.XDG_CONFIG_HOME!, "cxc", "config.toml"), "[broken\n");
    const path = join(home.cwd, "t.jsonl");
    writeFileSync(path, transcript(["one", "two"], 5000));
    const broken = await hook(stop(path));
    expect(broken).toMatchObject({ exitCode: 0, stdout: "" });
    const logged = logLines();
    expect(logged).toHaveLength(4);
    expect(logged[0]).toMatch(/^\d{4}-\d\d-\d\dT\S+ claude-code input: the hook's input is not JSON/);
    expect(logged[1]).toContain("claude-code input: the Stop input has no session_id");
    expect(logged[2]).toMatch(/claude-code Stop: ENOENT/);
    expect(logged[3]).toMatch(/claude-code Stop: .*config\.toml:1:\d+: invalid TOML/);
  });

  it("is silent below the notice line, and speaks once per tier above it, with the /compact line", async () => {
    const path = join(home.cwd, "t.jsonl");
    writeFileSync(path, transcript(["Never touch the migrations folder. Fix f0.", "Now f1."], 500));
    const before = digest(path);
    const quiet = await hook(stop(path));
    expect(quiet).toMatchObject({ exitCode: 0, stdout: "" });

    writeFileSync(path, transcript(["Never touch the migrations folder. Fix f0.", "Now f1."], 2500));
    const loud = await hook(stop(path));
    expect(loud.exitCode).toBe(0);
    const message = (JSON.parse(loud.stdout) as { systemMessage: string }).systemMessage;
    expect(message).toContain(
      "cxc advisor: Recommended: compact now. Context is at 2.5k tokens (1.3% of the window)",
    );
    expect(message).toContain(
      'To compact, type: /compact Keep the user\'s instructions verbatim: "Never touch the migrations folder."; keep the list of files modified: src/f0.ts, src/f1.ts.',
    );
    expect(message).toContain("no decision model is configured");
    // The same tier is not announced twice; the missing model is said once.
    const again = await hook(stop(path));
    expect(again).toMatchObject({ exitCode: 0, stdout: "" });
    expect(logLines()).toEqual([]);
    expect(digest(path)).not.toBe(before);
    const final = digest(path);
    await hook(stop(path));
    expect(digest(path)).toBe(final);
  });

  it("reads the usage before a half-written last line", async () => {
    const path = join(home.cwd, "t.jsonl");
    writeFileSync(path, `${transcript(["Fix f0.", "Now f1."], 2500)}{"type":"assistant","message":{"usa`);
    const result = await hook(stop(path));
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("Recommended: compact now");
  });

  it("restores the binding sentences and the files modified at SessionStart compact, within its budget", async () => {
    const path = join(home.cwd, "t.jsonl");
    writeFileSync(path, transcript(["Never touch the migrations folder. Fix f0.", "Now f1."], 100));
    const result = await hook({
      hook_event_name: "SessionStart",
      source: "compact",
      session_id: "s1",
      transcript_path: path,
      cwd: "/work/p",
    });
    expect(result.exitCode).toBe(0);
    const output = JSON.parse(result.stdout) as {
      hookSpecificOutput: { hookEventName: string; additionalContext: string };
    };
    expect(output.hookSpecificOutput.hookEventName).toBe("SessionStart");
    expect(output.hookSpecificOutput.additionalContext).toBe(
      [
        "cxc kept these facts of the conversation before this compaction, from its raw turns, in case the summary left them out:",
        "The user's instructions, verbatim:",
        '- "Never touch the migrations folder." (turn 1)',
        "Files modified: src/f0.ts, src/f1.ts",
        "",
        // The recall index of the compaction under way (docs/recall.md): cxc mcp reads these.
        "[Recall index: compaction hid these from your context. The recall tool reads one verbatim by its reference (the text before the colon), or searches them all with a query.]",
        "turns 1..2: summarized (2 calls, 183 chars)",
        "turn 1, call 1: Edit /work/p/src/f0.ts a b (67 chars)",
        "turn 2, call 1: Edit /work/p/src/f1.ts a b (67 chars)",
      ].join("\n"),
    );
    writeFileSync(
      path,
      transcript(["Never touch the migrations folder. Fix f0.", "Now f1.", "And f2."], 100),
    );
    const small = await hook(
      {
        hook_event_name: "SessionStart",
        source: "compact",
        session_id: "s1",
        transcript_path: path,
        cwd: "/work/p",
      },
      { CXC_HOOKS__RESTORE__MAX_CHARACTERS: "245" },
    );
    const context = (JSON.parse(small.stdout) as { hookSpecificOutput: { additionalContext: string } })
      .hookSpecificOutput.additionalContext;
    expect(context.length).toBeLessThanOrEqual(245);
    expect(context).toContain('- "Never touch the migrations folder." (turn 1)');
    expect(context).toContain("(left out for space: 3 files modified)");
    // Codex: the same restore from a rollout (its patch tool names the files it changes).
    const rollout = join(home.cwd, "rollout.jsonl");
    const item = (ordinal: number, payload: Record<string, unknown>) =>
      JSON.stringify({
        timestamp: `2026-12-01T12:00:0${ordinal}.000Z`,
        ordinal,
        type: "response_item",
        payload,
      });
    writeFileSync(
      rollout,
      `${[
        JSON.stringify({
          timestamp: "2026-12-01T12:00:00.000Z",
          ordinal: 0,
          type: "session_meta",
          payload: { id: "c1", cwd: "/work/p" },
        }),
        item(1, {
          type: "message",
          role: "user",
          content: [{ type: "input_text", text: `${"Never touch the migrations folder."} Fix the parser.` }],
        }),
        item(2, {
          type: "custom_tool_call",
          call_id: "call_1",
          name: "apply_patch",
          input: "*** Begin Patch\n*** Update File: src/parser.rs\n@@\n-a\n+b\n*** End Patch",
        }),
        item(3, { type: "custom_tool_call_output", call_id: "call_1", output: "Done!" }),
        item(4, { type: "message", role: "assistant", content: [{ type: "output_text", text: "Fixed." }] }),
      ].join("\n")}\n`,
    );
    const codex = await home.run(["hook", "codex"], {
      input: JSON.stringify({
        hook_event_name: "SessionStart",
        source: "compact",
        session_id: "c1",
        transcript_path: rollout,
        cwd: "/work/p",
      }),
    });
    expect(codex.exitCode).toBe(0);
    const restored = (JSON.parse(codex.stdout) as { hookSpecificOutput: { additionalContext: string } })
      .hookSpecificOutput.additionalContext;
    expect(restored).toContain('- "Never touch the migrations folder." (turn 1)');
    expect(restored).toContain("Files modified: src/parser.rs");
    // Other starts are not compactions: nothing.
    const startup = await hook({
      hook_event_name: "SessionStart",
      source: "startup",
      session_id: "s1",
      transcript_path: path,
    });
    expect(startup).toMatchObject({ exitCode: 0, stdout: "" });
  });
});
