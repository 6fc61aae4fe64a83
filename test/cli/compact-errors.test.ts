/**
 * Bad input to `cxc conversation compact`: every malformed bound, spec, mode, range and flag
 * combination from jp's tests is a usage error (exit 2) with jp's text (or a clearer one), one
 * error line, and the log is left byte for byte as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TempHome } from "../helpers/cli.js";
import { errorLines } from "./conversation-helpers.js";
import { homeWithSample, logBytes } from "./compact-helpers.js";

let home: TempHome;
let before: string;
beforeAll(async () => {
  home = await homeWithSample();
  before = logBytes(home);
});
afterAll(() => home?.cleanup());

const CASES: [string[], string][] = [
  [["-k", "x"], "invalid compact spec 'x': unknown policy 'x'"],
  [["-k", "r+"], "invalid compact spec 'r+': empty policy"],
  [["-k", "s:abc"], "invalid compact spec 's:abc': invalid bound 'abc'"],
  [["-k", "s:5..x"], "invalid compact spec 's:5..x': invalid bound 'x'"],
  [["-k", "s:0.."], "invalid compact spec 's:0..': turn indices are 1-based; `0` is not a valid turn"],
  [["-k", "t=nope"], "invalid compact spec 't=nope': unknown tool_calls mode: `nope`"],
  [["-k", "r=strip"], "invalid compact spec 'r=strip': `reasoning` does not take a value"],
  [["-k", "s=true"], "invalid compact spec 's=true': `summarize` does not take a value"],
  [
    ["-t", "nope"],
    "invalid value 'nope' for --tools: expected one of: strip (s), strip-requests (sreq), strip-responses (sres), omit (o)",
  ],
  [["-r", "-k", "s:..-3"], "--reasoning cannot be used with --compact"],
  [["-s", "-k"], "--summarize cannot be used with --compact"],
  [["--from", "0"], "turn numbers are 1-based; `0` is not a valid turn"],
  [["--from", "-0"], "from-end offsets are 1-based; use `-1` for the last turn"],
  [
    ["--to", "last-compaction"],
    "`last-compaction` is only valid for `--from` (it marks the most recent compaction)",
  ],
  [["--from", "yesterday"], "invalid range bound `yesterday`: expected number at 0"],
  [["--keep-first", "@0"], "absolute turns are 1-based; `@0` is not a valid turn"],
  [["--keep-last", "-x"], "invalid from-end bound `-x`"],
  [["--turn", "0"], "turn numbers are 1-based; `0` is not a valid turn"],
  [["--turn", "x"], "invalid turn number `x`"],
  [["--turn", "100"], "conversation sample000001: turn 100 out of range (conversation has 20 turns)"],
  [["--turn", "..100"], "conversation sample000001: turn 100 out of range (conversation has 20 turns)"],
  [["--first", "2", "--last", "2"], "--first cannot be used with --last"],
  [["--keep-first", "1", "--from", "3"], "--keep-first cannot be used with --from"],
  [["--keep-last", "1", "--turn", "3"], "--keep-last cannot be used with --turn"],
  [
    ["--keep-first", "17", "--first", "16"],
    "--keep-first 17 is greater than --first 16: nothing would remain to compact",
  ],
  [
    ["--keep-last", "17", "--last", "16"],
    "--keep-last 17 is greater than --last 16: nothing would remain to compact",
  ],
  [["--first", "x"], "invalid value 'x' for --first: expected a whole number of turns"],
  [["--note", "x".repeat(201)], "--note is 201 characters long; a note holds at most 200"],
];

describe("cxc conversation compact with bad input", () => {
  it.each(CASES)("%j fails with a usage error and changes nothing", async (args, message) => {
    const result = await home.run(["conversation", "compact", ...args]);
    expect(result.exitCode, result.stderr).toBe(2);
    expect(errorLines(result.stderr).error).toBe(message);
    expect(result.stdout).toBe("");
    expect(logBytes(home)).toBe(before);
  });

  it("accepts the equal --keep-first/--first case, which selects nothing", async () => {
    const result = await home.run(["conversation", "compact", "-r", "--keep-first", "16", "--first", "16"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toBe("Nothing to compact.\n");
    expect(logBytes(home)).toBe(before);
  });
});
