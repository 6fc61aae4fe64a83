/**
 * bin/cxc.cjs runs dist/query.cjs, the program with `q` alone, when a command line's first word is
 * `q` or `query` (test/cli/list-bundle.test.ts pins down which lines). For each line here, the
 * smaller program prints exactly what the whole CLI (dist/cxc.cjs) prints, exits with the same
 * code, and sends the provider the same request.
 */
import { dirname, join } from "node:path";
import { execa } from "execa";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createEventBuilder } from "../helpers/builders.js";
import { makeTempHome, PROJECT_ROOT, type TempHome } from "../helpers/cli.js";
import { type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { seedConversation } from "./conversation-helpers.js";

let provider: FakeProvider;
let home: TempHome;

beforeAll(async () => {
  provider = await startFakeProvider();
  home = makeTempHome();
  const build = createEventBuilder();
  const events = build.turns(2);
  // Two copies of one conversation: one for each program, so both turns see the same history.
  await seedConversation(home, { id: "whole00000001", title: "Whole", events });
  await seedConversation(home, { id: "small00000001", title: "Small", events });
});
afterAll(async () => {
  home.cleanup();
  await provider.close();
});
afterEach(() => {
  expect(provider.remaining()).toBe(0);
});

const providerEnv = () => ({
  ANTHROPIC_API_KEY: "test-key-anthropic",
  ANTHROPIC_BASE_URL: provider.anthropicBaseURL,
  CXC_ASSISTANT__MODEL__ID: "anthropic/claude-sonnet-4-6",
});

/** Runs `args` through dist/cxc.cjs directly, bypassing bin/cxc.cjs's choice of bundle. */
async function wholeCli(args: readonly string[]) {
  const script = `require(${JSON.stringify(join(PROJECT_ROOT, "dist", "cxc.cjs"))}).main(JSON.parse(process.argv[1]))`;
  const result = await execa(process.execPath, ["-e", script, JSON.stringify(args)], {
    cwd: dirname(home.home),
    env: { ...home.env, ...providerEnv() },
    extendEnv: false,
    reject: false,
    stripFinalNewline: false,
    stdin: "ignore",
  });
  return { stdout: String(result.stdout), stderr: String(result.stderr), exitCode: result.exitCode };
}

describe("the query bundle prints what the whole CLI prints", () => {
  it.each([
    [["q", "--help"]],
    [["query", "--bogus", "hi"]],
    [["q", "--new", "--id", "x", "hi"]],
    [["q", "--max-cycles", "zero", "hi"]],
    [["q", "-k=bogus", "hi"]],
    [["q", "--native", "hi"]],
    [["--format", "json", "q", "--new", "--fork", "hi"]],
    [["q", "--id", "nothing-like-it", "hi"]],
    [["-c", "no-such-file.toml", "q", "hi"]],
    [["q", "-m", "nowhere/m", "--new", "hi"]],
  ])("%j", async (args) => {
    const expected = await wholeCli(args);
    expect(expected.stdout + expected.stderr).not.toBe("");
    const actual = await home.run(args, { env: providerEnv() });
    expect(actual).toEqual(expected);
  });

  it("runs the same turn: the same answer on stdout and the same request to the provider", async () => {
    provider.enqueue(textReply("the same answer"));
    provider.enqueue(textReply("the same answer"));
    const expected = await wholeCli(["q", "--id", "whole00000001", "one more question"]);
    const actual = await home.run(["q", "--id", "small00000001", "one more question"], {
      env: providerEnv(),
    });
    expect(expected).toEqual({ stdout: "the same answer\n", stderr: expected.stderr, exitCode: 0 });
    expect(actual).toEqual(expected);
    expect(provider.requests).toHaveLength(2);
    expect(provider.requests[1]!.body).toEqual(provider.requests[0]!.body);
  });
});
