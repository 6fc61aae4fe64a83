/**
 * Codex's odd shapes and paths through the built CLI: rollouts whose `session_meta` is not on line 1
 * (blank lines, a CRLF line before it) or comes twice import (streamed, with the agent found from
 * the file), and the Codex restore hook works on them; an export whose folder cannot be made says
 * why (a parent that is a file, a `CODEX_HOME` under /proc, which used to spin forever), as does
 * `hooks install` with such a `CODEX_HOME`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempHome, PROJECT_ROOT, type TempHome } from "../helpers/cli.js";
import { compactInput } from "../helpers/hook-inputs.js";

const FIXTURE = readFileSync(join(PROJECT_ROOT, "fixtures", "agents", "codex", "session.jsonl"), "utf8");

let home: TempHome;
beforeEach(() => {
  home = makeTempHome();
  mkdirSync(home.cwd, { recursive: true });
});
afterEach(() => home.cleanup());

const errorLine = (stderr: string) => stderr.split("\n").find((line) => line.startsWith("cxc: error:"));

describe("rollouts whose session_meta is not on line 1, or comes twice", () => {
  const [meta, ...rest] = FIXTURE.trimEnd().split("\n");
  const shapes: [string, string][] = [
    ["blank-first-line", `\n${FIXTURE}`],
    ["two-blank-lines", `\n\n${FIXTURE}`],
    ["crlf-first-line", `\r\n${FIXTURE}`],
    ["second-session-meta", `${[meta, ...rest.slice(0, 3), meta, ...rest.slice(3)].join("\n")}\n`],
  ];

  it("import, the agent found from the file, each the same conversation", async () => {
    const ids = new Set<string>();
    for (const [name, text] of shapes) {
      const path = join(home.cwd, `${name}.jsonl`);
      writeFileSync(path, text);
      const imported = await home.run(["conversation", "import", path, "--format", "json"]);
      expect(imported.exitCode, `${name}: ${imported.stderr}`).toBe(0);
      const [conversation] = JSON.parse(imported.stdout) as { id: string; title: string; turns: number }[];
      expect(conversation!.turns).toBe(3);
      ids.add(conversation!.id);
      await home.run(["conversation", "rm", "-y", conversation!.id]);
    }
    expect([...ids]).toHaveLength(1);
  });

  it("the Codex restore hook gives the same restore on each shape", async () => {
    const line = (type: string, payload: Record<string, unknown>, second: number) =>
      JSON.stringify({ timestamp: `2026-12-01T12:00:0${second}.000Z`, type, payload });
    const user = (text: string) => ({
      type: "message",
      role: "user",
      content: [{ type: "input_text", text }],
    });
    const metaLine = line("session_meta", { id: "c1", cwd: "/work/p" }, 0);
    const records = [
      line("response_item", user("Never touch the migrations folder. Fix it."), 1),
      line(
        "response_item",
        {
          type: "custom_tool_call",
          call_id: "k1",
          name: "apply_patch",
          input: "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-a\n+b\n*** End Patch",
        },
        2,
      ),
      line("response_item", { type: "custom_tool_call_output", call_id: "k1", output: "Done!" }, 3),
    ];
    const rollouts = {
      plain: [metaLine, ...records],
      "blank-first-line": ["", metaLine, ...records],
      "two-blank-lines": ["", "", metaLine, ...records],
      "crlf-first-line": ["\r", metaLine, ...records],
      "second-session-meta": [metaLine, records[0]!, metaLine, ...records.slice(1)],
    };
    const outputs = new Set<string>();
    for (const [name, lines] of Object.entries(rollouts)) {
      const path = join(home.cwd, `${name}.jsonl`);
      writeFileSync(path, `${lines.join("\n")}\n`);
      const restore = await home.run(["hook", "codex"], { input: JSON.stringify(compactInput(path)) });
      expect(restore.exitCode).toBe(0);
      expect(restore.stdout, name).toContain('- \\"Never touch the migrations folder.\\" (turn 1)');
      outputs.add(restore.stdout);
    }
    expect(outputs.size).toBe(1);
    expect(existsSync(join(home.env.HOME!, ".local", "state", "cxc", "hooks.log"))).toBe(false);
  });
});

describe("an export or install whose folder cannot be made says why", () => {
  let id: string;
  beforeEach(async () => {
    const path = join(home.cwd, "rollout.jsonl");
    writeFileSync(path, FIXTURE);
    const imported = await home.run(["conversation", "import", path, "--format", "json"]);
    id = (JSON.parse(imported.stdout) as { id: string }[])[0]!.id;
  });

  it("--output under a path whose parent is a regular file", async () => {
    const file = join(home.cwd, "notes.txt");
    writeFileSync(file, "mine\n");
    const output = join(file, "rollout.jsonl");
    const result = await home.run(["conversation", "export", id, "--to", "codex", "--output", output]);
    expect(result.exitCode).toBe(2);
    expect(errorLine(result.stderr)).toBe(
      `cxc: error: cannot create the folder of ${output}: ${file} is a file, not a directory`,
    );
    expect(readFileSync(file, "utf8")).toBe("mine\n");
  });

  it("CODEX_HOME under /proc fails at once, for export and for hooks install", async () => {
    const env = { CODEX_HOME: "/proc/cxc-codex-home" };
    const exported = await home.run(["conversation", "export", id, "--to", "codex"], { env });
    expect(exported.exitCode).toBe(2);
    expect(errorLine(exported.stderr)).toMatch(
      /^cxc: error: cannot create the folder of \/proc\/cxc-codex-home\/sessions\/.*: \/proc does not take new directories \(its file system refuses them\)$/,
    );
    const installed = await home.run(["hooks", "install", "--agent", "codex"], { env });
    expect(installed.exitCode).toBe(1);
    expect(errorLine(installed.stderr)).toBe(
      "cxc: error: cannot create /proc/cxc-codex-home: /proc does not take new directories (its file system refuses them)",
    );
  });
});
