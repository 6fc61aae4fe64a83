/**
 * The settings file of `cxc hooks install|uninstall` as a file (src/cli/hooks/settings-file.ts,
 * src/cli/commands/hooks/): links, protected files, leftovers, another program's edit, a
 * mistyped project directory, the agents' byte-order mark and empty file, `hooks` twice, and
 * `--project`/`--local` with hints that repeat the flags used. Through the built CLI, except the
 * concurrent edit, which is staged in-process between cxc's read and its rename.
 */
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { installHooks } from "../../src/core/interop/agent-hooks.js";
import { hookCommand, hookEntries, settingsOptions } from "../../src/cli/hooks/agent-settings.js";
import { editSettingsFile } from "../../src/cli/hooks/settings-file.js";
import { CxcError } from "../../src/errors.js";
import { makeTempHome, type TempHome } from "../helpers/cli.js";

let home: TempHome;
let user: string;
let settings: string;

beforeEach(() => {
  home = makeTempHome();
  user = home.env.HOME!;
  settings = join(user, ".claude", "settings.json");
  mkdirSync(join(user, ".claude"), { recursive: true });
  mkdirSync(home.cwd, { recursive: true });
});
afterEach(() => home.cleanup());

const errorLines = (stderr: string) => stderr.split("\n").filter((line) => line.startsWith("cxc: error:"));
/** The hints, less the MCP server's (whether it registers depends on `claude` being on PATH: mcp.test.ts). */
const hints = (stderr: string) =>
  stderr.split("\n").filter((line) => line.startsWith("hint:") && !line.includes("cxc's MCP server"));

describe("the file stays what it is", () => {
  it("edits the file a link points to, and the link stays a link", async () => {
    const real = join(user, "dotfiles", "claude-settings.json");
    mkdirSync(join(user, "dotfiles"));
    writeFileSync(real, '{\n  "model": "opus"\n}\n');
    symlinkSync(real, settings);
    const result = await home.run(["hooks", "install"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(lstatSync(settings).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, "utf8")).toContain("hook claude-code");
    await home.run(["hooks", "uninstall"]);
    expect(readFileSync(real, "utf8")).toBe('{\n  "model": "opus"\n}\n');
  });

  it("refuses a link to a file that does not exist, saying so, and leaves the link", async () => {
    const missing = join(user, "dotfiles", "gone.json");
    symlinkSync(missing, settings);
    for (const verb of ["install", "uninstall"]) {
      const result = await home.run(["hooks", verb]);
      expect(result.exitCode).toBe(1);
      expect(errorLines(result.stderr)).toEqual([
        `cxc: error: ${settings} is a symbolic link to ${missing}, which does not exist; nothing was changed`,
      ]);
      expect(lstatSync(settings).isSymbolicLink()).toBe(true);
    }
  });

  it("refuses a read-only file whoever runs cxc, and leaves it and its mode", async () => {
    writeFileSync(settings, "{}\n");
    chmodSync(settings, 0o444);
    const result = await home.run(["hooks", "install"]);
    expect(result.exitCode).toBe(1);
    expect(errorLines(result.stderr)).toEqual([
      `cxc: error: ${settings} is read-only (mode 0444): cxc does not rewrite a file you protected; nothing was changed`,
    ]);
    expect(readFileSync(settings, "utf8")).toBe("{}\n");
    expect(statSync(settings).mode & 0o777).toBe(0o444);
  });

  it("keeps the file's mode, and (run as root) its owner", async () => {
    writeFileSync(settings, "{}\n");
    chmodSync(settings, 0o600);
    const asRoot = process.getuid?.() === 0;
    if (asRoot) chownSync(settings, 4321, 4322);
    const result = await home.run(["hooks", "install"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const stats = statSync(settings);
    expect(stats.mode & 0o777).toBe(0o600);
    if (asRoot) expect([stats.uid, stats.gid]).toEqual([4321, 4322]);
  });

  it("removes the temporary file an interrupted run left", async () => {
    writeFileSync(settings, "{}\n");
    // A pid no process has (above the kernel's limit), and one that is alive: this test's.
    writeFileSync(`${settings}.cxc-99999999.tmp`, '{"half": ');
    writeFileSync(`${settings}.cxc-${process.pid}.tmp`, "in use");
    const result = await home.run(["hooks", "install"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(readdirSync(join(user, ".claude")).sort()).toEqual([
      "settings.json",
      `settings.json.cxc-${process.pid}.tmp`,
    ]);
  });
});

describe("another program's edit is not lost", () => {
  const path = () => settings;
  const entries = hookEntries(
    "claude-code",
    hookCommand("claude-code", "/usr/bin/node", "/opt/cxc/bin/cxc.cjs"),
  );
  const refused = (error: string) => new CxcError("agent-settings", error);

  it("makes the edit again on what the other program wrote between cxc's read and its rename", () => {
    writeFileSync(settings, '{\n  "model": "opus"\n}\n');
    let calls = 0;
    const { result } = editSettingsFile(
      path(),
      (text) => {
        calls += 1;
        // The agent writes the file while cxc is editing it, once.
        if (calls === 1) writeFileSync(settings, '{\n  "model": "opus",\n  "theme": "dark"\n}\n');
        return installHooks(text, entries, settingsOptions("claude-code", path()));
      },
      refused,
    );
    expect(calls).toBe(2);
    const written = JSON.parse(readFileSync(settings, "utf8"));
    expect(written.theme).toBe("dark");
    expect(written.hooks.Stop).toHaveLength(1);
    expect(result.changed).toBe(true);
  });

  it("gives up with one error when the file keeps changing, leaving the other program's text", () => {
    writeFileSync(settings, "{}\n");
    let calls = 0;
    expect(() =>
      editSettingsFile(
        path(),
        (text) => {
          calls += 1;
          writeFileSync(settings, `{"n": ${calls}}\n`);
          return installHooks(text, entries, settingsOptions("claude-code", path()));
        },
        refused,
      ),
    ).toThrow(
      `${settings} kept changing while cxc edited it (another program writes it); nothing was changed`,
    );
    expect(readFileSync(settings, "utf8")).toBe('{"n": 5}\n');
    expect(readdirSync(join(user, ".claude"))).toEqual(["settings.json"]);
  });
});

describe("how each agent reads its file", () => {
  it("Claude Code: a byte-order mark is kept in front; Codex: refused, saying so", async () => {
    writeFileSync(settings, '\uFEFF{\n  "model": "opus"\n}\n');
    const claude = await home.run(["hooks", "install"]);
    expect(claude.exitCode, claude.stderr).toBe(0);
    expect(readFileSync(settings, "utf8").startsWith('\uFEFF{\n  "model": "opus",\n  "hooks"')).toBe(true);
    const codexFile = join(user, ".codex", "hooks.json");
    mkdirSync(join(user, ".codex"));
    writeFileSync(codexFile, '\uFEFF{"hooks": {}}');
    const codex = await home.run(["hooks", "install", "--agent", "codex"]);
    expect(codex.exitCode).toBe(1);
    expect(errorLines(codex.stderr)).toEqual([
      `cxc: error: ${codexFile} starts with a byte-order mark (U+FEFF), which Codex does not read: remove it (the file's first three bytes); nothing was changed`,
    ]);
    expect(hints(codex.stderr)).toEqual([
      "hint: fix the file (or move it aside), then run `cxc hooks install --agent codex` again",
    ]);
  });

  it("an empty file: Claude Code reads it as none, so cxc writes into it; Codex refuses it, said plainly", async () => {
    writeFileSync(settings, "");
    const claude = await home.run(["hooks", "install"]);
    expect(claude.exitCode, claude.stderr).toBe(0);
    expect(JSON.parse(readFileSync(settings, "utf8")).hooks.Stop).toHaveLength(1);
    mkdirSync(join(user, ".codex"));
    writeFileSync(join(user, ".codex", "hooks.json"), "");
    const codex = await home.run(["hooks", "install", "--agent", "codex"]);
    expect(codex.exitCode).toBe(1);
    expect(errorLines(codex.stderr)[0]).toContain("hooks.json is an empty file, which Codex does not read");
  });

  it("`hooks` twice is one error, and nothing is added to either", async () => {
    const text = '{\n  "hooks": {},\n  "model": "opus",\n  "hooks": {"Stop": []}\n}\n';
    writeFileSync(settings, text);
    const result = await home.run(["hooks", "install"]);
    expect(result.exitCode).toBe(1);
    expect(errorLines(result.stderr)).toEqual([
      `cxc: error: ${settings} has \`hooks\` twice (lines 2 and 4); Claude Code reads only the last one: merge them into one; nothing was changed`,
    ]);
    expect(readFileSync(settings, "utf8")).toBe(text);
    const status = await home.run(["hooks", "status"]);
    expect(status.stdout).toContain(`Claude Code, user (${settings}): has \`hooks\` twice`);
  });
});

describe("--project and --local", () => {
  it("refuses a project directory that does not exist, and creates nothing", async () => {
    const mistyped = join(home.cwd, "reop");
    for (const flag of ["--project", "--local"]) {
      const result = await home.run(["hooks", "install", flag, mistyped]);
      expect(result.exitCode).toBe(2);
      expect(errorLines(result.stderr)).toEqual([
        `cxc: error: ${mistyped} is not a directory; cxc puts hooks into an existing project, it does not create one`,
      ]);
    }
    expect(existsSync(mistyped)).toBe(false);
  });

  it("--project warns that the file is usually committed, and every hint repeats the flags used", async () => {
    const project = join(home.cwd, "my app");
    mkdirSync(project);
    const file = join(project, ".claude", "settings.json");
    const installed = await home.run(["hooks", "install", "--project", project]);
    expect(installed.exitCode, installed.stderr).toBe(0);
    expect(installed.stderr).toContain(
      `cxc: warning: ${file} is usually committed with the project, and it now holds this machine's paths to Node and cxc; \`--local\` writes .claude/settings.local.json instead, Claude Code's file for this machine only`,
    );
    expect(hints(installed.stderr)).toEqual([
      `hint: \`cxc hooks status\` shows them; \`cxc hooks uninstall --agent claude-code --project '${project}'\` removes them`,
    ]);
    // The plain uninstall finds nothing in the user's file, and says where they are.
    const plain = await home.run(["hooks", "uninstall"], { cwd: project });
    expect(plain.stdout).toContain(`No cxc Claude Code hooks in ${settings}; nothing changed.`);
    expect(hints(plain.stderr)).toEqual([
      `hint: cxc's Claude Code hooks are in ${file}: \`cxc hooks uninstall --agent claude-code --project\``,
    ]);
    writeFileSync(file, "{,}");
    const broken = await home.run(["hooks", "install", "--project", project]);
    expect(hints(broken.stderr)).toEqual([
      `hint: fix the file (or move it aside), then run \`cxc hooks install --agent claude-code --project '${project}'\` again`,
    ]);
  });

  it("--local writes Claude Code's settings.local.json, and is refused for Codex", async () => {
    const installed = await home.run(["hooks", "install", "--local"], { cwd: home.cwd });
    expect(installed.exitCode, installed.stderr).toBe(0);
    const local = join(home.cwd, ".claude", "settings.local.json");
    expect(JSON.parse(readFileSync(local, "utf8")).hooks.SessionStart[0].matcher).toBe(
      "startup|resume|clear|compact",
    );
    expect(installed.stderr).not.toContain("warning");
    expect(hints(installed.stderr)[0]).toContain(
      "`cxc hooks uninstall --agent claude-code --local` removes them",
    );
    const status = await home.run(["--format", "json", "hooks", "status"], { cwd: home.cwd });
    const rows = JSON.parse(status.stdout).agents as { scope: string; agent: string; installed: unknown[] }[];
    expect(rows.find((row) => row.agent === "claude-code" && row.scope === "local")!.installed).toHaveLength(
      2,
    );
    const removed = await home.run(["hooks", "uninstall", "--local"], { cwd: home.cwd });
    expect(removed.stdout).toContain(`Removed cxc's Claude Code hooks from ${local}`);
    const codex = await home.run(["hooks", "install", "--agent", "codex", "--local"], { cwd: home.cwd });
    expect(codex.exitCode).toBe(2);
    expect(errorLines(codex.stderr)).toEqual([
      "cxc: error: Codex has no local settings file; --local is Claude Code's settings.local.json",
    ]);
    const both = await home.run(["hooks", "install", "--project", "--local"], { cwd: home.cwd });
    expect(errorLines(both.stderr)).toEqual(["cxc: error: --project and --local name different files"]);
  });
});
