/**
 * jp's conversation pickers (`use_.rs`, `target.rs`) at a real terminal (tmux), and in a pipe,
 * where they are an error: `cxc c use` without an id, the targets `?`, `?p`, `?s`, `?a`, typing to
 * narrow the list, `--grep`/`--from`/`--until` (a single survivor is taken without asking), and
 * other commands that take one conversation (`show ?`).
 */
import { dirname } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEventBuilder } from "../helpers/builders.js";
import { CXC_BIN, makeTempHome, type TempHome } from "../helpers/cli.js";
import { type PtySession, startInTmux } from "../helpers/pty.js";
import { metaOf, seedConversation } from "./conversation-helpers.js";

let home: TempHome;
const sessions: PtySession[] = [];

beforeEach(async () => {
  home = makeTempHome();
  const build = createEventBuilder();
  const seed = (id: string, title: string, options: Record<string, unknown> = {}) =>
    seedConversation(home, { id, title, events: build.turns(2), ...options });
  await seed("01aaaaaaaaaaa", "Parser rewrite", { createdAt: "2026-01-05T00:00:00.000Z" });
  await seed("01bbbbbbbbbbb", "Release notes", {
    createdAt: "2026-02-10T00:00:00.000Z",
    pinnedAt: "2026-02-11T00:00:00.000Z",
  });
  await seed("01ccccccccccc", "Flaky test hunt", { createdAt: "2026-03-01T00:00:00.000Z" });
  await seed("01ddddddddddd", "Old experiment", { archived: true });
});
afterEach(() => {
  for (const session of sessions.splice(0)) session.close();
  home.cleanup();
});

function atTerminal(args: readonly string[]): PtySession {
  const session = startInTmux([process.execPath, CXC_BIN, ...args], {
    env: home.env,
    cwd: dirname(home.home),
  });
  sessions.push(session);
  return session;
}

const activeId = async (): Promise<string | undefined> => {
  const result = await home.run(["--format", "json", "conversation", "ls"]);
  return (JSON.parse(result.stdout) as { id: string; active: boolean }[]).find((entry) => entry.active)?.id;
};

describe("the picker at a terminal", () => {
  it("`use` without an id lists every live conversation (title, source, turns, age); typing narrows it", async () => {
    const pty = atTerminal(["conversation", "use"]);
    const screen = await pty.waitFor(/Pick a conversation[\s\S]*Flaky test hunt/);
    // Pinned first, then by last update; the archived one is not offered.
    expect(screen).toMatch(/Release notes\s+cxc\s+2 turns\s+\S/);
    expect(screen).toContain("Parser rewrite");
    expect(screen).toContain("Flaky test hunt");
    expect(screen).not.toContain("Old experiment");
    expect(screen.indexOf("Release notes")).toBeLessThan(screen.indexOf("Parser rewrite"));
    pty.send("flaky", { literal: true });
    await pty.waitFor(/flaky[^\n]*\n[^\n]*Flaky test hunt/);
    expect(pty.screen()).not.toContain("Parser rewrite");
    pty.send("Enter");
    expect(await pty.exitCode()).toBe(0);
    expect(pty.screen()).toContain("Active conversation: 01ccccccccccc (Flaky test hunt)");
    expect(await activeId()).toBe("01ccccccccccc");
  });

  it("`?p` offers the pinned ones, `?a` the archived ones and unarchives the one picked", async () => {
    const pinned = atTerminal(["conversation", "use", "?p"]);
    const screen = await pinned.waitFor(/Pick a conversation[\s\S]*Release notes/);
    expect(screen).toContain("Release notes");
    expect(screen).not.toContain("Parser rewrite");
    pinned.send("Enter");
    expect(await pinned.exitCode()).toBe(0);
    expect(await activeId()).toBe("01bbbbbbbbbbb");

    const archived = atTerminal(["conversation", "use", "?a"]);
    await archived.waitFor(/Pick an archived conversation[\s\S]*Old experiment/);
    archived.send("Enter");
    expect(await archived.exitCode()).toBe(0);
    expect(archived.screen()).toContain("Unarchived conversation 01ddddddddddd.");
    expect(metaOf(home, "01ddddddddddd").id).toBe("01ddddddddddd");
    expect(await activeId()).toBe("01ddddddddddd");
  });

  it("`?s` offers the conversations this session made active", async () => {
    await home.run(["conversation", "use", "01aaaa"]);
    await home.run(["conversation", "use", "01cccc"]);
    const pty = atTerminal(["conversation", "use", "?s"]);
    const screen = await pty.waitFor(/Pick a conversation[\s\S]*Parser rewrite/);
    expect(screen).toContain("Flaky test hunt");
    expect(screen).toContain("Parser rewrite");
    expect(screen).not.toContain("Release notes");
    // The active one first: Down, Enter takes the one before it.
    pty.send("Down");
    pty.send("Enter");
    expect(await pty.exitCode()).toBe(0);
    expect(await activeId()).toBe("01aaaaaaaaaaa");
  });

  it("another command that takes one conversation picks with `?` (show ?)", async () => {
    const pty = atTerminal(["conversation", "show", "?"]);
    await pty.waitFor(/Pick a conversation/);
    pty.send("parser", { literal: true });
    await pty.waitFor(/parser[^\n]*\n[^\n]*Parser rewrite/);
    pty.send("Enter");
    expect(await pty.exitCode()).toBe(0);
    expect(pty.screen()).toMatch(/id:\s+01aaaaaaaaaaa/);
  });

  it("Ctrl-C gives up with exit 130 and changes nothing", async () => {
    await home.run(["conversation", "use", "01aaaa"]);
    const pty = atTerminal(["conversation", "use"]);
    await pty.waitFor(/Pick a conversation/);
    pty.send("C-c");
    expect(await pty.exitCode()).toBe(130);
    expect(await activeId()).toBe("01aaaaaaaaaaa");
  });

  it("says how to cancel, and Esc gives up as Ctrl-C does", async () => {
    await home.run(["conversation", "use", "01aaaa"]);
    const pty = atTerminal(["conversation", "use"]);
    await pty.waitFor(/Pick a conversation \(type to narrow, Enter picks, Esc cancels\)/);
    pty.send("flaky", { literal: true });
    pty.send("Escape");
    expect(await pty.exitCode()).toBe(130);
    expect(pty.screen()).toContain("cxc: no conversation picked; nothing changed");
    expect(await activeId()).toBe("01aaaaaaaaaaa");
  });
});

describe("narrowing the candidates", () => {
  it("`--grep` with one match takes it without asking, in a pipe too", async () => {
    const result = await home.run(["conversation", "use", "--grep", "release"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toBe("Active conversation: 01bbbbbbbbbbb (Release notes)\n");
    // Smart case: an upper-case letter makes it exact.
    expect((await home.run(["conversation", "use", "--grep", "RELEASE"])).stderr).toContain(
      "no conversations match the filter",
    );
  });

  it("`--from`/`--until` narrow by creation; several left open the picker at a terminal", async () => {
    const one = await home.run(["conversation", "use", "--from", "2026-02-01", "--until", "2026-02-20"]);
    expect(one.stdout, one.stderr).toBe("Active conversation: 01bbbbbbbbbbb (Release notes)\n");
    const pty = atTerminal(["conversation", "use", "--from", "2026-02-01"]);
    const screen = await pty.waitFor(/Pick a conversation[\s\S]*turns/);
    expect(screen).toContain("Release notes");
    expect(screen).toContain("Flaky test hunt");
    expect(screen).not.toContain("Parser rewrite");
    pty.send("C-c");
    expect(await pty.exitCode()).toBe(130);
  });
});

describe("in a pipe the error stands", () => {
  it("`use` without an id, and every picker target, is a usage error naming what to type", async () => {
    for (const args of [["use"], ["use", "?"], ["use", "?p"], ["use", "?s"], ["use", "?a"], ["show", "?"]]) {
      const result = await home.run(["conversation", ...args]);
      expect(result.exitCode, args.join(" ")).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(
        /^cxc: error: (no conversation given|`\?[a-z]*` opens a list to pick from, which needs a terminal)\nhint: name the conversation by id/,
      );
    }
    expect(await activeId()).toBeUndefined();
  });
});
