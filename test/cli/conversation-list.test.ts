/**
 * `cxc conversation ls`: ordering, markers, limits, JSON keys, the empty store, and speed over a
 * thousand conversations without reading any log.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createEventBuilder } from "../helpers/builders.js";
import { makeTempHome, type TempHome } from "../helpers/cli.js";
import { seedConversation } from "./conversation-helpers.js";

let home: TempHome;
afterEach(() => home?.cleanup());

describe("cxc conversation ls", () => {
  it("says so in a friendly line when the store is empty, and prints [] as JSON", async () => {
    home = makeTempHome();
    const text = await home.run(["conversation", "ls"]);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toBe("");
    // It names the store it looked in.
    expect(text.stderr).toBe(
      `cxc: No conversations yet in ${home.home} (from CXC_HOME). Start one with \`cxc conversation new\` or \`cxc query\`.\n`,
    );
    const json = await home.run(["--format", "json", "c", "ls"]);
    expect(JSON.parse(json.stdout)).toEqual([]);
    const archived = await home.run(["c", "ls", "--archived"]);
    expect(archived.stderr).toBe(`cxc: No archived conversations in ${home.home} (from CXC_HOME).\n`);
    // Every conversation archived: not "yet", and where they are.
    await seedConversation(home, { id: "arch000000001", title: "Put away", archived: true });
    const allArchived = await home.run(["conversation", "ls"]);
    expect(allArchived.stderr).toBe(
      `cxc: No conversations outside the archive in ${home.home} (from CXC_HOME); 1 archived conversation: \`cxc conversation ls --archived\` lists it, \`cxc conversation use ID\` brings one back.\n`,
    );
  });

  it("lists pinned first, then newest, with turns, relative times and markers", async () => {
    home = makeTempHome();
    const build = createEventBuilder();
    const now = Date.now();
    const ago = (minutes: number) => new Date(now - minutes * 60_000).toISOString();
    await seedConversation(home, { id: "old0000000001", title: "Old", updatedAt: ago(60 * 24 * 3) });
    await seedConversation(home, {
      id: "new0000000002",
      title: "New",
      events: build.turns(3),
      updatedAt: ago(5),
    });
    await seedConversation(home, {
      id: "pin0000000003",
      title: "Pinned",
      updatedAt: ago(60 * 24 * 30),
      pinnedAt: ago(60),
      active: true,
    });
    await seedConversation(home, { id: "arc0000000004", title: "Archived", archived: true });
    const result = await home.run(["conversation", "ls"]);
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^\s+ID\s+TURNS\s+UPDATED\s+FROM\s+TITLE$/);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^>\* {2}pin0000000003\s+0\s+1 month ago\s+cxc\s+Pinned$/),
      expect.stringMatching(/^ {4}new0000000002\s+3\s+5 minutes ago\s+cxc\s+New$/),
      expect.stringMatching(/^ {4}old0000000001\s+0\s+3 days ago\s+cxc\s+Old$/),
    ]);
    const json = JSON.parse((await home.run(["--format", "json", "c", "ls"])).stdout) as Record<
      string,
      unknown
    >[];
    expect(json.map((entry) => entry.id)).toEqual(["pin0000000003", "new0000000002", "old0000000001"]);
    expect(json[1]).toEqual({
      id: "new0000000002",
      title: "New",
      turns: 3,
      events: 9,
      source: "cxc",
      created_at: "2026-01-01T00:00:00.000Z",
      updated_at: ago(5),
      pinned: false,
      pinned_at: null,
      archived: false,
      active: false,
      review: null,
      open_review: null,
    });
    expect(json[0]).toMatchObject({ pinned: true, active: true });
    const archived = JSON.parse((await home.run(["--format", "json", "c", "ls", "--archived"])).stdout);
    expect(archived).toEqual([expect.objectContaining({ id: "arc0000000004", archived: true })]);
  });

  it("--limit keeps the first N and says how many more there are", async () => {
    home = makeTempHome();
    for (let index = 1; index <= 4; index++) {
      await seedConversation(home, {
        id: `conv00000000${index}`,
        updatedAt: `2026-01-0${index}T00:00:00.000Z`,
      });
    }
    const result = await home.run(["c", "ls", "--limit", "2"]);
    expect(result.stdout.trimEnd().split("\n").slice(1)).toEqual([
      expect.stringMatching(/^ {4}conv000000004 /),
      expect.stringMatching(/^ {4}conv000000003 /),
    ]);
    expect(result.stderr).toBe(
      `cxc: 2 more conversations; raise --limit to see them\ncxc: Store: ${home.home} (from CXC_HOME).\n`,
    );
  });

  it("sanitizes titles", async () => {
    home = makeTempHome();
    await seedConversation(home, { id: "evil000000001", title: "Nice\u001b]0;pwned\u0007 title\u001b[2J" });
    const result = await home.run(["c", "ls"]);
    expect(result.stdout).toContain("Nice title");
    expect(result.stdout).not.toContain("\u001b");
  });

  it("lists 1,000 conversations reading only meta.json (its speed is a bench, not a test)", async () => {
    home = makeTempHome();
    const base = join(home.home, "conversations");
    for (let index = 0; index < 1000; index++) {
      const id = `bulk${String(index).padStart(9, "0")}`;
      const directory = join(base, id);
      mkdirSync(directory, { recursive: true });
      const meta = {
        id,
        title: `Conversation ${index}`,
        created_at: "2026-01-01T00:00:00.000Z",
        updated_at: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(),
        event_count: 3,
        turn_count: 1,
      };
      writeFileSync(join(directory, "meta.json"), JSON.stringify(meta));
      // A log that fails to parse: ls must never open it.
      writeFileSync(join(directory, "events.jsonl"), "not a log\n{broken\n");
    }
    const result = await home.run(["--format", "json", "c", "ls"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toBe("");
    const listed = JSON.parse(result.stdout) as { id: string }[];
    expect(listed).toHaveLength(1000);
    expect(listed[0]!.id).toBe("bulk000000999");
  });
});
