/**
 * One compaction pipeline, end to end: the built CLI against the loopback fake provider.
 *
 * - Which summarizer: the rule's model, else the assistant model the user configured or named with
 *   `-m`, else `builtin/digest`. An API key alone is never a choice of summary model, so with only
 *   `ANTHROPIC_API_KEY` set a summary makes no request at all.
 * - A failed summary model follows `conversation.compaction.summary.fallback` the same way for
 *   every caller (`compact`, `q -k`, automatic compaction, the draft of `compact --interactive`,
 *   `fork -k`): `digest` (default) says so on stderr and records `builtin/digest`; `abort` applies
 *   nothing.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { TempHome } from "../helpers/cli.js";
import {
  contextOverflowReply,
  errorReply,
  type FakeProvider,
  type FakeReply,
  startFakeProvider,
  textReply,
} from "../helpers/fake-provider.js";
import { compactionsOf, homeWithSample, logBytes, readEvents, SAMPLE_ID } from "./compact-helpers.js";
import { errorLines } from "./conversation-helpers.js";
import { conversationIds, reviewOf } from "./review-helpers.js";

let provider: FakeProvider;
let home: TempHome;
beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(() => provider?.close());
afterEach(() => {
  home?.cleanup();
  expect(provider.remaining()).toBe(0);
  provider.reset();
});

/** Only a key (and the fake's address): no model is configured. */
function keyOnly(): Record<string, string> {
  return { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: provider.anthropicBaseURL };
}

const SUMMARY_MODEL = "anthropic/claude-summary";

/** Every attempt of a summary fails (the first try and jp's three retries). */
function failingSummary(): FakeReply[] {
  return Array.from({ length: 4 }, () => errorReply(500, { retryAfterSeconds: 0 }));
}

const ABORT = ["-c", "conversation.compaction.summary.fallback=abort"];
const DIGEST = ["-c", "conversation.compaction.summary.fallback=digest"];
const FALLBACK_LINE =
  /cxc: warning: summary model anthropic\/claude-summary failed \(.+\); summarized turns \d+\.\.\d+ with builtin\/digest instead/;

function modelOf(index: number): unknown {
  return (provider.requests[index]!.body as { model?: unknown }).model;
}

function isSummaryRequest(index: number): boolean {
  return JSON.stringify(provider.requests[index]!.body).includes("Summarize the conversation above.");
}

describe("which summarizer", () => {
  it("compact -k s:..-3 with only ANTHROPIC_API_KEY set: the digest, and no request at all", async () => {
    home = await homeWithSample();
    const result = await home.run(["conversation", "compact", "-k", "s:..-3"], { env: keyOnly() });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(provider.requests).toHaveLength(0);
    expect(result.stderr).toContain("No summary model is configured");
    expect(result.stdout).toContain("Compacted turns 1..17 (17 total, summary: ");
    expect(compactionsOf(home)[0]!.summary).toMatchObject({ source: "derived", recipe: "builtin/digest" });
  });

  it("compact with assistant.model.id configured: that model writes the summary", async () => {
    home = await homeWithSample();
    provider.enqueue(textReply("CONFIGURED SUMMARY"));
    const result = await home.run(
      ["-c", `assistant.model.id=${SUMMARY_MODEL}`, "conversation", "compact", "-k", "s:..-3"],
      {
        env: keyOnly(),
      },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect(provider.requests).toHaveLength(1);
    expect(modelOf(0)).toBe("claude-summary");
    expect(compactionsOf(home)[0]!.summary).toEqual({
      summary: "CONFIGURED SUMMARY",
      source: "derived",
      recipe: SUMMARY_MODEL,
      facts: expect.stringContaining("[Facts of these turns, from their raw events]"),
    });
  });

  it("compact -m: the named model writes the summary", async () => {
    home = await homeWithSample();
    provider.enqueue(textReply("NAMED SUMMARY"));
    const result = await home.run(
      ["conversation", "compact", "-m", "anthropic/claude-named", "-k", "s:..-3"],
      {
        env: { ...keyOnly(), CXC_ASSISTANT__MODEL__ID: SUMMARY_MODEL },
      },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect(provider.requests).toHaveLength(1);
    expect(modelOf(0)).toBe("claude-named");
    expect(compactionsOf(home)[0]!.summary?.recipe).toBe("anthropic/claude-named");
  });

  it("q -k with only a key: q chats with the key's provider, the summary is the digest", async () => {
    home = await homeWithSample();
    provider.enqueue(textReply("the answer"));
    const result = await home.run(["q", "-k=s:..-2", "next question"], { env: keyOnly() });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(provider.requests).toHaveLength(1);
    expect(isSummaryRequest(0)).toBe(false);
    expect(modelOf(0)).toBe("claude-sonnet-4-6");
    expect(compactionsOf(home)[0]!.summary?.recipe).toBe("builtin/digest");
  });

  it("q -m X -k: the summary is written by X, before the turn", async () => {
    home = await homeWithSample();
    provider.enqueue(textReply("SUMMARY BY X"), textReply("the answer"));
    const result = await home.run(["q", "-m", SUMMARY_MODEL, "-k=s:..-2", "next question"], {
      env: keyOnly(),
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(provider.requests).toHaveLength(2);
    expect(isSummaryRequest(0)).toBe(true);
    expect(modelOf(0)).toBe("claude-summary");
    expect(compactionsOf(home)[0]!.summary).toMatchObject({ summary: "SUMMARY BY X", recipe: SUMMARY_MODEL });
    expect(JSON.stringify(provider.requests[1]!.body)).toContain("SUMMARY BY X");
  });
});

describe("a failed summary model, the same for every caller", () => {
  it("compact -m: a model the user asked for applies nothing; with fallback = digest the digest stands in", async () => {
    home = await homeWithSample();
    const before = logBytes(home);
    provider.enqueue(...failingSummary());
    const aborted = await home.run(["conversation", "compact", "-m", SUMMARY_MODEL, "-k", "s:..-3"], {
      env: keyOnly(),
    });
    expect(aborted.exitCode).toBe(1);
    const { error, hint } = errorLines(aborted.stderr);
    expect(error).toMatch(/^Summarization failed for anthropic\/claude-summary: .*Nothing was compacted\.$/);
    expect(hint).toContain("-m builtin/digest");
    expect(aborted.stderr).not.toMatch(FALLBACK_LINE);
    expect(logBytes(home)).toBe(before);

    provider.enqueue(...failingSummary());
    const result = await home.run(
      [...DIGEST, "conversation", "compact", "-m", SUMMARY_MODEL, "-k", "s:..-3"],
      { env: keyOnly() },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(FALLBACK_LINE);
    expect(compactionsOf(home)[0]!.summary?.recipe).toBe("builtin/digest");
  });

  it("compact with the assistant model: the digest stands in and says so; with abort nothing is applied", async () => {
    home = await homeWithSample();
    const model = ["-c", `assistant.model.id=${SUMMARY_MODEL}`];
    provider.enqueue(...failingSummary());
    const result = await home.run([...model, "conversation", "compact", "-k", "s:..-3"], { env: keyOnly() });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(FALLBACK_LINE);
    const before = logBytes(home);
    provider.enqueue(...failingSummary());
    const aborted = await home.run([...model, ...ABORT, "conversation", "compact", "-k", "s:..-3"], {
      env: keyOnly(),
    });
    expect(aborted.exitCode).toBe(1);
    expect(logBytes(home)).toBe(before);
  });

  it("q -k with a rule's model: neither the compaction nor the turn happens; with fallback = digest the turn goes on", async () => {
    home = await homeWithSample();
    const rules = ["-c", `conversation.compaction.rules=[{"summary":{"model":{"id":"${SUMMARY_MODEL}"}}}]`];
    const before = logBytes(home);
    provider.enqueue(...failingSummary());
    const aborted = await home.run([...rules, "q", "-k", "another question"], { env: keyOnly() });
    expect(aborted.exitCode).toBe(1);
    expect(errorLines(aborted.stderr).error).toMatch(/^Summarization failed for anthropic\/claude-summary: /);
    expect(provider.requests.every((_, index) => isSummaryRequest(index))).toBe(true);
    expect(logBytes(home)).toBe(before);

    provider.reset();
    provider.enqueue(...failingSummary(), textReply("the answer"));
    const result = await home.run([...rules, ...DIGEST, "q", "-k", "next question"], { env: keyOnly() });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(FALLBACK_LINE);
    expect(result.stdout).toContain("the answer");
    expect(compactionsOf(home)[0]!.summary?.recipe).toBe("builtin/digest");
  });

  it("automatic compaction: the digest stands in, and the overflowed request is retried", async () => {
    home = await homeWithSample();
    const auto = [
      "-c",
      "conversation.compaction.auto.enabled=true",
      "-c",
      `conversation.compaction.auto.rules=[{"summary":{"model":{"id":"${SUMMARY_MODEL}"}}}]`,
    ];
    provider.enqueue(contextOverflowReply(), ...failingSummary(), textReply("fits now"));
    const result = await home.run([...auto, "q", "next question"], { env: keyOnly() });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(FALLBACK_LINE);
    expect(result.stdout).toContain("fits now");
    const [summary] = compactionsOf(home);
    expect(summary).toMatchObject({ source: "auto", summary: { recipe: "builtin/digest" } });

    // With abort the automatic compaction fails (said once), so the overflow stays an error.
    const before = readEvents(home).filter((event) => event.type === "compaction").length;
    provider.reset();
    provider.enqueue(contextOverflowReply(), ...failingSummary());
    const aborted = await home.run([...auto, ...ABORT, "q", "another question"], { env: keyOnly() });
    expect(aborted.exitCode).not.toBe(0);
    expect(aborted.stderr).toContain(
      "automatic compaction failed: Summarization failed for anthropic/claude-summary",
    );
    expect(readEvents(home).filter((event) => event.type === "compaction")).toHaveLength(before);
  });

  it("compact --interactive -m: no review is opened; with fallback = digest the draft is the digest's", async () => {
    home = await homeWithSample();
    const before = conversationIds(home);
    provider.enqueue(...failingSummary());
    const aborted = await home.run(["conversation", "compact", "--interactive", "-m", SUMMARY_MODEL], {
      env: keyOnly(),
    });
    expect(aborted.exitCode).toBe(1);
    expect(errorLines(aborted.stderr).error).toMatch(/^Summarization failed for anthropic\/claude-summary: /);
    expect(conversationIds(home)).toEqual(before);

    provider.enqueue(...failingSummary());
    const result = await home.run(
      [...DIGEST, "conversation", "compact", "--interactive", "-m", SUMMARY_MODEL],
      {
        env: keyOnly(),
      },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(FALLBACK_LINE);
    expect(result.stdout).toContain("## Digest of turns 2..19 (builtin/digest)");
    expect(reviewOf(home, SAMPLE_ID)).toBeDefined();
  });

  it("fork -k: the fork is compacted with the digest; with abort no fork is created", async () => {
    home = await homeWithSample();
    const model = ["-c", `assistant.model.id=${SUMMARY_MODEL}`];
    const before = conversationIds(home);
    provider.enqueue(...failingSummary());
    const aborted = await home.run([...model, ...ABORT, "conversation", "fork", "-k", "s:..-2"], {
      env: keyOnly(),
    });
    expect(aborted.exitCode).toBe(1);
    expect(errorLines(aborted.stderr).error).toMatch(/^Summarization failed for anthropic\/claude-summary: /);
    expect(conversationIds(home)).toEqual(before);

    provider.enqueue(...failingSummary());
    const result = await home.run([...model, "--format", "json", "conversation", "fork", "-k", "s:..-2"], {
      env: keyOnly(),
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(FALLBACK_LINE);
    const fork = (JSON.parse(result.stdout) as { id: string }).id;
    expect(compactionsOf(home, fork)[0]!.summary?.recipe).toBe("builtin/digest");
  });
});

describe("summary copies", () => {
  const copyOf = (stdout: string): string => /summary: (\S+\.md)\)/.exec(stdout)![1]!;

  it("go only to the private scratch directory: a symlink planted at the old predictable path is not followed", async () => {
    home = await homeWithSample();
    const tmp = join(home.env.HOME!, "..", "tmp");
    mkdirSync(tmp, { recursive: true });
    const victim = join(home.env.HOME!, "..", "victim.txt");
    writeFileSync(victim, "precious\n");
    // Where cxc used to write the copy of turns 3..6: `$TMPDIR/<id>-summary-2-5.md`.
    symlinkSync(victim, join(tmp, `${SAMPLE_ID}-summary-2-5.md`));
    const first = await home.run(["conversation", "compact", "-s", "--turn", "3..6"], {
      env: { TMPDIR: tmp },
    });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
    expect(readdirSync(tmp)).toEqual([`${SAMPLE_ID}-summary-2-5.md`]);
    const scratch = join(home.env.HOME!, ".cache", "cxc", "scratch");
    const path = copyOf(first.stdout);
    expect(path.startsWith(join(scratch, `${SAMPLE_ID}-summary-turns-3-6-`))).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(scratch).mode & 0o777).toBe(0o700);
    expect(statSync(join(scratch, "..")).mode & 0o777).toBe(0o700);

    // A later run over the same turns writes a new file; the first stays as it was.
    const text = readFileSync(path, "utf8");
    await home.run(["conversation", "compact", "--reset"]);
    const second = await home.run(["conversation", "compact", "-s", "--turn", "3..6"], {
      env: { TMPDIR: tmp },
    });
    expect(second.exitCode, second.stderr).toBe(0);
    expect(copyOf(second.stdout)).not.toBe(path);
    expect(readFileSync(path, "utf8")).toBe(text);
  });

  it("are not written through a symlinked cache directory; the compaction is applied anyway", async () => {
    home = await homeWithSample();
    const victim = join(home.env.HOME!, "..", "victim");
    mkdirSync(victim);
    mkdirSync(join(home.env.HOME!, ".cache"), { recursive: true });
    symlinkSync(victim, join(home.env.HOME!, ".cache", "cxc"));
    const result = await home.run(["conversation", "compact", "-s", "--turn", "3..6"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain("cxc: warning: could not write a copy of the summary: ");
    expect(result.stderr).toContain("is a symbolic link");
    expect(readdirSync(victim)).toEqual([]);
    expect(result.stdout).toContain("Compacted turns 3..6 (4 total, summary).");
    expect(compactionsOf(home)).toHaveLength(1);
  });
});
