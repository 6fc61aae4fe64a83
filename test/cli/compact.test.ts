/**
 * `cxc conversation compact` end to end on the bundled sample (20 turns): the default rule, the
 * ad-hoc `-r/-t/-s` rule with the offline digest, `-k` specs, range flags and their precedence,
 * `--note`, `--dry-run`, the timeline text and the JSON document.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { TempHome } from "../helpers/cli.js";
import { compactionsOf, homeWithSample, logBytes, SAMPLE_ID } from "./compact-helpers.js";

let home: TempHome;
afterEach(() => home?.cleanup());

describe("cxc conversation compact", () => {
  it("applies the built-in default rule and prints jp's timeline", async () => {
    home = await homeWithSample();
    const result = await home.run(["conversation", "compact", "--note", "the tool output is noise now"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      "Kept turn 1.\nCompacted turns 2..19 (18 total, reasoning + tools).\nKept turn 20.\n",
    );
    const [compaction, ...rest] = compactionsOf(home);
    expect(rest).toEqual([]);
    expect(compaction).toMatchObject({
      from_turn: 1,
      to_turn: 18,
      reasoning: "strip",
      tool_calls: { policy: "strip", request: true, response: true },
      source: "user",
      note: "the tool output is noise now",
    });
    expect(compaction?.summary).toBeUndefined();
  });

  it("summarizes with builtin/digest when no model is configured, and says so", async () => {
    home = await homeWithSample();
    const result = await home.run(["conversation", "compact", "-s", "--turn", "3..6"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      "No summary model is configured (summary.model.id, assistant.model.id or -m); summarizing with builtin/digest",
    );
    expect(result.stdout).toMatch(
      /^Kept turns 1\.\.2\.\nCompacted turns 3\.\.6 \(4 total, summary: .*-summary-turns-3-6-[0-9a-f]{8}\.md\)\.\nKept turns 7\.\.20\.\n/,
    );
    expect(result.stdout).toContain("The summary of turns 3..6 (builtin/digest)");
    const [compaction] = compactionsOf(home);
    expect(compaction).toMatchObject({ from_turn: 2, to_turn: 5, source: "user" });
    expect(compaction?.summary).toMatchObject({ source: "derived", recipe: "builtin/digest" });
    expect(compaction?.summary?.summary).toContain("## Digest of turns 3..6 (builtin/digest)");
    // The copy is in the user's private scratch directory (docs/compaction.md).
    const copy = result.stdout.match(/summary: (\S+\.md)\)/)?.[1];
    expect(
      copy?.startsWith(join(home.env.HOME!, ".cache", "cxc", "scratch", `${SAMPLE_ID}-summary-turns-3-6-`)),
    ).toBe(true);
    expect(existsSync(copy!)).toBe(true);
    expect(readFileSync(copy!, "utf8").trimEnd()).toBe(compaction?.summary?.summary.trimEnd());
  });

  it("lists what the summary lost in --format json", async () => {
    home = await homeWithSample();
    const result = await home.run([
      "--format",
      "json",
      "conversation",
      "compact",
      "-m",
      "builtin/digest",
      "-k",
      "s:5..8",
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).not.toContain("No summary model is configured");
    const document = JSON.parse(result.stdout);
    expect(document).toMatchObject({ id: SAMPLE_ID, dry_run: false, compacted: true, turn_count: 20 });
    const [entry] = document.compactions;
    expect(entry).toMatchObject({ from_turn: 5, to_turn: 8, total: 4, source: "user" });
    expect(entry.summary.recipe).toBe("builtin/digest");
    const lost = entry.summary.lost;
    expect(Object.keys(lost)).toEqual(["total", "checked", "items"]);
    expect(lost.total).toBe(lost.items.length);
    expect(lost.checked).toBeGreaterThanOrEqual(lost.total);
    for (const item of lost.items) {
      expect(Object.keys(item)).toEqual(["kind", "value", "reason", "score", "turns"]);
      expect(["path", "identifier", "number", "constraint"]).toContain(item.kind);
      for (const turn of item.turns) expect(turn >= 5 && turn <= 8).toBe(true);
    }
    const scores = lost.items.map((item: { score: number }) => item.score);
    expect(scores).toEqual([...scores].sort((left, right) => right - left));
    // The digest keeps every path and user request by construction; identifiers in prose are what it drops.
    const kinds = new Set(lost.items.map((item: { kind: string }) => item.kind));
    expect(kinds.has("path") || kinds.has("constraint")).toBe(false);
    expect(kinds.has("identifier")).toBe(true);
    expect(document.timeline).toEqual([
      "Kept turns 1..4.",
      expect.stringMatching(/^Compacted turns 5\.\.8 \(4 total, summary: .*\)\.$/),
      "Kept turns 9..20.",
    ]);
  });

  it("builds the ad-hoc rule from -r and -t MODE", async () => {
    home = await homeWithSample();
    const strip = await home.run(["conversation", "compact", "-r", "-t", "sreq", "--last", "5"]);
    expect(strip.exitCode, strip.stderr).toBe(0);
    expect(strip.stdout).toContain("Compacted turns 16..20 (5 total, reasoning + tool requests).");
    const omit = await home.run(["conversation", "compact", "--tools=o", "--turn", "2"]);
    expect(omit.stdout).toContain("Compacted turns 2..2 (1 total, tools omitted).");
    expect(omit.stdout).toContain("Compacted turns 16..20 (5 total, already compacted).");
    expect(compactionsOf(home).map((compaction) => compaction.tool_calls)).toEqual([
      { policy: "strip", request: true, response: false },
      { policy: "omit" },
    ]);
  });

  it("runs -k specs in order, replacing the configured rules unless a bare -k asks for them", async () => {
    home = await homeWithSample();
    const specs = await home.run(["conversation", "compact", "-k", "r:..-3", "-k", "t=sres:5..6"]);
    expect(specs.exitCode, specs.stderr).toBe(0);
    expect(
      compactionsOf(home).map((c) => [c.from_turn, c.to_turn, c.reasoning, c.tool_calls?.policy]),
    ).toEqual([
      [0, 16, "strip", undefined],
      [4, 5, undefined, "strip"],
    ]);
    const both = await home.run(["conversation", "compact", "-k", "-k", "r:2..3"]);
    expect(both.exitCode, both.stderr).toBe(0);
    const added = compactionsOf(home).slice(2);
    expect(added.map((c) => [c.from_turn, c.to_turn, c.tool_calls?.policy ?? null])).toEqual([
      [1, 18, "strip"],
      [1, 2, null],
    ]);
  });

  it("reads rules from conversation.compaction.rules", async () => {
    home = await homeWithSample();
    const rules = JSON.stringify([{ keep_first: 2, keep_last: "-4", tool_calls: "omit" }]);
    const result = await home.run([
      "-c",
      `conversation.compaction.rules=${rules}`,
      "conversation",
      "compact",
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain("Compacted turns 3..16 (14 total, tools omitted).");
  });

  it("composes --keep-first with --first and --keep-last with --last (jp §5.5)", async () => {
    home = await homeWithSample();
    const first = await home.run(["conversation", "compact", "-r", "--keep-first", "1", "--first", "16"]);
    expect(first.stdout).toContain("Compacted turns 2..16 (15 total, reasoning).");
    const last = await home.run(["conversation", "compact", "-r", "--keep-last", "2", "--last", "16"]);
    expect(last.stdout).toContain("Compacted turns 5..18 (14 total, reasoning).");
    // After the last compaction (turn 18) up to the rule's own keep_last of 1.
    const from = await home.run(["conversation", "compact", "-r", "--from", "last-compaction"]);
    expect(from.stdout).toContain("Compacted turns 19..19 (1 total, reasoning).");
    const to = await home.run(["conversation", "compact", "-t", "--from", "-3", "--to", "-2"]);
    expect(to.stdout).toContain("Compacted turns 18..19 (2 total, tools).");
  });

  it("warns of a rule that saves under 1% of its turns' tokens, in the dry run and the run", async () => {
    home = await homeWithSample();
    const twice = ["conversation", "compact", "-k", "t:2..3", "-k", "t:2..3"];
    const warning =
      "cxc: warning: rule 2 (tools) saves under 1% of the tokens of turns 2..3: there is little of that kind to remove there";
    const dry = await home.run([...twice, "--dry-run"]);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stderr).toContain(warning);
    expect(dry.stderr).not.toContain("rule 1 ");
    const real = await home.run(twice);
    expect(real.exitCode, real.stderr).toBe(0);
    expect(real.stderr).toContain(warning);
    expect(compactionsOf(home)).toHaveLength(2);
    const once = await home.run(["conversation", "compact", "--reset"]);
    expect(once.exitCode).toBe(0);
    expect((await home.run(["conversation", "compact", "-k", "t:2..3", "--dry-run"])).stderr).not.toContain(
      "saves under 1%",
    );
  });

  it("previews with --dry-run: conditional verbs, tokens before and after, nothing written", async () => {
    home = await homeWithSample();
    await home.run(["conversation", "compact", "-r", "--turn", "2..3"]);
    const before = logBytes(home);
    const result = await home.run(["conversation", "compact", "--dry-run"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(logBytes(home)).toBe(before);
    const lines = result.stdout.split("\n");
    // One timeline in one tense: the compaction in force over 2..3 is inside the new one.
    expect(lines.slice(0, 3)).toEqual([
      "Would have kept turn 1.",
      "Would have compacted turns 2..19 (18 total, reasoning + tools, over 1 compaction in force).",
      "Would have kept turn 20.",
    ]);
    expect(result.stdout).toMatch(
      /turns 2\.\.19 \(18 total, reasoning \+ tools\): \d+(\.\d)?k → \d+(\.\d)?k tokens/,
    );
    const json = await home.run(["--format", "json", "conversation", "compact", "--dry-run", "-k", "s:..-2"]);
    const document = JSON.parse(json.stdout);
    expect(document.dry_run).toBe(true);
    const [entry] = document.compactions;
    expect(entry.tokens.before).toBeGreaterThan(entry.tokens.after);
    expect(document.tokens.before).toBeGreaterThan(document.tokens.after);
    expect(logBytes(home)).toBe(before);
  });

  it("says Nothing to compact. for an empty selection and a conversation without turns", async () => {
    home = await homeWithSample();
    const before = logBytes(home);
    // jp's words on stdout; the reason on stderr: what the rule keeps, how many turns there are.
    for (const [args, reason] of [
      [["--first", "0"], "The conversation has 20 turns, and the rule selects no turn."],
      [["--last", "0"], "The conversation has 20 turns, and the rule selects no turn."],
      [
        ["--keep-first", "25"],
        "The conversation has 20 turns, and the rule keeps the first 25 turns and the last turn.",
      ],
      [
        ["--dry-run", "--keep-last", "19"],
        "The conversation has 20 turns, and the rule keeps the first turn and the last 19 turns.",
      ],
    ] as const) {
      const result = await home.run(["conversation", "compact", "-r", ...args]);
      expect(result.exitCode, `${args}: ${result.stderr}`).toBe(0);
      expect(result.stdout).toBe("Nothing to compact.\n");
      expect(result.stderr).toBe(`cxc: ${reason}\n`);
    }
    expect(logBytes(home)).toBe(before);
    const json = JSON.parse(
      (await home.run(["--format", "json", "conversation", "compact", "-k", "s:..-20"])).stdout,
    );
    expect(json).toMatchObject({
      compacted: false,
      message: "Nothing to compact.",
      reason: "the conversation has 20 turns, and the rule keeps the last 20 turns",
    });
    const created = await home.run(["conversation", "new", "--title", "empty"]);
    expect(created.exitCode, created.stderr).toBe(0);
    const empty = await home.run(["conversation", "compact"]);
    expect(empty.exitCode, empty.stderr).toBe(0);
    expect(empty.stdout).toBe("Nothing to compact.\n");
    expect(empty.stderr).toBe("cxc: The conversation has no turns.\n");
  });

  it("says what the default rule keeps when it finds nothing to compact", async () => {
    home = await homeWithSample();
    const result = await home.run(["conversation", "compact", "--from", "20"]);
    expect(result.stdout).toBe("Nothing to compact.\n");
    expect(result.stderr).toBe(
      "cxc: The conversation has 20 turns, and the default rule keeps everything before turn 20 and the last turn.\n",
    );
  });
});
