/**
 * `cxc conversation grep`: literal search over user text, assistant text and tool output.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createEventBuilder } from "../helpers/builders.js";
import { makeTempHome, type TempHome } from "../helpers/cli.js";
import { seedConversation } from "./conversation-helpers.js";

let home: TempHome;
afterEach(() => home?.cleanup());

async function seed(): Promise<void> {
  const build = createEventBuilder();
  await seedConversation(home, {
    id: "first0000001",
    title: "First",
    updatedAt: "2026-01-03T00:00:00.000Z",
    events: [
      ...build.turn("where is the Config loader?", {
        reasoning: "config thoughts are not searched",
        answer: "sure",
      }),
      ...build.turn("next", {
        tools: [{ name: "read_file", result: "line one\nexport function loadConfig() {}\nline three" }],
        answer: "The config loader is in src/store/config.ts",
      }),
    ],
  });
  await seedConversation(home, {
    id: "second000001",
    updatedAt: "2026-01-02T00:00:00.000Z",
    events: build.turn("nothing here", { answer: "config\u001b[2J again" }),
  });
  await seedConversation(home, {
    id: "archiv000001",
    archived: true,
    events: build.turn("archived config talk", { answer: "ok" }),
  });
}

describe("cxc conversation grep", () => {
  it("prints id, turn and a sanitized excerpt per matching line (case-sensitive by default)", async () => {
    home = makeTempHome();
    await seed();
    const result = await home.run(["conversation", "grep", "config"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      [
        "first0000001  turn 2  The config loader is in src/store/config.ts",
        "second000001  turn 1  config again",
        "",
      ].join("\n"),
    );
  });

  it("-i ignores case and --archived searches the archive too", async () => {
    home = makeTempHome();
    await seed();
    const result = await home.run(["c", "grep", "-i", "--archived", "CONFIG"]);
    expect(result.stdout.trimEnd().split("\n")).toEqual([
      "first0000001  turn 1  where is the Config loader?",
      "first0000001  turn 2  export function loadConfig() {}",
      "first0000001  turn 2  The config loader is in src/store/config.ts",
      "second000001  turn 1  config again",
      "archiv000001  turn 1  archived config talk",
    ]);
  });

  it("gives JSON records and exits 1 when nothing matches", async () => {
    home = makeTempHome();
    await seed();
    const json = JSON.parse((await home.run(["--format", "json", "c", "grep", "loadConfig"])).stdout);
    expect(json).toEqual([
      {
        id: "first0000001",
        title: "First",
        archived: false,
        turn: 2,
        kind: "tool_output",
        event_id: expect.any(String),
        line: 2,
        excerpt: "export function loadConfig() {}",
      },
    ]);
    const none = await home.run(["c", "grep", "no such text"]);
    expect(none.exitCode).toBe(1);
    expect(none.stdout).toBe("");
    expect(none.stderr).toBe("cxc: No matches.\n");
    const noneJson = await home.run(["--format", "json", "c", "grep", "no such text"]);
    expect(noneJson.exitCode).toBe(1);
    expect(JSON.parse(noneJson.stdout)).toEqual([]);
  });

  it("cuts long lines around the hit and skips unreadable conversations with a warning", async () => {
    home = makeTempHome();
    await seed();
    const build = createEventBuilder();
    await seedConversation(home, {
      id: "long00000001",
      events: build.turn(`${"a".repeat(300)} needle ${"b".repeat(300)}`, { answer: "ok" }),
    });
    writeFileSync(join(home.home, "conversations", "second000001", "events.jsonl"), "garbage\n");
    const result = await home.run(["c", "grep", "needle"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^long00000001 {2}turn 1 {2}…a+ needle b+…\n$/);
    expect(result.stdout.length).toBeLessThan(140);
    expect(result.stderr).toMatch(/^cxc: warning: skipped second000001: .*events\.jsonl:1/m);
  });
});
