/**
 * The whole review driven as a user would, in a pseudo-terminal (tmux): start a review, discuss
 * it in two rounds in which the model (the loopback fake provider) records revised proposals that
 * change the range and the summary, then `--continue` and answer the prompt; and start, then abort.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CXC_BIN, type TempHome } from "../helpers/cli.js";
import { type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { type PtySession, startInTmux } from "../helpers/pty.js";
import {
  activeOf,
  conversationIds,
  homeWithSample,
  logBytes,
  providerEnv,
  proposalRound,
  readEvents,
  reviewOf,
  SAMPLE_ID,
} from "./review-helpers.js";

let provider: FakeProvider;
let home: TempHome;
const sessions: PtySession[] = [];

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
  for (const session of sessions.splice(0)) session.close();
  home.cleanup();
});

/** Runs `cxc ARGS` at a terminal. */
function atTerminal(args: string[]): PtySession {
  const session = startInTmux([process.execPath, CXC_BIN, ...args], {
    env: { ...home.env, ...providerEnv(provider) },
    cwd: home.cwd.replace(/\/work$/, ""),
  });
  sessions.push(session);
  return session;
}

/** Runs a command that needs no answer and returns its screen once it exits 0. */
async function runToEnd(args: string[]): Promise<string> {
  const session = atTerminal(args);
  const code = await session.exitCode(30_000);
  const screen = session.screen();
  expect(code, screen).toBe(0);
  return screen;
}

/** Waits until the fake provider has received a request (the summary request is on its way). */
async function requestArrived(fake: FakeProvider): Promise<void> {
  for (let waited = 0; fake.requests.length === 0; waited += 20) {
    if (waited > 20_000) throw new Error("the provider received no request");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("a review at the terminal", () => {
  it("start, two rounds of discussion, continue, confirm", async () => {
    provider.enqueue(textReply("The summarizer's short draft."));
    const started = await runToEnd(["c", "compact", "--interactive"]);
    expect(started).toContain("Proposed: compact turns 2..19 of 20 (summarize)");
    expect(started).toContain("The summarizer's short draft.");
    expect(started).toContain("cxc conversation compact --continue");
    const reviewId = reviewOf(home, SAMPLE_ID)!;

    provider.enqueue(
      ...proposalRound(
        { from_turn: 1, to_turn: 17, summary: "Round one: the --since parser and its UTC rule." },
        "Recorded turns 1-17.",
        "toolu_round1",
      ),
    );
    const first = await runToEnd(["q", "Keep the last three turns, and compact from the very start."]);
    expect(first).toContain("Recorded turns 1-17.");
    // Each revision is visible as it is made: the tool result is the rendered proposal.
    expect(first).toContain("ok: Proposed: compact turns 1..17 of 20 (summarize)");

    provider.enqueue(
      ...proposalRound(
        {
          from_turn: 3,
          to_turn: 16,
          summary:
            "Round two: keep the streaming decision (2 GB files) and the UTC rule; drop the file listing.",
        },
        "Recorded turns 3-16.",
        "toolu_round2",
      ),
    );
    const second = await runToEnd(["q", "Start at 3, stop at 16, and keep the streaming decision."]);
    expect(second).toContain("Recorded turns 3-16.");
    expect(second).toContain("ok: Proposed: compact turns 3..16 of 20 (summarize)");

    const finish = atTerminal(["c", "compact", "--continue"]);
    const prompt = await finish.waitFor("Apply?");
    expect(prompt).toContain("Proposed: compact turns 3..16 (summarize)");
    expect(prompt).toContain("The conversation now has 20 turns; 4 turns stay uncompacted.");
    expect(prompt).toContain("Round two: keep the streaming decision");
    // The summary check comes before the question, so the cost is seen before agreeing.
    const check = prompt.search(/The summary of turns 3\.\.16 does not mention \d+ items/);
    expect(check).toBeGreaterThan(0);
    expect(check).toBeLessThan(prompt.lastIndexOf("Apply?"));
    // One key answers, as at the tool prompts: no Enter.
    finish.send("y");
    expect(await finish.exitCode()).toBe(0);
    expect(finish.screen()).toContain("Apply? (y/N) y");
    expect(finish.screen()).toContain(`Applied to ${SAMPLE_ID}: compacted turns 3..16 (summarize)`);

    const compactions = readEvents(home).filter((event) => event.type === "compaction");
    expect(compactions).toMatchObject([
      {
        from_turn: 2,
        to_turn: 15,
        summary: {
          summary:
            "Round two: keep the streaming decision (2 GB files) and the UTC rule; drop the file listing.",
        },
      },
    ]);
    expect(conversationIds(home, true)).toEqual([reviewId]);
    expect(activeOf(home)).toBe(SAMPLE_ID);
    expect(provider.remaining()).toBe(0);
  });

  it("declining at the prompt changes nothing and keeps the review open", async () => {
    await runToEnd(["c", "compact", "--interactive", "-m", "builtin/digest"]);
    const reviewId = reviewOf(home, SAMPLE_ID)!;
    const before = logBytes(home);
    const finish = atTerminal(["c", "compact", "--continue"]);
    await finish.waitFor("Apply?");
    finish.send("n");
    expect(await finish.exitCode()).toBe(1);
    expect(finish.screen()).toContain("Nothing applied; the review stays open.");
    expect(logBytes(home)).toBe(before);
    expect(activeOf(home)).toBe(reviewId);
    expect(reviewOf(home, SAMPLE_ID)).toBe(reviewId);
  });

  it("start, then abort without being asked anything", async () => {
    const before = logBytes(home);
    await runToEnd(["c", "compact", "--interactive", "-m", "builtin/digest"]);
    const reviewId = reviewOf(home, SAMPLE_ID)!;
    const aborted = await runToEnd(["c", "compact", "--abort"]);
    expect(aborted).toContain(
      `Aborted review ${reviewId} (archived); ${SAMPLE_ID} is unchanged and active again.`,
    );
    expect(logBytes(home)).toBe(before);
    expect(conversationIds(home, true)).toEqual([reviewId]);
    expect(activeOf(home)).toBe(SAMPLE_ID);
  });
});

describe("Ctrl-C while a model writes a summary", () => {
  const INTERRUPTED = /cxc: interrupted while summarizing turns \d+\.\.\d+; nothing was applied/;

  it("compact -s: says what happened, appends nothing, exits 130", async () => {
    provider.enqueue(textReply("A summary that never finishes", { holdAfterEvents: 3 }));
    const before = logBytes(home);
    const session = atTerminal(["c", "compact", "-s", "-m", "anthropic/claude-sonnet-4-6"]);
    await session.waitFor("summary of turns");
    await requestArrived(provider);
    session.send("C-c");
    expect(await session.exitCode()).toBe(130);
    expect(session.screen()).toMatch(INTERRUPTED);
    expect(session.screen()).not.toContain("error:");
    expect(logBytes(home)).toBe(before);
  });

  it("compact --interactive: no review is started", async () => {
    provider.enqueue(textReply("A draft that never finishes", { holdAfterEvents: 3 }));
    const before = logBytes(home);
    const session = atTerminal(["c", "compact", "--interactive"]);
    await session.waitFor("summary of turns");
    await requestArrived(provider);
    session.send("C-c");
    expect(await session.exitCode()).toBe(130);
    expect(session.screen()).toMatch(INTERRUPTED);
    expect(logBytes(home)).toBe(before);
    expect(reviewOf(home, SAMPLE_ID)).toBeUndefined();
    expect(conversationIds(home, false)).toEqual([SAMPLE_ID]);
  });
});
