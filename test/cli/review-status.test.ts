/**
 * An open compaction review shows in `show` and `ls` the way `git status` shows a rebase in
 * progress: on the source (`review 01xyz open`) and on the review (its source, open; once ended,
 * applied or aborted, as recorded in its review record by `--continue` / `--abort`).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TempHome } from "../helpers/cli.js";
import { type FakeProvider, startFakeProvider } from "../helpers/fake-provider.js";
import {
  homeWithSample,
  proposalRound,
  providerEnv,
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

function cxc(args: string[]) {
  return home.run(args, { env: providerEnv(provider) });
}

async function ok(args: string[]): Promise<string> {
  const result = await cxc(args);
  expect(result.exitCode, result.stderr).toBe(0);
  return result.stdout;
}

async function startReview(): Promise<string> {
  await ok(["c", "compact", "--interactive", "-m", "builtin/digest"]);
  return reviewOf(home, SAMPLE_ID)!;
}

/** The `ls` row of conversation `id`. */
function rowOf(listing: string, id: string): string {
  return (
    listing.split("\n").find((line) =>
      line
        .trim()
        .replace(/^[>*]+\s+/, "")
        .startsWith(`${id} `),
    ) ?? ""
  );
}

describe("review status in show and ls", () => {
  it("says a review is open on the source and on the review, then that it was applied", async () => {
    const reviewId = await startReview();
    const listing = await ok(["c", "ls"]);
    expect(rowOf(listing, SAMPLE_ID)).toMatch(
      new RegExp(`Add a --since filter to logcat  \\(review ${reviewId} open\\)$`),
    );
    expect(rowOf(listing, reviewId)).toMatch(new RegExp(`\\(review of ${SAMPLE_ID}, open\\)$`));
    expect(await ok(["c", "show", SAMPLE_ID])).toMatch(new RegExp(`^review:\\s+${reviewId} open$`, "m"));
    expect(await ok(["c", "show", reviewId])).toMatch(new RegExp(`^review of:\\s+${SAMPLE_ID}, open$`, "m"));
    const listed = JSON.parse(await ok(["--format", "json", "c", "ls"])) as Record<string, unknown>[];
    expect(listed.find((entry) => entry.id === SAMPLE_ID)).toMatchObject({
      review: null,
      open_review: reviewId,
    });
    expect(listed.find((entry) => entry.id === reviewId)).toMatchObject({
      review: { source: SAMPLE_ID, state: "open" },
      open_review: null,
    });
    expect(JSON.parse(await ok(["--format", "json", "c", "show", SAMPLE_ID]))).toMatchObject({
      review: null,
      open_review: reviewId,
    });

    provider.enqueue(
      ...proposalRound({ from_turn: 1, to_turn: 17, summary: "Agreed." }, "Recorded.", "toolu_1"),
    );
    await ok(["q", "record it"]);
    // `show` on the review: the proposal --continue would apply, and what its summary leaves out.
    expect(await ok(["c", "show", reviewId])).toMatch(
      /^proposal:\s+compact turns 1\.\.17 of 20 \(summarize\); the summary check lists \d+ items it leaves out$/m,
    );
    expect(JSON.parse(await ok(["--format", "json", "c", "show", reviewId]))).toMatchObject({
      review: { proposal: { from_turn: 1, to_turn: 17, from_cycle: null, to_cycle: null } },
    });
    await ok(["c", "compact", "--continue", "--yes"]);
    const compaction = readEvents(home).find((event) => event.type === "compaction")!;
    const record = JSON.parse(readFileSync(join(home.home, "archive", reviewId, "review.json"), "utf8"));
    expect(record).toEqual({
      source: SAMPLE_ID,
      outcome: "applied",
      ended_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      compaction_id: compaction.id,
    });
    expect(rowOf(await ok(["c", "ls"]), SAMPLE_ID)).toMatch(/Add a --since filter to logcat$/);
    expect(rowOf(await ok(["c", "ls", "--archived"]), reviewId)).toMatch(
      new RegExp(`\\(review of ${SAMPLE_ID}, applied\\)$`),
    );
    const shown = await ok(["c", "show", reviewId]);
    expect(shown).toMatch(
      new RegExp(`^review of:\\s+${SAMPLE_ID}, applied (just now|\\d+ seconds ago)$`, "m"),
    );
    expect(await ok(["c", "show", SAMPLE_ID])).not.toMatch(/^review/m);
    expect(JSON.parse(await ok(["--format", "json", "c", "show", reviewId])).review).toEqual({
      source: SAMPLE_ID,
      state: "applied",
      ended_at: record.ended_at,
      compaction_id: compaction.id,
      proposal: null,
    });
  });

  it("says an aborted review was aborted", async () => {
    const reviewId = await startReview();
    await ok(["c", "compact", "--abort"]);
    const record = JSON.parse(readFileSync(join(home.home, "archive", reviewId, "review.json"), "utf8"));
    expect(record).toMatchObject({ source: SAMPLE_ID, outcome: "aborted" });
    expect(record).not.toHaveProperty("compaction_id");
    expect(rowOf(await ok(["c", "ls", "--archived"]), reviewId)).toMatch(
      new RegExp(`\\(review of ${SAMPLE_ID}, aborted\\)$`),
    );
    expect(await ok(["c", "show", reviewId])).toMatch(
      new RegExp(`^review of:\\s+${SAMPLE_ID}, aborted `, "m"),
    );
    const listed = JSON.parse(await ok(["--format", "json", "c", "ls", "--archived"])) as Record<
      string,
      unknown
    >[];
    expect(listed.find((entry) => entry.id === reviewId)).toMatchObject({
      review: { source: SAMPLE_ID, state: "aborted" },
    });
  });
});
