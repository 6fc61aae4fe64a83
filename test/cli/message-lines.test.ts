/**
 * Every line cxc writes to stderr starts `cxc: ` or `hint: ` (docs/commands.md, Messages): the
 * notices, warnings, errors and next steps of a session that produces each kind, run on the
 * sample conversation without a model (the builtin digest summarizes).
 */
import { afterEach, describe, expect, it } from "vitest";
import type { TempHome } from "../helpers/cli.js";
import { homeWithSample, SAMPLE_ID } from "./compact-helpers.js";

let home: TempHome;
afterEach(() => home?.cleanup());

/** A model to discuss a review with; never called here. */
const REVIEW_MODEL_ENV = {
  ANTHROPIC_API_KEY: "test-key-never-sent",
  CXC_ASSISTANT__MODEL__ID: "anthropic/claude-sonnet-4-6",
};

describe("stderr lines", () => {
  it("all start with cxc: or hint:", async () => {
    home = await homeWithSample();
    const steps: string[][] = [
      ["c", "ls", "--limit", "0"], // a notice: how many more
      ["c", "print", "--first", "0"], // a notice: nothing selected
      ["c", "grep", "no such text anywhere"], // a notice: no matches
      ["c", "compact", "-k", "s:..-4"], // the digest notice
      ["c", "compact", "--reset=1"], // the reset notice
      ["c", "compact", "-k", "r:2..3"],
      ["c", "fork", "--last", "2"], // a compaction the fork leaves out
      ["c", "use", SAMPLE_ID],
      // The next steps (a review needs a model to discuss it with; the digest drafts, offline,
      // so no request is made).
      ["c", "compact", "--interactive", "-m", "builtin/digest"],
      ["c", "compact", "--interactive", SAMPLE_ID], // an error and its hint
      ["c", "compact", "--abort"],
      ["c", "show", "--bogus"], // commander's error and hint
      ["c", "shw"], // commander's suggestion
    ];
    const lines: string[] = [];
    for (const args of steps) {
      const review = args.includes("--interactive");
      const result = await home.run(args, review ? { env: REVIEW_MODEL_ENV } : {});
      lines.push(...result.stderr.split("\n").filter((line) => line !== ""));
    }
    expect(lines.filter((line) => !/^(cxc|hint): /.test(line))).toEqual([]);
    // Each kind of line was seen.
    expect(lines).toContainEqual(expect.stringMatching(/^cxc: \d+ more conversations?; raise --limit/));
    expect(lines).toContainEqual(expect.stringMatching(/^cxc: No summary model is configured/));
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^cxc: 2 compactions of .* reach turns the fork leaves out and were not copied\.$/,
      ),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^hint: next:$/));
    expect(lines).toContainEqual(expect.stringMatching(/^hint: {3}cxc conversation compact --continue/));
    expect(lines).toContainEqual(
      expect.stringMatching(/^cxc: error: a review of this conversation is already open/),
    );
    expect(lines).toContainEqual("hint: did you mean show?");
  });
});
