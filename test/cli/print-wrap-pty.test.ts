/**
 * `print` at a terminal wraps long lines at words, so the terminal never cuts a word in two; in
 * a pipe the text is left as it is (one line per line).
 */
import { dirname } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createEventBuilder } from "../helpers/builders.js";
import { CXC_BIN, makeTempHome, type TempHome } from "../helpers/cli.js";
import { type PtySession, startInTmux } from "../helpers/pty.js";
import { seedConversation } from "./conversation-helpers.js";

let home: TempHome;
let session: PtySession | undefined;
afterEach(() => {
  session?.close();
  home?.cleanup();
});

const WORDS = Array.from({ length: 60 }, (_, index) => `alpha${index}beta`);

describe("print at a terminal", () => {
  it("wraps a long message at words at the terminal's width", async () => {
    home = makeTempHome();
    const build = createEventBuilder();
    await seedConversation(home, {
      id: "wrap00000001",
      events: build.turn(WORDS.join(" "), { answer: "short" }),
      active: true,
    });
    session = startInTmux([process.execPath, CXC_BIN, "conversation", "print", "--no-pager"], {
      env: home.env,
      cwd: dirname(home.home),
      width: 60,
    });
    expect(await session.exitCode()).toBe(0);
    const rows = session.screen().split("\n");
    const words = rows.flatMap((row) => row.trim().split(/\s+/)).filter((word) => word.startsWith("alpha"));
    // Every word whole, on one row, in order; no row wider than the screen.
    expect(words).toEqual(WORDS);
    expect(rows.every((row) => row.length <= 60)).toBe(true);

    const piped = await home.run(["conversation", "print"]);
    expect(piped.stdout).toContain(WORDS.join(" "));
  });
});
