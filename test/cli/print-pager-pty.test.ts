/**
 * `cxc conversation print` at a terminal (tmux): text taller than the screen goes through
 * `PAGER` (here a small script that records that it ran and what it was given), coloured unless
 * NO_COLOR; short text, `--no-pager`, `PAGER=cat` and a pager that cannot start print directly.
 * The pipe side (plain, never paged) is in print-style.test.ts.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createEventBuilder } from "../helpers/builders.js";
import { CXC_BIN, makeTempHome, type TempHome } from "../helpers/cli.js";
import { type PtySession, startInTmux } from "../helpers/pty.js";
import { seedConversation } from "./conversation-helpers.js";

let home: TempHome;
const sessions: PtySession[] = [];
afterEach(() => {
  for (const session of sessions.splice(0)) session.close();
  home?.cleanup();
});

/** 30 turns: about 120 lines, taller than the 50-row screen. */
async function seedTall(): Promise<void> {
  const build = createEventBuilder();
  await seedConversation(home, { id: "tall00000001", title: "Tall", events: build.turns(30), active: true });
}

/** A pager script that records its arguments, its LESS variable and its input, then prints a marker. */
function writePager(): { path: string; ran: string; input: string } {
  const base = dirname(home.home);
  const ran = join(base, "pager-ran");
  const input = join(base, "pager-input");
  const path = join(base, "pager.sh");
  writeFileSync(
    path,
    `#!/bin/sh\necho "LESS=$LESS args=$*" > '${ran}'\ncat > '${input}'\necho PAGER-SHOWED-IT\n`,
  );
  chmodSync(path, 0o755);
  return { path, ran, input };
}

async function printAtTerminal(args: string[], env: Record<string, string>): Promise<string> {
  const { NO_COLOR: _unset, ...base } = home.env;
  const session = startInTmux([process.execPath, CXC_BIN, "conversation", "print", ...args], {
    env: { ...base, ...env },
    cwd: dirname(home.home),
  });
  sessions.push(session);
  const code = await session.exitCode(30_000);
  const screen = session.screen();
  expect(code, screen).toBe(0);
  return screen;
}

describe("print at a terminal", () => {
  it("pages text taller than the screen through PAGER, with colours and LESS=FRX", async () => {
    home = makeTempHome();
    await seedTall();
    const pager = writePager();
    const screen = await printAtTerminal([], { PAGER: `${pager.path} --flag` });
    expect(screen).toContain("PAGER-SHOWED-IT");
    expect(readFileSync(pager.ran, "utf8")).toBe("LESS=FRX args=--flag\n");
    const input = readFileSync(pager.input, "utf8");
    expect(input).toContain("\u001b[1m── turn 1 · ");
    expect(input).toContain("\u001b[36m[user]\u001b[39m\nq0\n");
    expect(input).toContain("q29");
  });

  it("CXC_PAGER wins over PAGER, and NO_COLOR keeps the paged text plain", async () => {
    home = makeTempHome();
    await seedTall();
    const pager = writePager();
    await printAtTerminal([], {
      CXC_PAGER: pager.path,
      PAGER: "/nonexistent/pager",
      NO_COLOR: "1",
      LESS: "-R",
    });
    expect(readFileSync(pager.ran, "utf8")).toBe("LESS=-R args=\n");
    const input = readFileSync(pager.input, "utf8");
    expect(input).toContain("── turn 30 · ");
    expect(input).not.toContain("\u001b[");
  });

  it.each([
    ["--no-pager", ["--no-pager"], {}],
    ["text that fits the screen", ["--last", "2"], {}],
  ])("prints directly with %s", async (_name, args, env) => {
    home = makeTempHome();
    await seedTall();
    const pager = writePager();
    const screen = await printAtTerminal(args, { PAGER: pager.path, ...env });
    expect(existsSync(pager.ran)).toBe(false);
    expect(screen).toContain("a:q29");
  });

  it("prints directly when PAGER is cat or the pager cannot be started", async () => {
    home = makeTempHome();
    await seedTall();
    for (const pager of ["cat", "/nonexistent/pager -R"]) {
      const screen = await printAtTerminal([], { PAGER: pager });
      expect(screen).toContain("a:q29");
      expect(screen).not.toContain("nonexistent");
    }
  });
});
