/**
 * bin/cxc.cjs runs dist/list.cjs (the program with `conversation ls` alone) for a listing, and
 * dist/query.cjs (`q` alone) for a turn. These tests pin down which command lines take which
 * path, and check for listings that the smaller program prints exactly what the whole CLI prints:
 * stdout, stderr and exit code (test/cli/query-bundle.test.ts does it for `q`).
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEventBuilder } from "../helpers/builders.js";
import { makeTempHome, PROJECT_ROOT, type TempHome } from "../helpers/cli.js";
import { seedConversation } from "./conversation-helpers.js";

const { bundleFor } = createRequire(import.meta.url)(join(PROJECT_ROOT, "bin", "cxc.cjs")) as {
  bundleFor(args: readonly string[]): string;
};

describe("which bundle a command line runs", () => {
  it.each([
    [["conversation", "ls"], "list.cjs"],
    [["c", "list"], "list.cjs"],
    [["--format", "json", "c", "ls", "--limit", "3"], "list.cjs"],
    [["--format=json", "--no-color", "conversation", "ls", "--archived"], "list.cjs"],
    [["-c", "ls", "conversation", "ls"], "list.cjs"],
    [["--cfg=x=1", "c", "ls", "--help"], "list.cjs"],
    [["conversation", "show"], "cxc.cjs"],
    [["conversation"], "cxc.cjs"],
    [["ls"], "cxc.cjs"],
    [["--help", "conversation", "ls"], "cxc.cjs"],
    [["-V"], "cxc.cjs"],
    [["q", "conversation", "ls"], "query.cjs"],
    [["q", "--id", "abc", "a question"], "query.cjs"],
    [["query"], "query.cjs"],
    [["-c", "x=1", "--format", "json", "q", "--new", "hi"], "query.cjs"],
    [["--no-color", "q", "--help"], "query.cjs"],
    [["--help", "q"], "cxc.cjs"],
    [["help", "q"], "cxc.cjs"],
    [["c", "q"], "cxc.cjs"],
    [["--format", "conversation", "ls"], "cxc.cjs"],
    [[], "cxc.cjs"],
  ])("%j → %s", (args, bundle) => {
    expect(bundleFor(args)).toBe(bundle);
  });
});

describe("the listing bundle prints what the whole CLI prints", () => {
  let home: TempHome;
  beforeAll(async () => {
    home = makeTempHome();
    const build = createEventBuilder();
    await seedConversation(home, { id: "one0000000001", title: "One", events: build.turns(2) });
    await seedConversation(home, { id: "two0000000002", title: "Two 🦀 with a long title ".repeat(5) });
  });
  afterAll(() => home.cleanup());

  /** Runs `args` through dist/cxc.cjs directly, bypassing bin/cxc.cjs's choice of bundle. */
  async function wholeCli(args: readonly string[]) {
    const script = `require(${JSON.stringify(join(PROJECT_ROOT, "dist", "cxc.cjs"))}).main(JSON.parse(process.argv[1]))`;
    const result = await execa(process.execPath, ["-e", script, JSON.stringify(args)], {
      cwd: dirname(home.home),
      env: home.env,
      extendEnv: false,
      reject: false,
      stripFinalNewline: false,
    });
    return { stdout: String(result.stdout), stderr: String(result.stderr), exitCode: result.exitCode };
  }

  it.each([
    [["conversation", "ls"]],
    [["c", "list", "--limit", "1"]],
    [["--format", "json", "c", "ls"]],
    [["c", "ls", "--archived"]],
    [["c", "ls", "--limit", "x"]],
    [["c", "ls", "--bogus"]],
    [["c", "ls", "extra"]],
    [["c", "ls", "--help"]],
    [["-c", "no-such-file.toml", "c", "ls"]],
  ])("%j", async (args) => {
    const expected = await wholeCli(args);
    expect(expected.stdout + expected.stderr).not.toBe("");
    const actual = await home.run(args);
    expect(actual).toEqual(expected);
  });
});
