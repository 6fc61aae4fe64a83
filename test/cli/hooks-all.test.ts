/**
 * `cxc hooks status --all` and `cxc hooks uninstall --all` through the built CLI: cxc put into all
 * five agents, in the user's files and a project's (Claude Code's and Gemini CLI's hooks beside the
 * user's own, Codex's in a project, opencode's plugin file, pi's package entries by npm name and by
 * path), listed in one place and taken out in one command, every other byte kept; a file an agent
 * would not read stops the whole uninstall before anything changes.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempHome, PROJECT_ROOT, type TempHome } from "../helpers/cli.js";

let home: TempHome;
let user: string;

const CLAUDE = `{
  "hooks": {
    "Stop": [{ "hooks": [{ "type": "command", "command": "notify-send done" }] }]
  }
}
`;
const GEMINI = `// mine
{ "general": { "vimMode": true } }
`;
const PI = `{
  "defaultProvider": "anthropic",
  "packages": [
    "npm:pi-skills",
    "npm:cxc",
    ${JSON.stringify(PROJECT_ROOT)}
  ]
}`;
const PI_PROJECT = `{"packages":[{"source":"npm:cxc@0.1.0","extensions":[]}]}`;

beforeEach(() => {
  home = makeTempHome();
  user = home.env.HOME!;
  mkdirSync(home.cwd, { recursive: true });
});
afterEach(() => home.cleanup());

function write(path: string, text: string): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
}

describe("cxc hooks status --all, uninstall --all", () => {
  it("lists everything cxc put into the five agents and takes it all out, every other byte kept", async () => {
    const claude = write(join(user, ".claude", "settings.json"), CLAUDE);
    const gemini = write(join(user, ".gemini", "settings.json"), GEMINI);
    const pi = write(join(user, ".pi", "agent", "settings.json"), PI);
    const piProject = write(join(home.cwd, ".pi", "settings.json"), PI_PROJECT);
    for (const args of [
      ["--agent", "claude-code"],
      ["--agent", "gemini"],
      ["--agent", "codex", "--project"],
      ["--agent", "opencode"],
    ]) {
      const installed = await home.run(["hooks", "install", ...args], { cwd: home.cwd });
      expect(installed.exitCode, installed.stderr).toBe(0);
    }
    const codex = join(home.cwd, ".codex", "hooks.json");
    const plugin = join(home.env.XDG_CONFIG_HOME!, "opencode", "plugins", "cxc.js");

    const status = await home.run(["hooks", "status", "--all"], { cwd: home.cwd });
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toContain(
      `Claude Code, user (${claude}): hooks: Stop, SessionStart startup|resume|clear|compact`,
    );
    expect(status.stdout).toContain(`Gemini CLI, user (${gemini}): hooks: AfterAgent, BeforeModel`);
    expect(status.stdout).toContain(
      `Codex, project (${codex}): hooks: Stop, SessionStart startup|resume|clear|compact`,
    );
    expect(status.stdout).toContain(`opencode, user (${plugin}): plugin`);
    expect(status.stdout).toContain(`pi, user (${pi}): package: npm:cxc, ${PROJECT_ROOT}`);
    expect(status.stdout).toContain(`pi, project (${piProject}): package: npm:cxc@0.1.0`);
    expect(status.stdout).toContain("cxc is in 6 places (checked 11 files");
    expect(status.stdout).toContain(
      "cxc's MCP server (recall) is registered through the agents' own commands",
    );

    const removed = await home.run(["hooks", "uninstall", "--all"], { cwd: home.cwd });
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(removed.stdout.trim().split("\n")).toHaveLength(6);
    expect(readFileSync(claude, "utf8")).toBe(CLAUDE);
    expect(readFileSync(gemini, "utf8")).toBe(GEMINI);
    expect(readFileSync(pi, "utf8")).toBe(`{
  "defaultProvider": "anthropic",
  "packages": [
    "npm:pi-skills"
  ]
}`);
    expect(readFileSync(piProject, "utf8")).toBe(`{"packages":[]}`);
    expect(readFileSync(codex, "utf8")).toBe("{}\n");
    expect(existsSync(plugin)).toBe(false);

    const after = await home.run(["--format", "json", "hooks", "status", "--all"], { cwd: home.cwd });
    const report = JSON.parse(after.stdout) as { places: { installed: string[] }[] };
    expect(report.places.every((place) => place.installed.length === 0)).toBe(true);
    const again = await home.run(["hooks", "uninstall", "--all"], { cwd: home.cwd });
    expect(again.stdout).toContain("cxc is in none of the agents (checked 11 files); nothing changed.");
  });

  it("refuses the whole uninstall on a file an agent would not read, naming it, and changes nothing", async () => {
    const installed = await home.run(["hooks", "install", "--agent", "claude-code"], { cwd: home.cwd });
    expect(installed.exitCode, installed.stderr).toBe(0);
    const claude = readFileSync(join(user, ".claude", "settings.json"), "utf8");
    const broken = write(join(home.cwd, ".gemini", "settings.json"), '{"hooks": ');
    const refused = await home.run(["hooks", "uninstall", "--all"], { cwd: home.cwd });
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain(broken);
    expect(refused.stderr).toContain("nothing was changed");
    expect(readFileSync(join(user, ".claude", "settings.json"), "utf8")).toBe(claude);
    const mixed = await home.run(["hooks", "uninstall", "--all", "--agent", "codex"], { cwd: home.cwd });
    expect(mixed.exitCode).toBe(2);
  });
});
