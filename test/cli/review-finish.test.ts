/**
 * `compact --continue` and `compact --abort` end to end (seed D66, Phase 3): apply the latest
 * proposal (re-validated, shown with how far the source grew), archive and switch back; the
 * re-run after a crash between apply and archive; deleted and archived sources; no proposal;
 * flags; and abort, which touches nothing in the source.
 */
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { realizePlan } from "../../src/compaction/core/realize.js";
import { type ReviewProposal, reviewCompactionPlan } from "../../src/compaction/core/review/review.js";
import type { TempHome } from "../helpers/cli.js";
import { type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import {
  errorLines,
  openStore,
  reviewSourceOf,
  seedConversation,
  snapshotTree,
} from "./conversation-helpers.js";
import {
  activeOf,
  conversationIds,
  eventsOf,
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

function cxc(args: string[], input?: string) {
  return home.run(args, { env: providerEnv(provider), ...(input === undefined ? {} : { input }) });
}

async function startReview(): Promise<string> {
  const result = await cxc(["c", "compact", "--interactive", "-m", "builtin/digest"]);
  expect(result.exitCode).toBe(0);
  return reviewOf(home, SAMPLE_ID)!;
}

/** One `cxc q` round in which the model records a proposal. */
async function propose(argumentsObject: Record<string, unknown>, callId: string): Promise<void> {
  provider.enqueue(...proposalRound(argumentsObject, "Recorded that.", callId));
  const result = await cxc(["q", "please record it"]);
  expect(result.exitCode).toBe(0);
}

const compactionsOfSource = () => readEvents(home).filter((event) => event.type === "compaction");

describe("compact --continue", () => {
  it("applies the latest proposal, archives the review and switches back", async () => {
    const reviewId = await startReview();
    await propose({ from_turn: 1, to_turn: 17, summary: "The agreed summary." }, "toolu_1");
    const result = await cxc(["c", "compact", "--continue", "--yes"]);
    expect(result.stderr).toContain("Proposed: compact turns 1..17 (summarize)");
    expect(result.stderr).toContain("The conversation now has 20 turns; 3 turns stay uncompacted.");
    expect(result.stderr).toContain("The agreed summary.");
    // Before confirming: the next request before and after, and the cost with the prompt cache.
    expect(result.stderr).toMatch(/\nContext of the next request: \S+ → \S+ tokens \(/);
    expect(result.stderr).toMatch(
      /\nWith the prompt cache: saves \S+ tokens a request.*; the next request writes \S+ tokens to the cache again from turn 1 on/,
    );
    // The summary check shows what the agreed text leaves out before anything is applied.
    expect(result.stderr).toMatch(
      /\nThe summary of turns 1\.\.17 does not mention \d+ items; the 10 that matter most:\n/,
    );
    expect(result.stderr).toMatch(/\n {2}identifier {2}parseSince — named by the assistant in turns /);
    expect(result.stderr).toContain("more\n");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain(`Applied to ${SAMPLE_ID}: compacted turns 1..17 (summarize)`);
    const [compaction] = compactionsOfSource();
    expect(compaction).toMatchObject({
      from_turn: 0,
      to_turn: 16,
      summary: { summary: "The agreed summary.", source: "supplied", author: "assistant" },
      source: "user",
      note: `agreed in compaction review ${reviewId}`,
    });
    expect(conversationIds(home, true)).toEqual([reviewId]);
    expect(reviewSourceOf(home, reviewId, true)).toBe(SAMPLE_ID);
    expect(activeOf(home)).toBe(SAMPLE_ID);
    // The review is over: compaction of the source works again.
    const again = await cxc(["c", "compact", "-r", "--to", "18"]);
    expect(again.exitCode).toBe(0);
  });

  it("adds the proposal's pins with the compaction, in one append, and never removes one", async () => {
    await cxc(["c", "keep", "18", "--only", "user"]);
    await startReview();
    await propose({ from_turn: 1, to_turn: 17, summary: "S", keep: ["2.1", "18"] }, "toolu_1");
    const result = await cxc(["c", "compact", "--continue", "--yes"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      "Proposed: compact turns 1..17 (summarize); keep verbatim: turn 2, cycle 1; turn 18",
    );
    const events = readEvents(home);
    const pins = events.flatMap((event) =>
      event.type === "pin" ? [[event.turn, event.cycle ?? null, event.only ?? null]] : [],
    );
    // The pin already there stays; the two new ones come before the compaction they shape.
    expect(pins).toEqual([
      [17, null, "user"],
      [1, 0, null],
      [17, null, null],
    ]);
    const last = events.slice(-3).map((event) => event.type);
    expect(last).toEqual(["pin", "pin", "compaction"]);
    const view = await cxc(["c", "print", "--compacted", "--style", "full"]);
    expect(view.stdout).toContain("[Pinned messages, kept verbatim]\nturn 2, ");
  });

  it("refuses a proposal that keeps what is not there, naming the position", async () => {
    await startReview();
    provider.enqueue(
      ...proposalRound({ from_turn: 1, to_turn: 17, summary: "S", keep: ["99"] }, "Fixing it.", "toolu_bad"),
    );
    const result = await cxc(["q", "please record it"]);
    expect(result.exitCode).toBe(0);
    const answered = JSON.stringify(provider.requests.at(-1)!.body);
    expect(answered).toContain("`keep[0]`: turn 99 out of range (conversation has 20 turns)");
  });

  it("shows how far the source has grown and still compacts the agreed absolute range", async () => {
    await startReview();
    await propose({ from_turn: 1, to_turn: 17, summary: "S" }, "toolu_1");
    await cxc(["c", "use", SAMPLE_ID]);
    for (const words of ["one more", "and another", "a third", "a fourth"]) {
      provider.enqueue(textReply("ok"));
      expect((await cxc(["q", words])).exitCode).toBe(0);
    }
    await cxc(["c", "use", reviewOf(home, SAMPLE_ID)!]);
    const result = await cxc(["c", "compact", "--continue", "--no-confirm"]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain("The conversation now has 24 turns; 7 turns stay uncompacted.");
    expect(compactionsOfSource()[0]).toMatchObject({ from_turn: 0, to_turn: 16 });
  });

  it("says which compactions in force the agreed summary replaces", async () => {
    const before = await cxc(["c", "compact", "-m", "builtin/digest", "-k", "s:4..6"]);
    expect(before.exitCode, before.stderr).toBe(0);
    await startReview();
    await propose({ from_turn: 1, to_turn: 17, summary: "S" }, "toolu_1");
    const result = await cxc(["c", "compact", "--continue", "--yes"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      "It replaces the compaction in force over those turns: 1. turns 4..6 (3 total, summary).",
    );
    // `show` says so too: the replaced one changes nothing now (a reset of 2 brings it back).
    const shown = await cxc(["c", "show", SAMPLE_ID]);
    expect(shown.stdout).toContain("  1. turns 4..6 (3 total, summary) [user, replaced by 2]\n");
    expect(shown.stdout).toMatch(/ {2}2\. turns 1\.\.17 \(17 total, summary\) \[user\] — agreed in/);
    const json = JSON.parse((await cxc(["--format", "json", "c", "show", SAMPLE_ID])).stdout);
    expect(json.compactions.map((c: { replaced_by: number | null }) => c.replaced_by)).toEqual([2, null]);
  });

  it("takes --confirm, the default, and refuses it beside --yes", async () => {
    const reviewId = await startReview();
    const before = logBytes(home);
    const clash = await cxc(["c", "compact", "--continue", "--confirm", "--yes"]);
    expect(clash.exitCode).toBe(2);
    expect(errorLines(clash.stderr).error).toBe("--confirm cannot be used with --yes");
    const piped = await cxc(["c", "compact", "--continue", "--confirm"]);
    expect(piped.exitCode).toBe(2);
    expect(errorLines(piped.stderr).error).toBe("refusing to apply the proposal without confirmation");
    expect(logBytes(home)).toBe(before);
    expect(activeOf(home)).toBe(reviewId);
  });

  it("without --yes and without a terminal refuses to apply, leaving everything as it was", async () => {
    const reviewId = await startReview();
    const before = logBytes(home);
    const result = await cxc(["c", "compact", "--continue"]);
    expect(result.exitCode).toBe(2);
    expect(errorLines(result.stderr).error).toBe("refusing to apply the proposal without confirmation");
    expect(logBytes(home)).toBe(before);
    expect(activeOf(home)).toBe(reviewId);
  });

  it("after a crash between apply and archive, a re-run finishes without asking again", async () => {
    const reviewId = await startReview();
    await propose({ from_turn: 2, to_turn: 10, summary: "Crash test summary." }, "toolu_1");
    // What the first --continue did before it died: the compaction is in the source, the review is open.
    const proposal: ReviewProposal = {
      fromTurn: 2,
      toTurn: 10,
      requested: { fromTurn: 2, toTurn: 10 },
      summary: "Crash test summary.",
    };
    const store = openStore(home);
    const plan = reviewCompactionPlan(
      proposal,
      reviewId,
      store.load(SAMPLE_ID).events,
      "2026-06-01T00:00:00.000Z",
    );
    if (plan.kind !== "planned") throw new Error(plan.kind);
    const crashed = realizePlan(plan, [], {
      newEventId: () => "crashed0compaction",
      now: () => "2026-06-01T00:00:00.000Z",
    });
    await store.appendLocked(SAMPLE_ID, crashed, "test");
    const before = logBytes(home);
    // No --yes and no terminal: it would refuse if it wanted to ask.
    const result = await cxc(["c", "compact", "--continue"]);
    expect(result.stderr).not.toContain("error");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain(`already applied to ${SAMPLE_ID}`);
    expect(logBytes(home)).toBe(before);
    expect(compactionsOfSource()).toHaveLength(1);
    expect(conversationIds(home, true)).toEqual([reviewId]);
    expect(activeOf(home)).toBe(SAMPLE_ID);
  });

  it("fails with a pointer to --abort when the source was deleted", async () => {
    await startReview();
    expect((await cxc(["c", "rm", SAMPLE_ID, "-y"])).exitCode).toBe(0);
    const result = await cxc(["c", "compact", "--continue", "--yes"]);
    expect(result.exitCode).toBe(1);
    const { error, hint } = errorLines(result.stderr);
    expect(error).toBe(
      `the source conversation ${SAMPLE_ID} no longer exists, so there is nothing to apply the proposal to`,
    );
    expect(hint).toBe("close the review with `cxc conversation compact --abort`");
  });

  it("applies normally to an archived source, leaves it archived and no conversation active, and says how to bring it back", async () => {
    const reviewId = await startReview();
    expect((await cxc(["c", "archive", SAMPLE_ID])).exitCode).toBe(0);
    const result = await cxc(["c", "compact", "--continue", "--yes"]);
    expect(result.exitCode).toBe(0);
    const archivedSource = eventsOf(home, SAMPLE_ID, true).filter((event) => event.type === "compaction");
    expect(archivedSource).toMatchObject([{ from_turn: 1, to_turn: 18 }]);
    expect(conversationIds(home, true)).toEqual([reviewId, SAMPLE_ID].sort());
    expect(result.stdout).toMatch(new RegExp(`Archived review ${reviewId}\\.\\n$`));
    expect(result.stderr).toContain(
      `cxc: The source ${SAMPLE_ID} is archived; cxc c use ${SAMPLE_ID} brings it back.\n`,
    );
    expect(activeOf(home)).toBeUndefined();
    // `use` brings it back: unarchived and active, with the compaction the review agreed.
    const used = await cxc(["c", "use", SAMPLE_ID]);
    expect(used.stdout).toMatch(
      new RegExp(`^Unarchived conversation ${SAMPLE_ID}\\.\\nActive conversation: ${SAMPLE_ID} `),
    );
    expect(activeOf(home)).toBe(SAMPLE_ID);
    expect(compactionsOfSource()).toMatchObject([{ from_turn: 1, to_turn: 18 }]);
  });

  it("--abort leaves an archived source archived, and no conversation active", async () => {
    const reviewId = await startReview();
    expect((await cxc(["c", "archive", SAMPLE_ID])).exitCode).toBe(0);
    const result = await cxc(["c", "compact", "--abort"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(`Aborted review ${reviewId} (archived); ${SAMPLE_ID} is unchanged.\n`);
    expect(result.stderr).toContain(
      `The source ${SAMPLE_ID} is archived; cxc c use ${SAMPLE_ID} brings it back.`,
    );
    expect(activeOf(home)).toBeUndefined();
  });

  it("is a clear error when the review holds no proposal", async () => {
    await seedConversation(home, { id: "review00empty", events: [], active: true });
    const store = openStore(home);
    // A review as versions before the review record wrote it: the source in its metadata.
    await store.updateMeta("review00empty", (meta) => ({ ...meta, compaction_source: SAMPLE_ID }), "test");
    const result = await cxc(["c", "compact", "--continue", "--yes"]);
    expect(result.exitCode).toBe(1);
    expect(errorLines(result.stderr).error).toBe(
      "the review contains no propose_compaction call that succeeded, so there is no proposal to apply",
    );
  });

  it("needs the active conversation to be a review, and takes no id or range flags", async () => {
    const notReview = await cxc(["c", "compact", "--continue", "--yes"]);
    expect(notReview.exitCode).toBe(2);
    expect(errorLines(notReview.stderr).error).toBe(
      `--continue acts on the active conversation, which must be a compaction review; ${SAMPLE_ID} is not one`,
    );
    await startReview();
    for (const [args, message] of [
      [[SAMPLE_ID], "--continue takes no conversation id; it acts on the active review"],
      [["--keep-last", "3"], "--continue cannot be used with --keep-last"],
      [["--abort"], "--continue cannot be used with --abort"],
      [["--dry-run"], "--continue cannot be used with --dry-run"],
    ] as const) {
      const result = await cxc(["c", "compact", "--continue", ...args]);
      expect(result.exitCode, args.join(" ")).toBe(2);
      expect(errorLines(result.stderr).error).toBe(message);
    }
  });
});

describe("--format json", () => {
  it("reports the start, the apply and the abort as JSON documents", async () => {
    const started = await cxc(["--format", "json", "c", "compact", "--interactive", "-m", "builtin/digest"]);
    const start = JSON.parse(started.stdout) as Record<string, unknown>;
    expect(start).toMatchObject({ action: "interactive", source_id: SAMPLE_ID, raw_events: true });
    expect(start.proposal).toMatchObject({ from_turn: 2, to_turn: 19 });
    const applied = await cxc(["--format", "json", "c", "compact", "--continue", "--yes"]);
    expect(JSON.parse(applied.stdout)).toMatchObject({
      action: "continue",
      outcome: "applied",
      review_id: start.review_id,
      from_turn: 2,
      to_turn: 19,
    });
    await cxc(["c", "compact", "--interactive", "-m", "builtin/digest"]);
    const aborted = await cxc(["--format", "json", "c", "compact", "--abort"]);
    expect(JSON.parse(aborted.stdout)).toMatchObject({ action: "abort", source_id: SAMPLE_ID });
  });
});

describe("compact --abort", () => {
  it("archives the review and switches back, touching nothing in the source and asking nothing", async () => {
    const before = snapshotTree(join(home.home, "conversations", SAMPLE_ID));
    const reviewId = await startReview();
    await propose({ from_turn: 1, to_turn: 5, summary: "never applied" }, "toolu_1");
    const result = await cxc(["c", "compact", "--abort"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(
      `Aborted review ${reviewId} (archived); ${SAMPLE_ID} is unchanged and active again.\n`,
    );
    expect(snapshotTree(join(home.home, "conversations", SAMPLE_ID))).toEqual(before);
    expect(conversationIds(home, true)).toEqual([reviewId]);
    expect(activeOf(home)).toBe(SAMPLE_ID);
    // An archived review never blocks: a new review can start.
    expect(reviewOf(home, SAMPLE_ID)).toBeUndefined();
    await startReview();
  });

  it("an unarchived review is open again: it blocks, and --continue offers its proposal", async () => {
    const reviewId = await startReview();
    await cxc(["c", "compact", "--abort"]);
    expect((await cxc(["c", "unarchive", reviewId])).exitCode).toBe(0);
    const blocked = await cxc(["c", "compact", SAMPLE_ID, "-r"]);
    expect(errorLines(blocked.stderr).error).toBe(
      `a compaction review of this conversation is open: ${reviewId}`,
    );
    await cxc(["c", "use", reviewId]);
    const result = await cxc(["c", "compact", "--continue", "--yes"]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain("Proposed: compact turns 2..19 (summarize)");
  });

  it("works when the source was deleted, and refuses outside a review", async () => {
    const outside = await cxc(["c", "compact", "--abort"]);
    expect(outside.exitCode).toBe(2);
    expect(errorLines(outside.stderr).error).toContain(
      "--abort acts on the active conversation, which must be a compaction review;",
    );
    const reviewId = await startReview();
    await cxc(["c", "rm", SAMPLE_ID, "-y"]);
    const result = await cxc(["c", "compact", "--abort"]);
    expect(result.exitCode).toBe(0);
    expect(conversationIds(home, true)).toEqual([reviewId]);
    expect(activeOf(home)).toBeUndefined();
  });
});
