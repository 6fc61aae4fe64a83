/**
 * `compact --interactive` end to end (seed D66, Phases 2 and 4): the fork and its set-up, the
 * opening proposal, one review per source, the block on compaction writes to a source under
 * review, flag conflicts, and the review model. The model is the loopback fake provider.
 */
import { readFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { countTurns } from "../../src/core/conversation/turns.js";
import type { TempHome } from "../helpers/cli.js";
import { type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { errorLines, reviewSourceOf, snapshotTree } from "./conversation-helpers.js";
import {
  ASSISTANT_MODEL,
  activeOf,
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

function cxc(args: string[], env: Record<string, string> = {}) {
  return home.run(args, { env: { ...providerEnv(provider), ...env } });
}

/** Starts a review with the offline digest as the summarizer (no model call). */
async function startDigestReview(extra: string[] = []) {
  const result = await cxc(["c", "compact", "--interactive", "-m", "builtin/digest", ...extra]);
  expect(result.stderr).not.toContain("error");
  expect(result.exitCode).toBe(0);
  const reviewId = reviewOf(home, SAMPLE_ID);
  if (reviewId === undefined) throw new Error("no review was created");
  return { result, reviewId };
}

type Body = {
  system?: unknown;
  tools?: { name: string }[];
  model: string;
  messages: { role: string; content: unknown }[];
};
const bodyOf = (index: number) => provider.requests[index]!.body as Body;

describe("compact --interactive: the compaction conversation", () => {
  it("forks the source with [turn N] markers, records the source and makes the review active", async () => {
    const { result, reviewId } = await startDigestReview();
    expect(activeOf(home)).toBe(reviewId);
    expect(reviewSourceOf(home, reviewId)).toBe(SAMPLE_ID);
    const source = readEvents(home);
    const review = readEvents(home, reviewId);
    const requests = review.flatMap((event) => (event.type === "chat_request" ? [event.content] : []));
    const sourceRequests = source.flatMap((event) => (event.type === "chat_request" ? [event.content] : []));
    expect(requests.slice(0, sourceRequests.length)).toEqual(
      sourceRequests.map((content, index) => `[turn ${index + 1}] ${content}`),
    );
    // The review's own opening turn carries no marker.
    expect(requests.at(-1)).not.toMatch(/^\[turn/);
    expect(countTurns(review)).toBe(countTurns(source) + 1);
    expect(result.stdout).toContain(`Started compaction review ${reviewId} of ${SAMPLE_ID}`);
    expect(result.stdout).toContain("Proposed: compact turns 2..19 of 20 (summarize)");
    expect(result.stderr).toContain("cxc conversation compact --continue");
    expect(result.stderr).toContain("cxc conversation compact --abort");
    expect(result.stderr).toContain('cxc q "…"');
  });

  it("writes the summarizer's draft, byte for byte, as the opening propose_compaction call", async () => {
    const draft =
      "## Draft\n\n- The user wants `--since` on logcat.\n- Tests in test/logcat.test.ts pass.  \n";
    provider.enqueue(textReply(draft));
    const result = await cxc(["c", "compact", "--interactive", "--keep-last", "3"]);
    expect(result.exitCode).toBe(0);
    const reviewId = reviewOf(home, SAMPLE_ID)!;
    const review = readEvents(home, reviewId);
    const call = review.find(
      (event) => event.type === "tool_call_request" && event.name === "propose_compaction",
    );
    expect(call?.type === "tool_call_request" && call.arguments).toEqual({
      from_turn: 2,
      to_turn: 17,
      summary: draft,
    });
    const response = review.find(
      (event) =>
        event.type === "tool_call_response" &&
        call?.type === "tool_call_request" &&
        event.call_id === call.call_id,
    );
    expect(response?.type === "tool_call_response" && response.is_error).toBe(false);
    expect(response?.type === "tool_call_response" && response.content).toContain(
      "Proposed: compact turns 2..17 of 20 (summarize)",
    );
    // The summarizer read the raw turns of the range.
    expect(JSON.stringify(bodyOf(0).messages)).toContain("since");
  });

  it("takes the opening range from the first configured rule with a summary", async () => {
    const rules = JSON.stringify([
      { keep_last: 1, reasoning: "strip" },
      { keep_first: 5, keep_last: 4, summary: {} },
    ]);
    const { result } = await startDigestReview(["-c", `conversation.compaction.rules=${rules}`]);
    expect(result.stdout).toContain("Proposed: compact turns 6..16 of 20 (summarize)");
  });

  it("turns every inherited tool off, enables only propose_compaction, and sets the review instructions", async () => {
    const tools = JSON.stringify({ shell: { command: "echo", description: "run", enable: true } });
    const config = ["-c", `conversation.tools=${tools}`];
    const { reviewId } = await startDigestReview(config);
    provider.enqueue(textReply("Sure, let us look at the range."));
    const chat = await cxc([...config, "q", "What does the draft drop?"]);
    expect(chat.exitCode).toBe(0);
    expect(bodyOf(0).tools?.map((tool) => tool.name)).toEqual(["propose_compaction"]);
    expect(JSON.stringify(bodyOf(0).system)).toContain(`reviewing a compaction of conversation ${SAMPLE_ID}`);
    // The same tool stays on in the source conversation, where propose_compaction is never offered;
    // recall rides there on every request, and never in the review, which keeps its one tool.
    await cxc(["c", "use", SAMPLE_ID]);
    provider.enqueue(textReply("ok"));
    await cxc([...config, "q", "hello"]);
    expect(bodyOf(1).tools?.map((tool) => tool.name)).toEqual(["shell", "recall"]);
    expect(reviewId).toBeDefined();
  });

  it("copies raw events (dropping the source's compactions) when they fit the review model's window", async () => {
    await cxc(["c", "compact", "-m", "builtin/digest", "-s", "--to", "5"]);
    expect(readEvents(home).some((event) => event.type === "compaction")).toBe(true);
    const { reviewId, result } = await startDigestReview(["--keep-last", "2"]);
    expect(readEvents(home, reviewId).some((event) => event.type === "compaction")).toBe(false);
    expect(result.stderr).not.toContain("too large");
  });

  it("keeps the source's compactions when the raw events do not fit, and says so", async () => {
    await cxc(["c", "compact", "-m", "builtin/digest", "-s", "--to", "5"]);
    const small = ["-c", 'providers.anthropic.models.claude-sonnet-4-6={"context_window": 2000}'];
    const { reviewId, result } = await startDigestReview([...small, "--keep-last", "2"]);
    const copied = readEvents(home, reviewId).filter((event) => event.type === "compaction");
    expect(copied).toHaveLength(1);
    expect(copied[0]).toMatchObject({ from_turn: 1, to_turn: 4 });
    expect(result.stderr).toContain("too large for the review model's window");
    const delta = readEvents(home, reviewId).find((event) => event.type === "config_delta" && event.metadata);
    expect(JSON.stringify(delta)).toContain("stored summaries");
  });
});

describe("compact --interactive: what the summarizer reads", () => {
  const small = ["-c", 'providers.anthropic.models.claude-sonnet-4-6={"context_window": 2000}'];

  it("reads the raw turns of the range when they fit the summarizer's window", async () => {
    await cxc(["c", "compact", "-m", "builtin/digest", "-s", "--from", "2", "--to", "5"]);
    provider.enqueue(textReply("draft"));
    expect((await cxc(["c", "compact", "--interactive"])).exitCode).toBe(0);
    expect(JSON.stringify(bodyOf(0).messages)).not.toContain("[Summary of previous conversation]");
  });

  it("reads the projected view (stored summaries) when the raw turns do not fit", async () => {
    await cxc(["c", "compact", "-m", "builtin/digest", "-s", "--from", "2", "--to", "5"]);
    provider.enqueue(textReply("draft"));
    const result = await cxc([...small, "c", "compact", "--interactive"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const sent = JSON.stringify(bodyOf(0).messages);
    expect(sent).toContain("[Summary of previous conversation]");
    expect(sent).toContain("Digest of turns 2");
  });
});

describe("compact --interactive: flags", () => {
  for (const flag of [["--reasoning"], ["--tools"], ["--dry-run"], ["--reset"]]) {
    it(`${flag[0]} conflicts with --interactive (usage error, nothing created)`, async () => {
      const result = await cxc(["c", "compact", "--interactive", ...flag]);
      expect(result.exitCode).toBe(2);
      expect(errorLines(result.stderr).error).toBe(`--interactive cannot be used with ${flag[0]}`);
      expect(reviewOf(home, SAMPLE_ID)).toBeUndefined();
    });
  }
});

describe("one review per source, and the block on compaction writes", () => {
  it("refuses a second review and points at the open one", async () => {
    const { reviewId } = await startDigestReview();
    const second = await cxc(["c", "compact", "--interactive", SAMPLE_ID, "-m", "builtin/digest"]);
    expect(second.exitCode).toBe(1);
    const { error, hint } = errorLines(second.stderr);
    expect(error).toBe(`a review of this conversation is already open: ${reviewId}`);
    // The review is the active conversation: the hint has no `use` step to take.
    expect(hint).toBe(
      "it is the active conversation: discuss (`cxc q`), then `cxc conversation compact --continue` or `--abort`",
    );
    // From elsewhere, it says how to switch to it.
    expect((await cxc(["c", "use", SAMPLE_ID])).exitCode).toBe(0);
    const elsewhere = await cxc(["c", "compact", "--interactive", "-m", "builtin/digest"]);
    expect(errorLines(elsewhere.stderr).hint).toBe(
      `switch to it with \`cxc conversation use ${reviewId}\`, then discuss, \`--continue\`, or \`--abort\``,
    );
  });

  it("refuses to compact the review itself, as --interactive is refused, pointing at --continue", async () => {
    const { reviewId } = await startDigestReview();
    const before = snapshotTree(home.home);
    for (const args of [[], ["-r"], ["--dry-run"], ["--reset"], [reviewId, "-k", "s:..-2"]]) {
      const result = await cxc(["c", "compact", ...args]);
      expect(result.exitCode, args.join(" ")).toBe(2);
      expect(errorLines(result.stderr)).toEqual({
        error: `${reviewId} is a compaction review (of ${SAMPLE_ID}); compacting it would compact the discussion, not ${SAMPLE_ID}`,
        hint: "apply the agreed proposal to it with `cxc conversation compact --continue`, or end the review with `cxc conversation compact --abort`",
      });
    }
    expect(snapshotTree(home.home)).toEqual(before);
  });

  it("refuses compact, compact --reset and q -k on the source; --dry-run and chat still work", async () => {
    await cxc(["c", "compact", "-m", "builtin/digest", "-r", "--to", "3"]);
    const { reviewId } = await startDigestReview();
    const before = logBytes(home);
    for (const args of [
      ["c", "compact", SAMPLE_ID, "-r"],
      ["c", "compact", SAMPLE_ID, "--reset"],
      ["c", "compact", SAMPLE_ID, "--undo-reset"],
      ["q", "--id", SAMPLE_ID, "-k", "hello"],
    ]) {
      const result = await cxc(args);
      expect(result.exitCode, args.join(" ")).toBe(1);
      const { error, hint } = errorLines(result.stderr);
      expect(error).toBe(`a compaction review of this conversation is open: ${reviewId}`);
      // `q --id` makes the source active: then the hint says how to switch back to the review.
      expect(hint).toBe(
        args[0] === "q"
          ? `finish it first: \`cxc conversation use ${reviewId}\`, then discuss, \`--continue\`, or \`--abort\``
          : "finish it first; it is the active conversation: discuss (`cxc q`), then `cxc conversation compact --continue` or `--abort`",
      );
    }
    expect(logBytes(home)).toBe(before);
    const dryRun = await cxc(["c", "compact", SAMPLE_ID, "-r", "--dry-run"]);
    expect(dryRun.exitCode).toBe(0);
    expect(logBytes(home)).toBe(before);
    // fork -k compacts the fork's copy and leaves the source alone.
    const fork = await cxc(["c", "fork", SAMPLE_ID, "-k", "r:..-2"]);
    expect(fork.exitCode, fork.stderr).toBe(0);
    expect(logBytes(home)).toBe(before);
    provider.enqueue(textReply("Still here."));
    const chat = await cxc(["q", "--id", SAMPLE_ID, "Are you there?"]);
    expect(chat.exitCode).toBe(0);
    expect(countTurns(readEvents(home))).toBe(21);
  });
});

describe("the review model", () => {
  it("writes the draft when one is configured, and the first line of the draft says who wrote it", async () => {
    const configured = ["-c", 'conversation.compaction.review.model.id="anthropic/claude-opus-4-6"'];
    const long = Array.from({ length: 30 }, (_, index) => `Line ${index + 1} of the draft.`).join("\n");
    provider.enqueue(textReply(long));
    const result = await cxc([...configured, "c", "compact", "--interactive"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(bodyOf(0).model).toBe("claude-opus-4-6");
    const lines = result.stdout.split("\n");
    expect(lines[1]).toBe("Proposed: compact turns 2..19 of 20 (summarize)");
    expect(lines[3]).toBe("Draft by anthropic/claude-opus-4-6:");
    // A short head; the rest is in the private copy, not scrolled past the proposal line.
    expect(result.stdout).toContain("Line 12 of the draft.");
    expect(result.stdout).not.toContain("Line 13 of the draft.");
    const more = /… 18 more lines; the whole draft: (\S+\.md)/.exec(result.stdout);
    expect(more, result.stdout).not.toBeNull();
    expect(readFileSync(more![1]!, "utf8").trimEnd()).toBe(long);
  });

  it("defaults to the assistant model", async () => {
    await startDigestReview();
    provider.enqueue(textReply("ok"));
    await cxc(["q", "hi"]);
    expect(bodyOf(0).model).toBe(ASSISTANT_MODEL.split("/")[1]);
  });

  it("is conversation.compaction.review.model, and -m overrides it", async () => {
    const configured = ["-c", 'conversation.compaction.review.model.id="anthropic/claude-opus-4-6"'];
    const { reviewId } = await startDigestReview(configured);
    provider.enqueue(textReply("ok"));
    await cxc(["q", "hi"]);
    expect(bodyOf(0).model).toBe("claude-opus-4-6");
    await cxc(["c", "compact", "--abort"]);
    expect(reviewOf(home, SAMPLE_ID)).toBeUndefined();
    provider.enqueue(textReply("DRAFT"), textReply("ok"));
    const overridden = await cxc([
      ...configured,
      "c",
      "compact",
      "--interactive",
      "-m",
      "anthropic/claude-haiku-4-5",
    ]);
    expect(overridden.exitCode).toBe(0);
    // -m also picks the summarizer of the draft.
    expect(bodyOf(1).model).toBe("claude-haiku-4-5");
    await cxc(["q", "hi"]);
    expect(bodyOf(2).model).toBe("claude-haiku-4-5");
    expect(reviewId).not.toBe(reviewOf(home, SAMPLE_ID));
  });
});

describe("propose_compaction inside a review", () => {
  it("validates each call against the source and returns the error or the rendered proposal", async () => {
    const { reviewId } = await startDigestReview();
    provider.enqueue(
      {
        blocks: [
          {
            type: "tool-call",
            id: "toolu_bad",
            name: "propose_compaction",
            arguments: { from_turn: 1, to_turn: 25, summary: "S" },
          },
        ],
      },
      ...proposalRound({ from_turn: 1, to_turn: 17, summary: "S" }, "Fixed.", "toolu_good"),
    );
    const result = await cxc(["q", "keep the last three turns"]);
    expect(result.exitCode).toBe(0);
    const responses = readEvents(home, reviewId).filter((event) => event.type === "tool_call_response");
    const bad = responses.find((event) => event.call_id === "toolu_bad");
    const good = responses.find((event) => event.call_id === "toolu_good");
    expect(bad).toMatchObject({
      is_error: true,
      content: "the conversation has 20 turns, `to_turn` was 25",
    });
    expect(good?.is_error).toBe(false);
    expect(good?.content.split("\n")[0]).toBe("Proposed: compact turns 1..17 of 20 (summarize)");
  });

  it("is not offered in a conversation that is not a review, and -t names where it works", async () => {
    const before = logBytes(home);
    const result = await cxc(["q", "-t", "propose_compaction", "try it"]);
    expect(result.exitCode).toBe(2);
    const { error, hint } = errorLines(result.stderr);
    expect(error).toBe("tool 'propose_compaction' is not available in this conversation");
    expect(hint).toContain("propose_compaction works only inside a compaction review");
    expect(hint).not.toMatch(/available tools: .*propose_compaction/);
    expect(logBytes(home)).toBe(before);
    expect(provider.requests).toHaveLength(0);
  });
});

describe("compact --interactive over OpenAI's Responses API", () => {
  it("drafts, discusses with propose_compaction, and applies the agreed summary", async () => {
    const env = {
      OPENAI_API_KEY: "test-key-openai",
      OPENAI_BASE_URL: provider.openaiBaseURL,
      CXC_ASSISTANT__MODEL__ID: "openai/gpt-5",
    };
    provider.enqueue(textReply("## Draft by gpt-5"));
    const started = await cxc(["c", "compact", "--interactive", "--keep-last", "3"], env);
    expect(started.exitCode, started.stderr).toBe(0);
    const reviewId = reviewOf(home, SAMPLE_ID)!;
    provider.enqueue(
      ...proposalRound({ from_turn: 2, to_turn: 17, summary: "Agreed over Responses." }, "Done.", "call_r1"),
    );
    const discussed = await cxc(["q", "Make it shorter."], env);
    expect(discussed.exitCode, discussed.stderr).toBe(0);
    expect(discussed.stdout).toContain("Done.");
    expect(provider.requests.map((request) => request.path)).toEqual([
      "/v1/responses",
      "/v1/responses",
      "/v1/responses",
    ]);
    const offered = provider.requests[1]!.body as { tools: { name: string }[]; instructions?: string };
    expect(offered.tools.map((tool) => tool.name)).toEqual(["propose_compaction"]);
    expect(JSON.stringify(provider.requests[2]!.body)).toContain(
      '"type":"function_call_output","call_id":"call_r1"',
    );
    const applied = await cxc(["c", "compact", "--continue", "--yes"], env);
    expect(applied.exitCode, applied.stderr).toBe(0);
    const compaction = readEvents(home).find((event) => event.type === "compaction");
    expect(compaction).toMatchObject({
      from_turn: 1,
      to_turn: 16,
      summary: { summary: "Agreed over Responses." },
    });
    expect(reviewOf(home, SAMPLE_ID)).not.toBe(reviewId);
  });
});
