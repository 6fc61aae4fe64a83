/**
 * cxc's hook entries merged into and taken out of an agent's JSON settings
 * (src/core/hooks/settings-hooks.ts): every other key and hook byte for byte, idempotent,
 * uninstall gives back the file as it was, and a file that is not valid JSON is refused.
 */
import { describe, expect, it } from "vitest";
import {
  findCxcHooks,
  type HookEntry,
  installHooks,
  isCxcHookCommand,
  uninstallHooks,
} from "../../src/core/interop/agent-hooks.js";

const COMMAND = "'/usr/bin/node' '/opt/cxc/bin/cxc.cjs' hook claude-code";
const ENTRIES: HookEntry[] = [
  { event: "Stop", command: COMMAND, timeout: 30 },
  { event: "SessionStart", matcher: "compact", command: COMMAND, timeout: 30 },
];
const ours = (command: string) => isCxcHookCommand(command, "claude-code");

/** A settings file as a user keeps it: their own hooks, other keys, their own formatting. */
const USERS = `{
  "permissions": { "allow": ["Bash(ls)", "Read"] },
  "hooks": {
    "Stop": [
      {
        "hooks": [ { "type": "command", "command": "notify-send done" } ]
      }
    ],
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "./guard.sh" }] }
    ]
  },
  "model": "opus"
}
`;

function installed(text: string | undefined): string {
  const result = installHooks(text, ENTRIES, ours);
  if (!result.ok) throw new Error(result.error);
  return result.text;
}

function uninstalled(text: string): string {
  const result = uninstallHooks(text, ours);
  if (!result.ok) throw new Error(result.error);
  return result.text;
}

describe("isCxcHookCommand", () => {
  it("knows cxc's command by name or by a path to its bin, quoted or not", () => {
    expect(ours("cxc hook claude-code")).toBe(true);
    expect(ours(COMMAND)).toBe(true);
    expect(ours("/home/me/cxc/bin/cxc.cjs hook claude-code")).toBe(true);
    expect(ours('node "/a b/bin/cxc.cjs" hook claude-code --verbose')).toBe(true);
    expect(ours("cxc hook codex")).toBe(false);
    expect(ours("notcxc hook claude-code")).toBe(false);
    expect(ours("cxc hooks status")).toBe(false);
  });
});

describe("installHooks", () => {
  it("adds cxc's groups after the user's, keeping every other byte, in the file's own indentation", () => {
    const text = installed(USERS);
    expect(JSON.parse(text)).toEqual({
      permissions: { allow: ["Bash(ls)", "Read"] },
      hooks: {
        Stop: [
          { hooks: [{ type: "command", command: "notify-send done" }] },
          { hooks: [{ type: "command", command: COMMAND, timeout: 30 }] },
        ],
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./guard.sh" }] }],
        SessionStart: [{ matcher: "compact", hooks: [{ type: "command", command: COMMAND, timeout: 30 }] }],
      },
      model: "opus",
    });
    // The user's lines are all still there, in order, untouched.
    const lines = text.split("\n");
    let at = 0;
    for (const line of USERS.split("\n").filter((line) => !/^\s*\]\s*,?$|^\s*\}\s*,?$/.test(line))) {
      const found = lines.indexOf(line, at);
      expect(found, line).toBeGreaterThanOrEqual(at);
      at = found + 1;
    }
    expect(text).toContain('\n      {\n        "hooks": [\n          {\n            "type": "command",');
  });

  it("changes nothing the second time", () => {
    const once = installed(USERS);
    const twice = installHooks(once, ENTRIES, ours);
    expect(twice).toEqual({ ok: true, text: once, changed: false, events: [] });
  });

  it("updates a cxc entry that points elsewhere instead of adding a second", () => {
    const old = installed(USERS).replace(COMMAND, "cxc hook claude-code");
    const text = installed(old);
    expect(findCxcHooks(text, ours)).toEqual([
      { event: "Stop", command: COMMAND },
      { event: "SessionStart", matcher: "compact", command: COMMAND },
    ]);
  });

  it("writes a new file holding only the hooks, and merges into one without hooks at its end", () => {
    expect(JSON.parse(installed(undefined))).toEqual({
      hooks: {
        Stop: [{ hooks: [{ type: "command", command: COMMAND, timeout: 30 }] }],
        SessionStart: [{ matcher: "compact", hooks: [{ type: "command", command: COMMAND, timeout: 30 }] }],
      },
    });
    const plain = '{\n\t"model": "opus"\n}\n';
    const text = installed(plain);
    expect(text.startsWith('{\n\t"model": "opus",\n\t"hooks": {\n\t\t"Stop": [')).toBe(true);
  });

  it("refuses a file that is not valid JSON, or whose hooks are not a table of lists, naming where", () => {
    const broken = '{\n  "model": "opus",\n  "hooks": {\n}';
    const result = installHooks(broken, ENTRIES, ours, "/home/me/.claude/settings.json");
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.error).toMatch(/^\/home\/me\/\.claude\/settings\.json is not valid JSON \(/);
    const trailing = installHooks('{ "a": 1, }', ENTRIES, ours, "settings.json");
    expect(trailing.ok).toBe(false);
    if (!trailing.ok) expect(trailing.error).toMatch(/line 1, column \d+/);
    expect(installHooks("[]", ENTRIES, ours, "s.json")).toEqual({
      ok: false,
      error: "s.json does not hold a JSON object",
    });
    expect(installHooks('{"hooks": {"Stop": {}}}', ENTRIES, ours, "s.json")).toEqual({
      ok: false,
      error: "s.json: `hooks.Stop` is not a list",
    });
    expect(installHooks('{"hooks": []}', ENTRIES, ours, "s.json")).toEqual({
      ok: false,
      error: "s.json: `hooks` is not a table of events",
    });
  });
});

describe("uninstallHooks", () => {
  it("gives back the user's file byte for byte", () => {
    expect(uninstalled(installed(USERS))).toBe(USERS);
    const plain = '{\n\t"model": "opus"\n}\n';
    expect(uninstalled(installed(plain))).toBe(plain);
    expect(uninstalled(installed("{}\n"))).toBe("{}\n");
    const crlf = '{\r\n  "model": "opus"\r\n}\r\n';
    expect(uninstalled(installed(crlf))).toBe(crlf);
  });

  it("keeps the user's own hooks when they put cxc's command in a group of theirs", () => {
    const mixed = JSON.stringify(
      {
        hooks: {
          Stop: [
            {
              hooks: [
                { type: "command", command: "notify-send done" },
                { type: "command", command: "cxc hook claude-code" },
              ],
            },
          ],
        },
      },
      null,
      2,
    );
    expect(JSON.parse(uninstalled(mixed))).toEqual({
      hooks: { Stop: [{ hooks: [{ type: "command", command: "notify-send done" }] }] },
    });
  });

  it("changes nothing in a file without cxc's hooks", () => {
    expect(uninstallHooks(USERS, ours)).toEqual({ ok: true, text: USERS, changed: false, events: [] });
  });

  it("refuses a file that is not valid JSON", () => {
    expect(uninstallHooks("{", ours).ok).toBe(false);
  });
});
