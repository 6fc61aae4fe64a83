/**
 * `use`, `archive`, `unarchive`, `rm` and `edit`: what each changes on disk and prints.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createEventBuilder } from "../helpers/builders.js";
import { CXC_BIN, makeTempHome, type TempHome } from "../helpers/cli.js";
import { startInTmux } from "../helpers/pty.js";
import { metaOf, openStore, seedConversation, snapshotTree } from "./conversation-helpers.js";

let home: TempHome;
afterEach(() => home?.cleanup());

async function seedPair(): Promise<void> {
  const build = createEventBuilder();
  await seedConversation(home, { id: "alpha0000001", title: "Alpha", events: build.turns(1), active: true });
  await seedConversation(home, { id: "beta00000001", title: "Beta", events: build.turns(2) });
}

describe("cxc conversation use", () => {
  it("makes a conversation active for later commands without an id", async () => {
    home = makeTempHome();
    await seedPair();
    const result = await home.run(["conversation", "use", "beta"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toBe("Active conversation: beta00000001 (Beta)\n");
    expect(openStore(home).active()).toBe("beta00000001");
    const shown = JSON.parse((await home.run(["--format", "json", "c", "show"])).stdout);
    expect(shown).toMatchObject({ id: "beta00000001", active: true });
    const again = JSON.parse((await home.run(["--format", "json", "c", "use", "beta0"])).stdout);
    expect(again).toEqual({ id: "beta00000001", title: "Beta", previous: "beta00000001", changed: false });
  });

  it("keeps a separate active conversation per CXC_SESSION", async () => {
    home = makeTempHome();
    await seedPair();
    await home.run(["c", "use", "beta"], { env: { CXC_SESSION: "terminal-2" } });
    const here = JSON.parse((await home.run(["--format", "json", "c", "show"])).stdout);
    const there = JSON.parse(
      (await home.run(["--format", "json", "c", "show"], { env: { CXC_SESSION: "terminal-2" } })).stdout,
    );
    expect([here.id, there.id]).toEqual(["alpha0000001", "beta00000001"]);
  });

  it("unarchives an archived conversation named by its id and makes it active, as jp's use does", async () => {
    home = makeTempHome();
    await seedPair();
    await seedConversation(home, { id: "gone00000001", archived: true });
    const result = await home.run(["c", "use", "gone"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      "Unarchived conversation gone00000001.\nActive conversation: gone00000001 (untitled)\n",
    );
    expect(existsSync(join(home.home, "conversations", "gone00000001", "events.jsonl"))).toBe(true);
    expect(openStore(home).active()).toBe("gone00000001");
    const json = JSON.parse((await home.run(["--format", "json", "c", "use", "alpha"])).stdout);
    expect(json).toMatchObject({ id: "alpha0000001", changed: true });
    expect(json).not.toHaveProperty("unarchived");
  });
});

describe("cxc conversation archive and unarchive", () => {
  it("moves the active conversation to the archive, clears active, and brings it back", async () => {
    home = makeTempHome();
    await seedPair();
    const archived = await home.run(["c", "archive"]);
    expect(archived.exitCode, archived.stderr).toBe(0);
    expect(archived.stdout).toBe("Archived conversation alpha0000001.\n");
    expect(archived.stderr).toMatch(/no conversation is active now/);
    expect(existsSync(join(home.home, "archive", "alpha0000001", "events.jsonl"))).toBe(true);
    expect(existsSync(join(home.home, "conversations", "alpha0000001"))).toBe(false);
    expect(metaOf(home, "alpha0000001", true).archived_at).toMatch(/^\d{4}-/);
    expect(openStore(home).active()).toBeUndefined();
    const listed = JSON.parse((await home.run(["--format", "json", "c", "ls"])).stdout);
    expect(listed.map((entry: { id: string }) => entry.id)).toEqual(["beta00000001"]);
    const twice = JSON.parse((await home.run(["--format", "json", "c", "archive", "alpha"])).stdout);
    expect(twice).toEqual({ id: "alpha0000001", archived: true, changed: false, was_active: false });

    const restored = await home.run(["c", "unarchive", "alpha"]);
    expect(restored.stdout).toBe("Unarchived conversation alpha0000001.\n");
    expect(existsSync(join(home.home, "conversations", "alpha0000001", "events.jsonl"))).toBe(true);
    expect(metaOf(home, "alpha0000001").archived_at).toBeUndefined();
    const notArchived = JSON.parse((await home.run(["--format", "json", "c", "unarchive", "alpha"])).stdout);
    expect(notArchived).toEqual({ id: "alpha0000001", archived: false, changed: false });
  });
});

describe("cxc conversation rm", () => {
  it("deletes with -y (live and archived), clears active, and reports the ids", async () => {
    home = makeTempHome();
    await seedPair();
    await seedConversation(home, { id: "old000000001", archived: true });
    const result = await home.run(["--format", "json", "c", "rm", "-y", "alpha", "old0", "alpha0000001"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ removed: ["alpha0000001", "old000000001"] });
    expect(existsSync(join(home.home, "conversations", "alpha0000001"))).toBe(false);
    expect(existsSync(join(home.home, "archive", "old000000001"))).toBe(false);
    expect(existsSync(join(home.home, "conversations", "beta00000001"))).toBe(true);
    expect(openStore(home).active()).toBeUndefined();
    const text = await home.run(["c", "rm", "--yes", "beta"]);
    expect(text.stdout).toBe("Deleted conversation beta00000001.\n");
  });
});

describe("cxc conversation rm at a terminal", () => {
  /** Runs `cxc ARGS` in a pseudo-terminal, answers the prompt once it shows, and returns the screen. */
  async function runInTerminal(args: string[], answer: string) {
    const session = startInTmux([process.execPath, CXC_BIN, ...args], {
      env: home.env as Record<string, string>,
      cwd: join(home.cwd, ".."),
    });
    try {
      await session.waitFor("permanently? (y/N)");
      // One key answers: no Enter.
      session.send(answer, { literal: true });
      const exitCode = await session.exitCode();
      return { exitCode, screen: session.screen() };
    } finally {
      session.close();
    }
  }

  it("asks with one key, and deletes only after yes", async () => {
    home = makeTempHome();
    await seedPair();
    const declined = await runInTerminal(["c", "rm", "alpha"], "n");
    expect(declined.exitCode).toBe(1);
    expect(declined.screen).toMatch(/Delete conversation alpha0000001 permanently\?/);
    expect(declined.screen).toContain("Nothing deleted.");
    expect(existsSync(join(home.home, "conversations", "alpha0000001"))).toBe(true);
    const confirmed = await runInTerminal(["c", "rm", "alpha"], "y");
    expect(confirmed.exitCode).toBe(0);
    expect(confirmed.screen).toContain(
      "Delete conversation alpha0000001 permanently? (y/N) y\nDeleted conversation alpha0000001.",
    );
    expect(existsSync(join(home.home, "conversations", "alpha0000001"))).toBe(false);
  });
});

describe("cxc conversation edit", () => {
  it("sets and removes the title, pins and unpins", async () => {
    home = makeTempHome();
    await seedPair();
    const titled = await home.run(["c", "edit", "--title", "  New name  "]);
    expect(titled.stdout).toBe("Updated conversation alpha0000001.\n");
    expect(metaOf(home, "alpha0000001").title).toBe("New name");
    const pinned = JSON.parse((await home.run(["--format", "json", "c", "edit", "beta", "--pin"])).stdout);
    expect(pinned).toEqual({ id: "beta00000001", title: "Beta", pinned: true });
    const pinnedAt = metaOf(home, "beta00000001").pinned_at;
    expect(pinnedAt).toMatch(/^\d{4}-/);
    await home.run(["c", "edit", "beta", "--pin"]);
    expect(metaOf(home, "beta00000001").pinned_at).toBe(pinnedAt);
    const listed = JSON.parse((await home.run(["--format", "json", "c", "ls"])).stdout);
    expect(listed[0]).toMatchObject({ id: "beta00000001", pinned: true });
    await home.run(["c", "edit", "beta", "--unpin", "--title", ""]);
    const meta = metaOf(home, "beta00000001");
    expect(meta.pinned_at).toBeUndefined();
    expect(meta.title).toBeUndefined();
  });

  it("rejects --pin with --unpin", async () => {
    home = makeTempHome();
    await seedPair();
    const before = snapshotTree(home.home);
    const result = await home.run(["c", "edit", "--pin", "--unpin"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/^cxc: error: option '--pin' cannot be used with option '--unpin'/m);
    expect(snapshotTree(home.home)).toEqual(before);
  });
});
