/**
 * Wrong answers found by trying the compaction flows as a user would, each reproduced through the
 * built CLI and held here: undo and redo that misreport what they did, a review of a review, an
 * inverted range that "compacts nothing", hints that point the wrong way, a review nobody can
 * discuss, a tool list naming a review-only tool, and the advisor advising inside a review.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TempHome } from "../helpers/cli.js";
import { type FakeProvider, startFakeProvider } from "../helpers/fake-provider.js";
import { errorLines } from "./conversation-helpers.js";
import {
  activeOf,
  conversationIds,
  homeWithSample,
  logBytes,
  providerEnv,
  proposalRound,
  reviewOf,
  SAMPLE_ID,
} from "./review-helpers.js";

let provider: FakeProvider;
let home: TempHome;

beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(async () => {
  await provider.close();
});
beforeEach(async () => {
  provider.reset();
  home = await homeWithSample();
});
afterEach(() => {
  home.cleanup();
  expect(provider.remaining()).toBe(0);
});

const compact = (args: string[], env: Record<string, string> = {}) =>
  home.run(["conversation", "compact", ...args], { env });

/** No provider key, no configured model, and no Ollama to find: nothing to discuss a review with. */
const NO_MODEL = ["-c", "providers.ollama.base_url=http://127.0.0.1:9/v1"];

describe("undo and redo of a reset say exactly what they retired or restored", () => {
  it("--undo-reset run twice re-applies the reset and says so (was: 'no compaction comes back')", async () => {
    expect((await compact([])).exitCode).toBe(0);
    expect((await compact(["-k", "r:..-3"])).exitCode).toBe(0);
    expect((await compact(["--reset"])).stdout).toBe("Removed 2 compaction events.\n");

    const undo = await compact(["--undo-reset"]);
    expect(undo.stdout).toMatch(
      /^Undid the reset made [^:]+: 2 compactions come back \(turns 2\.\.19, 1\.\.17\)\.\n$/,
    );

    const preview = await compact(["--undo-reset", "--dry-run"]);
    expect(preview.stdout).toMatch(
      /^Would undo the undo made [^:]+: 2 compactions are retired again \(turns 2\.\.19, 1\.\.17\)\.\n$/,
    );
    const redo = await home.run(["--format", "json", "conversation", "compact", "--undo-reset"]);
    const document = JSON.parse(redo.stdout) as { message: string; retired: string[]; restored: string[] };
    expect(document.message).toMatch(/^Undid the undo made [^:]+: 2 compactions are retired again/);
    expect(document.retired).toHaveLength(2);
    expect(document.restored).toEqual([]);
    expect((await home.run(["conversation", "show"])).stdout).toContain("Compactions: none");

    // And once more: undoing the redo brings them back.
    const again = await compact(["--undo-reset"]);
    expect(again.stdout).toMatch(/^Undid the undo made [^:]+: 2 compactions come back/);
    expect((await home.run(["conversation", "show"])).stdout).toContain(
      "  2. turns 1..17 (17 total, reasoning)",
    );
  });
});

describe("inverted ranges are usage errors", () => {
  it.each([
    [["-k", "s:5..2"], "invalid compact spec 's:5..2': the range is inverted: turn 5 comes after turn 2"],
    [
      ["-k", "r:-2..-5"],
      "invalid compact spec 'r:-2..-5': the range is inverted: 2 from the end comes after 5 from the end",
    ],
    [["-r", "--turn", "5..2"], "invalid turn range 5..2 (the start is after the end)"],
    [["-r", "--from", "5", "--to", "2"], "the range is inverted: --from 5 comes after --to 2"],
  ])("%j (was: 'Nothing to compact.' and exit 0)", async (args, message) => {
    const before = logBytes(home);
    const result = await compact([...args, "--dry-run"]);
    expect(result.exitCode).toBe(2);
    expect(errorLines(result.stderr).error).toBe(message);
    expect(result.stdout).toBe("");
    expect(logBytes(home)).toBe(before);
  });
});

describe("hints that point the right way", () => {
  it("--reset 2 hints --reset=2 (was: 'no conversation matches' and a hint about ls)", async () => {
    const result = await compact(["--reset", "2"]);
    expect(result.exitCode).toBe(2);
    const { error, hint } = errorLines(result.stderr);
    expect(error).toBe("no conversation matches '2' (--reset took it as a conversation)");
    expect(hint).toBe("to retire compaction 2, write --reset=2: --reset takes its number after `=`");
  });

  it("--abort --keep-last 2 says that --abort takes no range (was: 'policies are negotiated inside the review')", async () => {
    const result = await compact(["--abort", "--keep-last", "2"]);
    expect(result.exitCode).toBe(2);
    const { error, hint } = errorLines(result.stderr);
    expect(error).toBe("--abort cannot be used with --keep-last");
    expect(hint).toBe("--abort takes no range: it ends the active review and changes nothing");
    const policy = errorLines((await compact(["--continue", "--last", "2"])).stderr);
    expect(policy.hint).toContain("--continue applies the proposal the review recorded");
  });

  it("the -t bogus hint does not list propose_compaction, which exists only inside a review", async () => {
    const result = await home.run(["q", "-t", "bogus", "hello"], { env: providerEnv(provider) });
    expect(result.exitCode).toBe(2);
    const { error, hint } = errorLines(result.stderr);
    expect(error).toBe("tool 'bogus' not found");
    expect(hint).toBe("available tools: compact, should_i_compact, compact_now");
    expect(provider.requests).toHaveLength(0);
  });
});

describe("compact --interactive", () => {
  it("refuses to start a review that q could not discuss: no model (was: a review nobody can talk to)", async () => {
    for (const args of [[], ["-m", "builtin/digest"]]) {
      const result = await home.run([...NO_MODEL, "conversation", "compact", "--interactive", ...args]);
      expect(result.exitCode).toBe(1);
      const { error, hint } = errorLines(result.stderr);
      expect(error).toBe("cannot start a review: no model is configured to discuss it with");
      expect(hint).toContain("-m MODEL or conversation.compaction.review.model.id");
      expect(reviewOf(home, SAMPLE_ID)).toBeUndefined();
      expect(activeOf(home)).toBe(SAMPLE_ID);
    }
    // A model without its key is refused the same way, naming the key.
    const keyless = await home.run(["conversation", "compact", "--interactive", "-m", "builtin/digest"], {
      env: { CXC_ASSISTANT__MODEL__ID: "anthropic/claude-sonnet-4-6" },
    });
    expect(keyless.exitCode).toBe(1);
    const { error, hint } = errorLines(keyless.stderr);
    expect(error).toBe("cannot start a review: Missing environment variable ANTHROPIC_API_KEY");
    expect(hint).toContain("ANTHROPIC_API_KEY");
    expect(conversationIds(home)).toEqual([SAMPLE_ID]);
  });

  it("inside a review, refuses and points at --continue / --abort (was: a review of the review)", async () => {
    const started = await compact(["--interactive", "-m", "builtin/digest"], providerEnv(provider));
    expect(started.exitCode, started.stderr).toBe(0);
    const reviewId = reviewOf(home, SAMPLE_ID)!;
    expect(activeOf(home)).toBe(reviewId);
    const nested = await compact(["--interactive", "-m", "builtin/digest"], providerEnv(provider));
    expect(nested.exitCode).toBe(2);
    const { error, hint } = errorLines(nested.stderr);
    expect(error).toBe(`${reviewId} is a compaction review (of ${SAMPLE_ID}); a review cannot be reviewed`);
    expect(hint).toContain("cxc conversation compact --continue");
    expect(hint).toContain("cxc conversation compact --abort");
    expect(conversationIds(home)).toEqual([SAMPLE_ID, reviewId].sort());
  });
});

describe("the advisor", () => {
  it("never advises inside a review (was: three decision calls and 'Recommended: compact now')", async () => {
    const started = await compact(["--interactive", "-m", "builtin/digest"], providerEnv(provider));
    expect(started.exitCode, started.stderr).toBe(0);
    provider.enqueue(...proposalRound({ from_turn: 2, to_turn: 18, summary: "A shorter summary." }));
    const env = {
      ...providerEnv(provider),
      CXC_ADVISOR_NOTICE_TOKENS: "10",
      CXC_ADVISOR_RECOMMEND_TOKENS: "20",
      CXC_ADVISOR_REQUEST_TOKENS: "100000000",
    };
    const discussed = await home.run(["q", "make it shorter"], { env });
    expect(discussed.exitCode, discussed.stderr).toBe(0);
    expect(discussed.stderr).not.toContain("advisor");
    // The two requests of the discussion, and no decision call.
    expect(provider.requests).toHaveLength(2);
  });
});
