/**
 * The compact tool's pure core (seed D69): argument validation, the keep_last clamp, planning
 * against a stream with deferred compactions, the recorded events, and the approval texts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type CompactToolPlan,
  type CompactToolRule,
  cutNote,
  describeRecordedCall,
  describeTokenChange,
  NOTE_MAX_LENGTH,
  parseCompactArguments,
  planCompactCall,
  renderApprovalPreview,
  renderDroppedContent,
} from "../../src/compaction/core/tool/compact-tool.js";
import { type ConversationEvent, parseEvent } from "../../src/core/conversation/events.js";
import { projectConversation } from "../../src/core/conversation/projection.js";
import { buildLlmRequest } from "../../src/core/conversation/request.js";
import { createEventBuilder } from "../helpers/builders.js";

const countCharacters = (text: string): number => text.length;

/**
 * Turn content a rule can save on: reasoning and a tool call with a long result (a rule that saves
 * about nothing is a tool error, see "refuses a rule that saves about nothing").
 */
const bulky = { reasoning: "r".repeat(120), tools: [{ name: "read_file", result: "o".repeat(200) }] };

function rulesOf(value: unknown): readonly CompactToolRule[] {
  const parsed = parseCompactArguments(value);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.rules;
}

function plan(events: readonly ConversationEvent[], rules: unknown[]): CompactToolPlan {
  let counter = 0;
  return planCompactCall(events, rulesOf({ rules }), {
    countTokens: countCharacters,
    newEventId: () => `planned-${++counter}`,
    now: "2026-02-01T00:00:00.000000000Z",
  });
}

function planned(result: CompactToolPlan): Extract<CompactToolPlan, { ok: true }> {
  if (!result.ok) throw new Error(`expected a plan, got: ${result.message}`);
  return result;
}

function failure(result: CompactToolPlan): string {
  if (result.ok) throw new Error("expected a tool error");
  return result.message;
}

describe("parseCompactArguments", () => {
  it("accepts every documented field", () => {
    const rules = rulesOf({
      rules: [
        { before_quote: "x", summary: "text", note: "why" },
        { keep_first: 2, keep_last: 4, reasoning: "strip", tool_calls: "strip-responses", note: "n" },
        { after_quote: "y", tool_calls: "omit", note: "n" },
      ],
    });
    expect(rules[0]).toMatchObject({ beforeQuote: "x", summary: "text", note: "why", keepLast: 1 });
    expect(rules[1]).toMatchObject({
      keepFirst: 2,
      keepLast: 4,
      reasoning: "strip",
      toolCalls: "strip-responses",
    });
    expect(rules[2]).toMatchObject({ afterQuote: "y", toolCalls: "omit" });
  });

  it("clamps keep_last to at least 1 and says so", () => {
    for (const keepLast of [0, -3]) {
      const [rule] = rulesOf({ rules: [{ keep_last: keepLast, reasoning: "strip", note: "n" }] });
      expect(rule).toMatchObject({ keepLast: 1, keepLastRaised: true });
    }
    const [unset] = rulesOf({ rules: [{ reasoning: "strip", note: "n" }] });
    expect(unset).toMatchObject({ keepLast: 1, keepLastRaised: false });
    const [kept] = rulesOf({ rules: [{ keep_last: 3, reasoning: "strip", note: "n" }] });
    expect(kept).toMatchObject({ keepLast: 3, keepLastRaised: false });
  });

  it("cuts a long note at 200 characters instead of refusing it", () => {
    const [rule] = rulesOf({ rules: [{ reasoning: "strip", note: "word ".repeat(100) }] });
    expect(rule!.note.length).toBeLessThanOrEqual(NOTE_MAX_LENGTH);
    expect(rule!.note.endsWith("…")).toBe(true);
    expect(rule!.noteCut).toBe(true);
    expect(cutNote("short note")).toBe("short note");
    // A surrogate pair is never split.
    const emoji = cutNote(`${"a".repeat(198)}😀😀`);
    expect(emoji).toBe(`${"a".repeat(198)}…`);
  });

  it("treats null as an absent optional field (strict-mode providers send it)", () => {
    const [rule] = rulesOf({
      rules: [
        {
          keep_first: null,
          keep_last: null,
          before_quote: null,
          reasoning: "strip",
          summary: null,
          note: "n",
        },
      ],
    });
    expect(rule).toMatchObject({ keepLast: 1, reasoning: "strip" });
    expect(rule!.summary).toBeUndefined();
  });

  it.each([
    [{}, "rules: "],
    [{ rules: [] }, "rules: "],
    [{ rules: [{ reasoning: "strip" }] }, "rules[0].note"],
    [{ rules: [{ reasoning: "strip", note: "n", keep_lats: 2 }] }, "keep_lats"],
    [{ rules: [{ tool_calls: "drop", note: "n" }] }, "rules[0].tool_calls"],
    [{ rules: [{ keep_first: -1, reasoning: "strip", note: "n" }] }, "rules[0].keep_first"],
    [{ rules: [{ keep_first: 1.5, reasoning: "strip", note: "n" }] }, "rules[0].keep_first"],
    [{ rules: [{ summary: { text: "x" }, note: "n" }] }, "rules[0].summary"],
    [{ rules: [{ note: "n" }] }, "the rule does nothing"],
    [
      { rules: [{ keep_first: 1, after_quote: "x", reasoning: "strip", note: "n" }] },
      "either keep_first or after_quote",
    ],
    [
      { rules: [{ keep_last: 2, before_quote: "x", reasoning: "strip", note: "n" }] },
      "either keep_last or before_quote",
    ],
    [{ rules: [{ summary: "   ", note: "n" }] }, "summary is empty"],
    [{ rules: [{ reasoning: "strip", note: "  " }] }, "note is empty"],
    [{ rules: [{ reasoning: "strip", before_quote: " ", note: "n" }] }, "before_quote is empty"],
  ])("refuses %j with a message naming the problem", (value, expected) => {
    const parsed = parseCompactArguments(value);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.message).toContain("Invalid compact arguments");
      expect(parsed.message).toContain(expected);
    }
  });

  it("lists every problem at once", () => {
    const parsed = parseCompactArguments({ rules: [{ note: "n" }, { summary: "", note: "n" }] });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.message).toContain("rules[0]: the rule does nothing");
      expect(parsed.message).toContain("rules[1].summary is empty");
    }
  });
});

describe("planCompactCall ranges", () => {
  const build = createEventBuilder();
  // Six turns; the last (index 5) is the turn in progress.
  const events = [
    ...build.turn("set up the project", bulky),
    ...build.turn("fix the container width bug", bulky),
    ...build.turn("so the divider cursor works if I move to the divider", bulky),
    ...build.turn("choose the drag verb", bulky),
    ...build.turn("the current task: one-sided drag", bulky),
    ...build.turn("summarize everything except the current task", bulky),
  ];

  it("defaults to everything before the turn in progress", () => {
    const result = planned(plan(events, [{ summary: "all of it", note: "n" }]));
    expect(result.rules[0]).toMatchObject({ from: 0, to: 4 });
  });

  it("resolves keep_first and keep_last counts", () => {
    const result = planned(plan(events, [{ keep_first: 1, keep_last: 2, reasoning: "strip", note: "n" }]));
    expect(result.rules[0]).toMatchObject({ from: 1, to: 3 });
  });

  it("never compacts the turn in progress: keep_last 0 is raised to 1", () => {
    const result = planned(plan(events, [{ keep_last: 0, summary: "s", note: "n" }]));
    expect(result.rules[0]).toMatchObject({ from: 0, to: 4 });
  });

  it("resolves before_quote to the turn before the quoted one", () => {
    const result = planned(
      plan(events, [{ before_quote: "the current task: one-sided", summary: "s", note: "n" }]),
    );
    expect(result.rules[0]).toMatchObject({ from: 0, to: 3 });
  });

  it("resolves after_quote to the turn after the quoted one", () => {
    const result = planned(
      plan(events, [{ after_quote: "set up the project", reasoning: "strip", note: "n" }]),
    );
    expect(result.rules[0]).toMatchObject({ from: 1, to: 4 });
  });

  it("combines both quotes", () => {
    const result = planned(
      plan(events, [
        {
          after_quote: "fix the container",
          before_quote: "the current task: one",
          tool_calls: "strip",
          note: "n",
        },
      ]),
    );
    expect(result.rules[0]).toMatchObject({ from: 2, to: 3 });
  });

  it("returns anchor failures as tool errors naming the rule", () => {
    expect(failure(plan(events, [{ before_quote: "never said", summary: "s", note: "n" }]))).toMatch(
      /^rules\[0\]: before_quote "never said" was not found/,
    );
    expect(failure(plan(events, [{ after_quote: "the", summary: "s", note: "n" }]))).toMatch(
      /^rules\[0\]: after_quote "the" is ambiguous/,
    );
  });

  it("refuses a rule whose range is empty, explaining both ends", () => {
    const message = failure(
      plan(events, [
        {
          after_quote: "choose the drag verb",
          before_quote: "the current task: one",
          reasoning: "strip",
          note: "n",
        },
      ]),
    );
    expect(message).toContain("rules[0] selects no turns");
    expect(message).toContain("after_quote (found in turn 4)");
    expect(message).toContain("before_quote (found in turn 5)");
  });

  it("refuses when there is no turn before the one in progress", () => {
    const single = createEventBuilder().turn("only turn");
    expect(failure(plan(single, [{ summary: "s", note: "n" }]))).toContain("Nothing to compact");
  });
});

describe("planCompactCall events", () => {
  it("records supplied, assistant-authored, deferred compactions that leave this turn's view alone", () => {
    const build = createEventBuilder();
    const events = [...build.turns(4, bulky), ...build.turn("the current task")];
    const result = planned(
      plan(events, [
        { keep_last: 2, summary: "what happened", note: "recoverable from disk" },
        { keep_first: 3, reasoning: "strip", tool_calls: "strip-requests", note: "long thinking" },
      ]),
    );
    expect(result.activatesAtTurn).toBe(5);
    const [summary, mechanical] = result.rules.map((rule) => rule.compaction);
    expect(summary).toEqual({
      type: "compaction",
      id: "planned-1",
      ts: "2026-02-01T00:00:00.000000000Z",
      from_turn: 0,
      to_turn: 2,
      summary: {
        summary: "what happened",
        source: "supplied",
        author: "assistant",
        // The text stays as the assistant wrote it; the facts of the raw turns are stored beside it.
        facts: "[Facts of these turns, from their raw events]\nFiles read: read_file.txt",
      },
      source: "assistant",
      note: "recoverable from disk",
      deferred_until_turn: 5,
    });
    expect(mechanical).toMatchObject({
      from_turn: 3,
      to_turn: 3,
      reasoning: "strip",
      tool_calls: { policy: "strip", request: true, response: false },
      source: "assistant",
      deferred_until_turn: 5,
    });
    // The events are valid on disk.
    for (const event of [summary, mechanical])
      expect(parseEvent(JSON.parse(JSON.stringify(event))).ok).toBe(true);

    // Deferred activation: the rest of this turn sees the same prefix; the next turn sees the summary.
    const recorded = [...events, summary!, mechanical!];
    const request = (stream: ConversationEvent[]) => buildLlmRequest(projectConversation(stream).turns, {});
    expect(request(recorded)).toEqual(request([...events]));
    const next = [...recorded, ...build.turn("next message")];
    const nextView = projectConversation(next);
    expect(nextView.turns[0]!.origin).toEqual({ kind: "summary", from: 0, to: 2, compactionId: "planned-1" });
    expect(JSON.stringify(request(next))).toContain("what happened");
  });

  it("estimates tokens saved against the view with every recorded compaction active", () => {
    const build = createEventBuilder();
    const events = [...build.turns(3, { reasoning: "r".repeat(100) }), ...build.turn("now")];
    const result = planned(plan(events, [{ reasoning: "strip", note: "n" }]));
    expect(result.rules[0]!.tokensSaved).toBe(300);
  });

  it("refuses a rule that saves about nothing, so it is never put to the user for approval", () => {
    const build = createEventBuilder();
    const events = [...build.turns(3, { reasoning: "r".repeat(100) }), ...build.turn("now")];
    // A summary longer than what it replaces, and a strip with nothing to strip.
    const growing = failure(plan(events, [{ keep_first: 2, summary: "x".repeat(500), note: "n" }]));
    expect(growing).toMatch(
      /^rules\[0\] would save 0 of the \d+ tokens of turns 3\.\.3: the summary is about as long/,
    );
    expect(growing).toContain("Drop this rule");
    const nothing = failure(plan(events, [{ tool_calls: "strip", note: "n" }]));
    expect(nothing).toMatch(
      /^rules\[0\] would save 0 of the \d+ tokens of turns 1\.\.3: there is little or nothing/,
    );
    // One rule that saves nothing fails the call, even beside one that saves.
    const mixed = failure(
      plan(events, [
        { reasoning: "strip", note: "n" },
        { tool_calls: "omit", note: "n" },
      ]),
    );
    expect(mixed).toMatch(/^rules\[1\] would save 0/);
  });

  it("judges a mended summary against the turns, not against the short summary it replaces", () => {
    const build = createEventBuilder();
    const events = [...build.turns(3, { reasoning: "r".repeat(100) }), ...build.turn("now")];
    const thin = planned(plan(events, [{ before_quote: "now", summary: "done", note: "n" }]));
    const withThin = [...events, thin.rules[0]!.compaction];
    const mended = "Read and changed the log module; the user said never to touch main.";
    const result = planned(plan(withThin, [{ before_quote: "now", summary: mended, note: "n" }]));
    // Against the view it grows (the pending thin summary is shorter); against the turns it saves.
    expect(result.rules[0]!.tokensSaved).toBeLessThan(0);
    expect(result.rules[0]!.compaction).toMatchObject({ from_turn: 0, to_turn: 2 });
  });
});

describe("overlaps within a turn", () => {
  it("plans a second call against the first call's deferred compactions", () => {
    const build = createEventBuilder();
    const events: ConversationEvent[] = [...build.turns(6, bulky), ...build.turn("current")];
    const first = planned(
      plan(events, [{ keep_first: 0, keep_last: 3, summary: "turns 1 to 4", note: "n" }]),
    );
    events.push(...first.rules.map((rule) => rule.compaction));

    const overlapping = failure(plan(events, [{ keep_first: 2, summary: "turns 3 to 6", note: "n" }]));
    expect(overlapping).toContain(
      "rules[0]: summary of turns 3..6 partially overlaps the existing summary of turns 1..4",
    );
    expect(overlapping).toContain("(a compaction proposed earlier in this turn, not active yet)");

    // Covering the earlier summary entirely is allowed; the later summary wins in projection.
    const covering = planned(plan(events, [{ summary: "turns 1 to 6", note: "n" }]));
    expect(covering.rules[0]).toMatchObject({ from: 0, to: 5 });
    const next = [...events, covering.rules[0]!.compaction, ...build.turn("after")];
    expect(projectConversation(next).turns[0]!.origin).toMatchObject({ kind: "summary", from: 0, to: 5 });

    // Mechanical policies never conflict.
    expect(planned(plan(events, [{ keep_first: 2, reasoning: "strip", note: "n" }])).rules[0]).toMatchObject({
      from: 2,
      to: 5,
    });
  });

  it("plans each rule of one call against the ones before it", () => {
    const build = createEventBuilder();
    const events = [...build.turns(6, bulky), ...build.turn("current")];
    const message = failure(
      plan(events, [
        { keep_last: 4, summary: "first", note: "n" },
        { keep_first: 1, summary: "second", note: "n" },
      ]),
    );
    expect(message).toContain(
      "rules[1]: summary of turns 2..6 partially overlaps the existing summary of turns 1..3",
    );
    expect(message).toContain("(rules[0] of this call)");
  });

  it("refuses a summary that would split a summary already in force", () => {
    const build = createEventBuilder();
    const events = [
      ...build.turns(6),
      ...build.turn("current"),
      build.compaction({ from: 0, to: 3, summary: "old" }),
    ];
    const message = failure(plan(events, [{ keep_first: 2, summary: "new", note: "n" }]));
    expect(message).toContain("partially overlaps the existing summary of turns 1..4");
    expect(message).not.toContain("earlier in this turn");
  });
});

describe("rendering", () => {
  const build = createEventBuilder();
  const events = [
    ...build.turn("so the divider cursor works if I move to the divider from the left edge", {
      reasoning: "thinking about dividers",
      tools: [{ name: "read_file", result: "export const dividerWidth = 4;" }],
      answer: "That keeps the whole live thread verbatim: the one-sided-drag work stays.",
    }),
    ...build.turn("second question", { reasoning: "more thinking" }),
    ...build.turn("the current task"),
  ];
  const result = planned(
    plan(events, [
      { keep_last: 2, summary: "We fixed the divider cursor.", note: "Recoverable from files on disk." },
      { keep_first: 1, reasoning: "strip", note: "x".repeat(300) },
    ]),
  );

  it("shows the resolved plan, not JSON", () => {
    const text = renderApprovalPreview(result, ["/tmp/p/rule-1.md", undefined]);
    expect(text).toContain("compact — 2 rules proposed");
    expect(text).toContain("  1. turn 1 → the assistant's summary (5 words), ~");
    expect(text).toContain("tokens smaller");
    expect(text).toContain('from     "so the divider cursor works if I move to the divider from…"');
    expect(text).toContain('to       "…whole live thread verbatim: the one-sided-drag work stays."');
    expect(text).toContain("why      Recoverable from files on disk.");
    expect(text).toContain("preview  /tmp/p/rule-1.md");
    expect(text).toContain("  2. turn 2 → strip reasoning, ~13 tokens smaller");
    expect(text).toContain("note     note cut to 200 characters");
    expect(text).toContain("starts turn 4");
    expect(text).not.toContain("{");
  });

  it("writes everything a summary rule drops to the preview file", () => {
    const file = renderDroppedContent(result.rules[0]!, { ruleCount: 2 });
    expect(file).toContain("# compact: rule 1 of 2, turn 1");
    expect(file).toContain("## Replacement summary (5 words)\n\nWe fixed the divider cursor.");
    expect(file).toContain("### Turn 1");
    expect(file).toContain("**User**\n\nso the divider cursor works");
    expect(file).toContain("**Reasoning**\n\nthinking about dividers");
    expect(file).toContain("**Tool call `read_file`**");
    expect(file).toContain("export const dividerWidth = 4;");
    expect(file).toContain("That keeps the whole live thread verbatim");
    expect(file).not.toContain("second question");
  });

  it("says token or tokens, smaller or larger", () => {
    expect(describeTokenChange(1)).toBe("~1 token smaller");
    expect(describeTokenChange(11_234)).toBe("~11.2k tokens smaller");
    expect(describeTokenChange(-40)).toBe("~40 tokens larger");
  });

  it("lists only what a mechanical rule removes", () => {
    const file = renderDroppedContent(result.rules[1]!, { ruleCount: 2 });
    expect(file).toContain("**Reasoning**\n\nmore thinking");
    expect(file).not.toContain("**User**");
    expect(file).not.toContain("thinking about dividers");
  });

  it("fences tool output that itself contains fences", () => {
    const fenced = createEventBuilder();
    const stream = [
      ...fenced.turn("q", { tools: [{ name: "cat", result: "```js\ncode\n```" }] }),
      ...fenced.turn("now"),
    ];
    const file = renderDroppedContent(planned(plan(stream, [{ tool_calls: "omit", note: "n" }])).rules[0]!, {
      ruleCount: 1,
    });
    expect(file).toContain("````\n```js\ncode\n```\n````");
  });

  it("tells the model what was recorded and when it activates", () => {
    const text = describeRecordedCall(result);
    expect(text).toContain("Recorded 2 compactions");
    expect(text).toContain("starts turn 4");
    expect(text).toContain("1. turn 1: the assistant's summary (5 words)");
    expect(text).toContain("(note cut to 200 characters)");
  });
});

describe("invariants (property)", () => {
  it("never covers the turn in progress and never changes the view before the next turn", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 10 }),
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: -2, max: 12 }),
        fc.constantFrom("summary", "reasoning", "tools"),
        (turnCount, keepFirst, keepLast, policy) => {
          const build = createEventBuilder();
          const events = build.turns(turnCount, { reasoning: "thinking", tools: [{ name: "grep" }] });
          const rule = {
            keep_first: keepFirst,
            keep_last: keepLast,
            note: "n",
            ...(policy === "summary"
              ? { summary: "s" }
              : policy === "reasoning"
                ? { reasoning: "strip" }
                : { tool_calls: "omit" }),
          };
          const result = plan(events, [rule]);
          const expectedTo = turnCount - 1 - Math.max(1, keepLast);
          if (keepFirst > expectedTo) {
            expect(result.ok).toBe(false);
            return;
          }
          const [only] = planned(result).rules;
          expect(only).toMatchObject({ from: keepFirst, to: expectedTo });
          const recorded = [...events, only!.compaction];
          expect(projectConversation(recorded)).toEqual(projectConversation(events));
          // Once the next turn starts, the compaction is in effect (every turn has reasoning and tools).
          const nextTurn = build.turn("next");
          expect(projectConversation([...recorded, ...nextTurn])).not.toEqual(
            projectConversation([...events, ...nextTurn]),
          );
        },
      ),
      { numRuns: 150 },
    );
  });
});
