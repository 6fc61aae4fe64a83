/**
 * Sessions of agents newer than the pinned ones through the built CLI: `import` names the version
 * and what it left out in one warning; the hooks read such a transcript, restore from it, and note
 * it once per session in `hooks.log`, which `hooks status` shows.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempHome, type TempHome } from "../helpers/cli.js";
import { claudeTranscript, compactInput } from "../helpers/hook-inputs.js";

let home: TempHome;
beforeEach(() => {
  home = makeTempHome();
  mkdirSync(home.cwd, { recursive: true });
});
afterEach(() => home.cleanup());

type Json = Record<string, unknown>;

/** A transcript as a Claude Code newer than the pin writes it: its version, a record and a block cxc does not know. */
function newerTranscript(): string {
  const records = claudeTranscript(["Never touch the migrations folder. Fix f0.", "Now f1."], 100)
    .trimEnd()
    .split("\n")
    .map((line): Json => ({ ...(JSON.parse(line) as Json), version: "2.9.0" }));
  const answer = records[1]!;
  const message = answer.message as Json;
  records[1] = {
    ...answer,
    message: { ...message, content: [...(message.content as Json[]), { type: "hologram" }] },
  };
  records.push({ type: "future-record", sessionId: "s1", timestamp: "2026-12-01T10:09:00.000Z" });
  return `${records.map((record) => JSON.stringify(record)).join("\n")}\n`;
}

const NOTE =
  "written by Claude Code 2.9.0, newer than 2.1.332, which cxc was tested with: 1 record and 1 field of kinds cxc does not know were left out (future-record 1; block hologram 1)";

describe("a Claude Code newer than the pinned one", () => {
  it("import: one warning naming the version and what was left out; the rest imported", async () => {
    const path = join(home.cwd, "s1.jsonl");
    writeFileSync(path, newerTranscript());
    const result = await home.run(["conversation", "import", path]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain("(Never touch the migrations folder. Fix f0., 2 turns)");
    const warnings = result.stderr.split("\n").filter((line) => line.startsWith("cxc: warning:"));
    expect(warnings.filter((line) => line.includes("newer than"))).toEqual([
      `cxc: warning: ${path}: ${NOTE}`,
    ]);
    const json = await home.run(["--format", "json", "conversation", "import", path, "--skip-existing"]);
    expect(JSON.parse(json.stdout)[0].import).toMatchObject({
      version: "2.9.0",
      unknown: { "future-record": 1 },
      unknown_fields: { "block hologram": 1 },
    });
  });

  it("the restore still comes, and hooks.log notes the version once per session; status shows it", async () => {
    const path = join(home.cwd, "s1.jsonl");
    writeFileSync(path, newerTranscript());
    for (let run = 0; run < 2; run++) {
      const result = await home.run(["hook", "claude-code"], { input: JSON.stringify(compactInput(path)) });
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toContain("Never touch the migrations folder.");
    }
    const log = join(home.env.HOME!, ".local", "state", "cxc", "hooks.log");
    expect(existsSync(log)).toBe(true);
    const lines = readFileSync(log, "utf8").trim().split("\n");
    expect(lines).toEqual([
      expect.stringMatching(/ claude-code SessionStart compact: note: written by Claude Code 2\.9\.0/),
    ]);
    expect(lines[0]).toContain(NOTE);
    const status = await home.run(["hooks", "status"]);
    expect(status.stdout).toContain("Hook log");
    expect(status.stdout).toContain(": no failures");
    expect(status.stdout).toContain(`1 note, the last: `);
    expect(status.stdout).toContain(NOTE);
  });
});
