/**
 * `cxc hooks install|uninstall|status --agent opencode` through the built CLI: cxc's plugin file
 * written into opencode's `plugins/` folder (user and project), a second install changing nothing,
 * a `cxc.js` of the user's refused and left, uninstall removing only cxc's file; and `cxc hook
 * opencode` silent below the notice line without reading anything, failing open on a database that
 * is not there. The real opencode loads the plugin in test/agents/opencode-hooks.test.ts.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempHome, type TempHome } from "../helpers/cli.js";

let home: TempHome;
let plugin: string;

beforeEach(() => {
  home = makeTempHome();
  plugin = join(home.env.XDG_CONFIG_HOME!, "opencode", "plugins", "cxc.js");
  mkdirSync(home.cwd, { recursive: true });
});
afterEach(() => home.cleanup());

const logPath = () => join(home.env.HOME!, ".local", "state", "cxc", "hooks.log");

describe("cxc hooks install --agent opencode", () => {
  it("writes cxc's plugin file, changes nothing the second time, and uninstall removes it with the folder it made", async () => {
    mkdirSync(join(home.env.XDG_CONFIG_HOME!, "opencode"), { recursive: true });
    const installed = await home.run(["hooks", "install", "--agent", "opencode"]);
    expect(installed.exitCode, installed.stderr).toBe(0);
    expect(installed.stdout).toContain(`Installed cxc's opencode plugin as ${plugin}`);
    const text = readFileSync(plugin, "utf8");
    expect(text).toMatch(/^\/\/ cxc's plugin for opencode: written by `cxc hooks install --agent opencode`/);
    expect(text).toMatch(/import \{ CxcPlugin as cxc \} from "file:\/\/\/.*\/dist\/opencode\/plugin\.js";/);
    expect(text).toMatch(/cxc\(input, \{ node: "\/.*", cxc: "\/.*\/bin\/cxc\.cjs" \}\)/);

    const again = await home.run(["hooks", "install", "--agent", "opencode"]);
    expect(again.stdout).toContain("already installed");
    expect(readFileSync(plugin, "utf8")).toBe(text);

    const status = await home.run(["--format", "json", "hooks", "status"], { cwd: home.cwd });
    const report = JSON.parse(status.stdout) as {
      agents: { agent: string; scope: string; installed: { event: string }[]; missing_programs: string[] }[];
    };
    const row = report.agents.find((entry) => entry.agent === "opencode" && entry.scope === "user")!;
    expect(row.installed.map((hook) => hook.event)).toEqual(["plugin"]);
    expect(row.missing_programs).toEqual([]);

    const removed = await home.run(["hooks", "uninstall", "--agent", "opencode"]);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(existsSync(plugin)).toBe(false);
    expect(existsSync(join(home.env.XDG_CONFIG_HOME!, "opencode", "plugins"))).toBe(false);
    expect(existsSync(join(home.env.XDG_CONFIG_HOME!, "opencode"))).toBe(true);
  });

  it("refuses a cxc.js of the user's and leaves it; --project writes .opencode/plugins/cxc.js", async () => {
    mkdirSync(join(home.env.XDG_CONFIG_HOME!, "opencode", "plugins"), { recursive: true });
    writeFileSync(plugin, "export const Mine = async () => ({});\n");
    const refused = await home.run(["hooks", "install", "--agent", "opencode"]);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain(`${plugin} is not cxc's plugin file`);
    expect(readFileSync(plugin, "utf8")).toBe("export const Mine = async () => ({});\n");
    const kept = await home.run(["hooks", "uninstall", "--agent", "opencode"]);
    expect(kept.exitCode).not.toBe(0);
    expect(readFileSync(plugin, "utf8")).toBe("export const Mine = async () => ({});\n");

    const project = await home.run(["hooks", "install", "--agent", "opencode", "--project"], {
      cwd: home.cwd,
    });
    expect(project.exitCode, project.stderr).toBe(0);
    expect(existsSync(join(home.cwd, ".opencode", "plugins", "cxc.js"))).toBe(true);
    const gone = await home.run(["hooks", "uninstall", "--agent", "opencode", "--project"], {
      cwd: home.cwd,
    });
    expect(gone.exitCode, gone.stderr).toBe(0);
    expect(existsSync(join(home.cwd, ".opencode"))).toBe(false);
  });
});

describe("cxc hook opencode", () => {
  const hook = (input: unknown) =>
    home.run(["hook", "opencode"], {
      input: JSON.stringify(input),
      env: {
        CXC_ADVISOR_NOTICE_TOKENS: "1000",
        CXC_ADVISOR_RECOMMEND_TOKENS: "2000",
        CXC_ADVISOR_REQUEST_TOKENS: "3000",
      },
    });

  it("is silent below the notice line without reading the database, and fails open on one that is not there", async () => {
    const missing = join(home.cwd, "no-opencode");
    const quiet = await hook({
      hook_event_name: "session.idle",
      session_id: "ses_1",
      transcript_path: missing,
      cwd: home.cwd,
      context_tokens: 500,
      model: "anthropic/claude-sonnet-4-5",
    });
    expect(quiet).toMatchObject({ exitCode: 0, stdout: "" });
    expect(existsSync(logPath())).toBe(false);
    const restore = await hook({
      hook_event_name: "experimental.chat.messages.transform",
      session_id: "ses_1",
      transcript_path: missing,
      cwd: home.cwd,
    });
    expect(restore).toMatchObject({ exitCode: 0, stdout: "" });
    expect(readFileSync(logPath(), "utf8")).toMatch(/opencode experimental\.chat\.messages\.transform: /);
  });
});
