/**
 * What every compaction keeps by construction, through the built CLI (docs/compaction.md, "What a
 * compaction keeps"): the facts block after a digest and after a model's summary (the fake
 * provider through the real SDK), the user's binding sentences of turn 1 in the request body after
 * `-k s:..-2`; pins (`keep`/`unkeep`) through masking, a summary and a reset; keep rules from
 * configuration; and the bad inputs, which change nothing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ConversationEvent, TurnEvent } from "../../src/core/conversation/events.js";
import { groupTurns } from "../../src/core/conversation/turns.js";
import { extractRangeFacts } from "../../src/compaction/core/summary/range-facts.js";
import { FACTS_NOTICE } from "../../src/compaction/model-summarizer.js";
import { createEventBuilder } from "../helpers/builders.js";
import type { TempHome } from "../helpers/cli.js";
import { type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { loadSample } from "../helpers/sample.js";
import { compactionsOf, homeWithSample, logBytes, readEvents, SAMPLE_ID } from "./compact-helpers.js";
import { errorLines } from "./conversation-helpers.js";

const FILES = Array.from(
  { length: 12 },
  (_, index) => `src/parts/part-${String(index + 1).padStart(2, "0")}.ts`,
);
const BINDING = "Never rename the exported functions.";

/** Three turns that read six files and edit six, then two more turns. */
function twelveFiles(): ConversationEvent[] {
  const build = createEventBuilder();
  const events: TurnEvent[] = [];
  const turn = (question: string, files: readonly string[], tool: "read_file" | "edit_file") => {
    events.push(build.turnStart(), build.request(question));
    for (const path of files) {
      const request = build.toolRequest({
        name: tool,
        arguments: { path, ...(tool === "edit_file" ? { content: "x" } : {}) },
      });
      events.push(request, build.toolResponse(request.call_id, `${"export const part = 1;\n".repeat(40)}`));
    }
    events.push(build.message(`done with ${files.length} files`));
  };
  turn(`Tidy the parts. ${BINDING}`, FILES.slice(0, 4), "read_file");
  turn("Read the rest.", FILES.slice(4, 6), "read_file");
  turn("Now edit them.", FILES.slice(6), "edit_file");
  turn("Anything left?", [], "read_file");
  turn("Thanks.", [], "read_file");
  return events;
}

let provider: FakeProvider;
let home: TempHome;
beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(() => provider?.close());
afterEach(() => {
  home?.cleanup();
  provider.requests.length = 0;
});

const anthropicEnv = () => ({
  ANTHROPIC_API_KEY: "test-key",
  ANTHROPIC_BASE_URL: provider.anthropicBaseURL,
  CXC_ASSISTANT__MODEL__ID: "anthropic/claude-sonnet-4-6",
});

async function ok(args: string[], env: Record<string, string> = {}) {
  const result = await home.run(args, { env });
  expect(result.exitCode, `${args.join(" ")}: ${result.stderr}`).toBe(0);
  return result;
}

describe("the facts block", () => {
  it("follows a digest and a model's summary of a range that touched twelve files with all twelve", async () => {
    home = await homeWithSample(twelveFiles());
    await ok(["conversation", "compact", "-m", "builtin/digest", "-k", "s:..-2"]);
    const digestView = (await ok(["conversation", "print", "--compacted", "--style", "full"])).stdout;
    const block = digestView.slice(digestView.indexOf("[Facts of these turns, from their raw events]"));
    for (const path of FILES) expect(block).toContain(path);
    expect(block).toContain(`- "${BINDING}" (turn 1)`);
    await ok(["conversation", "compact", "--reset"]);

    provider.enqueue(textReply("The parts were tidied."));
    await ok(["conversation", "compact", "-k", "s:..-2"], anthropicEnv());
    // The model was told the block follows, and shown it.
    const system = JSON.stringify((provider.requests[0]!.body as { system: unknown }).system);
    expect(system).toContain(JSON.stringify(FACTS_NOTICE).slice(1, 40));
    expect(system).toContain(FILES[11]!);
    const stored = compactionsOf(home).at(-1)!;
    expect(stored.summary).toMatchObject({
      summary: "The parts were tidied.",
      recipe: "anthropic/claude-sonnet-4-6",
    });
    for (const path of FILES) expect(stored.summary!.facts).toContain(path);
    const view = (await ok(["conversation", "print", "--compacted", "--style", "full"])).stdout;
    expect(view).toContain("The parts were tidied.\n\n[Facts of these turns, from their raw events]\n");
    for (const path of FILES) expect(view).toContain(path);
  });

  it("puts the binding sentences of turn 1 in the request body after -k s:..-2", async () => {
    home = await homeWithSample();
    const sentences = extractRangeFacts(groupTurns(loadSample().events).slice(0, 1)).bindingSentences;
    expect(sentences.length).toBeGreaterThan(0);
    await ok(["conversation", "compact", "-k", "s:..-2"]);
    const body = (await ok(["--format", "anthropic", "conversation", "print"])).stdout;
    for (const { text } of sentences)
      expect(body).toContain(JSON.stringify(text.replace(/\s+/g, " ")).slice(1, -1));
    // The dry run counts it; stats says what it costs.
    const stats = JSON.parse((await ok(["--format", "json", "conversation", "stats"])).stdout);
    expect(stats.kept.facts_blocks).toBe(1);
    expect(stats.kept.facts_tokens).toBeGreaterThan(10);
  });
});

describe("pins", () => {
  /** The sample's first tool result of turn 2 (cycle 1): a file of 1.9k characters. */
  function pinnedResult() {
    const turn = groupTurns(loadSample().events)[1]!;
    const results = turn.events.filter((event) => event.type === "tool_call_response");
    return results[0]!;
  }

  it("keep a tool result whole through r+t:-5calls and after a summary, marked, and a reset brings back the view before", async () => {
    home = await homeWithSample();
    const result = pinnedResult();
    const print = async () => (await ok(["conversation", "print", "--compacted", "--style", "full"])).stdout;
    await ok(["conversation", "compact", "-k", "r+t:-5calls"]);
    const before = await print();
    expect(before).not.toContain(result.content.trim());
    const kept = await ok(["conversation", "keep", "2.1", "--only", "results"]);
    expect(kept.stdout).toBe(
      "Kept turn 2, cycle 1 (tool results) verbatim (1 message): every compaction leaves them as they are.\n",
    );
    expect((await ok(["conversation", "keep", "2.1", "--only", "results"])).stdout).toBe(
      "Turn 2, cycle 1 (tool results) is already kept.\n",
    );
    const masked = await print();
    expect(masked).toContain("[tool result, pinned]");
    expect(masked).toContain(result.content.trim());
    // A summary over it: the result follows, verbatim, under its heading.
    await ok(["conversation", "compact", "-k", "s:..-2"]);
    const summarized = await print();
    expect(summarized).toContain("[Pinned messages, kept verbatim]\nturn 2, the result of ");
    expect(summarized).toContain(result.content.trim());
    const body = (await ok(["--format", "anthropic", "conversation", "print"])).stdout;
    expect(body).toContain(JSON.stringify(result.content.trim()).slice(1, -1));
    const shown = (await ok(["conversation", "show"])).stdout;
    expect(shown).toContain(
      "Kept verbatim (cxc conversation unkeep N|N.C [--only PART] to stop):\n  1. turn 2, cycle 1 (tool results) [user]",
    );
    // Unkeep: the view is what it would be without the pin.
    await ok(["conversation", "compact", "--reset"]);
    await ok(["conversation", "compact", "-k", "r+t:-5calls"]);
    expect((await ok(["conversation", "unkeep", "2.1"])).stdout).toBe(
      "Unkept turn 2, cycle 1 (tool results): compactions treat its messages as any others again.\n",
    );
    expect(await print()).toBe(before);
    const events = readEvents(home);
    expect(events.filter((event) => event.type === "pin")).toHaveLength(1);
    expect(events.filter((event) => event.type === "pin_reset")).toHaveLength(1);
  });

  it("make a rule that would only touch them nothing to compact", async () => {
    home = await homeWithSample();
    await ok(["conversation", "keep", "4", "--only", "results"]);
    const result = await ok(["conversation", "compact", "-k", "t=sres:4..4"]);
    expect(result.stdout).toBe("Nothing to compact.\n");
    expect(result.stderr).toBe(
      "cxc: The conversation has 20 turns, and what the rule would compact (turns 4..4) is pinned.\n",
    );
  });

  it("come from keep rules in configuration too, recorded with the compaction", async () => {
    home = await homeWithSample();
    const rule = ["-c", 'conversation.compaction.keep=[{"contains": ["dependencies"]}]'];
    await ok(["conversation", "compact", ...rule, "-k", "s:..-2"]);
    const compaction = compactionsOf(home).at(-1)!;
    const first = loadSample().events.find((event) => event.type === "chat_request")!;
    expect(compaction.pinned_events).toContain(first.id);
    const view = (await ok(["conversation", "print", "--compacted", "--style", "full"])).stdout;
    expect(view).toContain("[Pinned messages, kept verbatim]\nturn 1, the user:");
    expect((await ok(["conversation", "show"])).stdout).toMatch(/\[user, keeps \d+ messages? by rule\]/);
    const bad = await home.run([
      "conversation",
      "compact",
      "-c",
      'conversation.compaction.keep=[{"pattern": "("}]',
      "-k",
      "s:..-2",
    ]);
    expect(bad.exitCode).toBe(2);
    expect(errorLines(bad.stderr).error).toContain(
      "conversation.compaction.keep[0]: `pattern` is not a regular expression",
    );
  });

  it("unkeep retires the pin it names: a whole-turn pin and a --only results pin at turn 2 are told apart", async () => {
    home = await homeWithSample();
    await ok(["conversation", "keep", "2"]);
    await ok(["conversation", "keep", "2", "--only", "results"]);
    expect((await ok(["conversation", "show"])).stdout).toContain(
      "  1. turn 2 [user]\n  2. turn 2 (tool results) [user]",
    );
    const unkept = await ok(["conversation", "unkeep", "2"]);
    expect(unkept.stdout).toBe("Unkept turn 2: compactions treat its messages as any others again.\n");
    expect(unkept.stderr).toContain(
      "hint: turn 2 (tool results) is still kept (`cxc conversation unkeep 2 --only results`)",
    );
    expect((await ok(["conversation", "show"])).stdout).toContain("  1. turn 2 (tool results) [user]");
    const none = await home.run(["conversation", "unkeep", "2", "--only", "user"]);
    expect(none.exitCode).toBe(1);
    expect(errorLines(none.stderr).error).toBe(
      "turn 2 (user messages) is not kept (1 pin: turn 2 (tool results))",
    );
    expect((await ok(["conversation", "unkeep", "2", "--only", "results"])).stdout).toBe(
      "Unkept turn 2 (tool results): compactions treat its messages as any others again.\n",
    );
  });

  it("refuse bad positions with one line and change nothing", async () => {
    home = await homeWithSample();
    const log = logBytes(home);
    const cases: [string[], number, string][] = [
      [
        ["conversation", "keep", "x"],
        2,
        "invalid position `x`: expected N (a turn) or N.C (cycle C of turn N)",
      ],
      [["conversation", "keep", "0"], 2, "turn numbers are 1-based; `0` is not a valid turn"],
      [["conversation", "keep", "99"], 2, "turn 99 out of range (conversation has 20 turns)"],
      [["conversation", "keep", "4.99"], 2, "turn 4 has"],
      [
        ["conversation", "keep", SAMPLE_ID, "4", "5"],
        2,
        "too many arguments: keep takes [ID] and one position",
      ],
      [["conversation", "unkeep", "4"], 1, "turn 4 is not kept: the conversation has no pins"],
    ];
    for (const [args, code, message] of cases) {
      const result = await home.run(args);
      expect(result.exitCode, args.join(" ")).toBe(code);
      expect(errorLines(result.stderr).error, args.join(" ")).toContain(message);
      expect(result.stdout).toBe("");
    }
    const only = await home.run(["conversation", "keep", "4", "--only", "tools"]);
    expect(only.exitCode).toBe(2);
    expect(logBytes(home)).toBe(log);
    // The id may come first.
    expect((await ok(["conversation", "keep", SAMPLE_ID.slice(0, 8), "2"])).stdout).toContain(
      "Kept turn 2 verbatim",
    );
  });
});
