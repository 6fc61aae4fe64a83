/**
 * Quote anchors: resolution against the projected view (seed D69), mapping back to raw turns,
 * and the four outcomes with texts the model can act on.
 */
import { describe, expect, it } from "vitest";
import {
  type AnchorResolution,
  cutAroundMatch,
  excerptEnd,
  excerptStart,
  normalizeQuoteText,
  resolveAnchor,
} from "../../src/compaction/core/tool/anchors.js";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import { projectConversation } from "../../src/core/conversation/projection.js";
import { createEventBuilder } from "../helpers/builders.js";

function resolve(
  events: readonly ConversationEvent[],
  quote: string,
  inProgressTurn?: number,
): AnchorResolution {
  return resolveAnchor(projectConversation(events), quote, {
    field: "before_quote",
    ignoredToolNames: new Set(["compact"]),
    ...(inProgressTurn === undefined ? {} : { inProgressTurn }),
  });
}

function foundTurn(result: AnchorResolution): number {
  if (result.kind !== "found") throw new Error(`expected found, got ${JSON.stringify(result)}`);
  return result.turn;
}

describe("resolveAnchor on a plain conversation", () => {
  const build = createEventBuilder();
  const events = [
    ...build.turn("Please fix the container width bug"),
    ...build.turn("Now make the divider draggable", {
      answer: "Done: so the divider cursor works if I move to the divider from the left.",
    }),
    ...build.turn("Add tests", {
      tools: [{ name: "read_file", result: "const width = computeWidth(panel);" }],
    }),
    ...build.turn("What next?"),
  ];

  it("finds a quote from a user message, an assistant message and a tool result", () => {
    expect(foundTurn(resolve(events, "fix the container width"))).toBe(0);
    expect(foundTurn(resolve(events, "so the divider cursor works if I move to the divider"))).toBe(1);
    expect(foundTurn(resolve(events, "computeWidth(panel)"))).toBe(2);
  });

  it("ignores differences in whitespace and typographic quotes", () => {
    expect(foundTurn(resolve(events, "  so the divider\n   cursor works  "))).toBe(1);
    const curly = createEventBuilder();
    const stream = [...curly.turn("it’s the “drag” verb"), ...curly.turn("next")];
    expect(foundTurn(resolve(stream, `it's the "drag" verb`))).toBe(0);
  });

  it("gives an excerpt around the match", () => {
    const result = resolve(events, "cursor works");
    expect(result.kind).toBe("found");
    if (result.kind === "found") expect(result.excerpt).toContain("cursor works");
  });

  it("reports not found with advice, and a capitalization near miss", () => {
    const missing = resolve(events, "a sentence nobody wrote");
    expect(missing.kind).toBe("not-found");
    if (missing.kind === "not-found") {
      expect(missing.message).toContain('before_quote "a sentence nobody wrote" was not found');
      expect(missing.message).toContain("verbatim");
    }
    const nearMiss = resolve(events, "PLEASE FIX the container");
    expect(nearMiss.kind).toBe("not-found");
    if (nearMiss.kind === "not-found")
      expect(nearMiss.message).toContain("different capitalization in turn 1");
  });

  it("treats an empty or blank quote as not found", () => {
    expect(resolve(events, "   ").kind).toBe("not-found");
  });

  it("reports ambiguity with every candidate turn and an excerpt each", () => {
    const result = resolve(events, "the divider");
    expect(result.kind).toBe("found"); // both hits are in turn 2: one turn, not ambiguous
    const ambiguous = resolve(events, "a:");
    expect(ambiguous.kind).toBe("ambiguous");
    if (ambiguous.kind === "ambiguous") {
      expect(ambiguous.candidates.map((candidate) => candidate.origin)).toEqual([
        { kind: "kept", turn: 0 },
        { kind: "kept", turn: 2 },
        { kind: "kept", turn: 3 },
      ]);
      expect(ambiguous.message).toContain("appears in 3 turns");
      expect(ambiguous.message).toContain('- turn 1: "…');
      expect(ambiguous.message).toContain("- turn 4:");
      expect(ambiguous.message).toContain("more distinctive passage");
    }
  });

  it("lists at most eight candidates", () => {
    const many = createEventBuilder();
    const stream = many.turns(12);
    const result = resolve(stream, "a:q");
    expect(result.kind).toBe("ambiguous");
    if (result.kind === "ambiguous") {
      expect(result.candidates).toHaveLength(12);
      expect(result.message).toContain("- and 4 more");
    }
  });
});

describe("resolveAnchor on a projected view", () => {
  it("maps projected turns back to raw turns after a summary", () => {
    const build = createEventBuilder();
    const events = [
      ...build.turns(4),
      ...build.turn("the real question"),
      build.compaction({ from: 0, to: 3, summary: "we set things up and chose the drag verb" }),
    ];
    // Projected turn 1 is raw turn 4 (0-based) after a summary of raw 0..3.
    expect(foundTurn(resolve(events, "the real question"))).toBe(4);
  });

  it("refuses a quote inside a summary as already compacted, naming its turns", () => {
    const build = createEventBuilder();
    const events = [
      ...build.turns(4),
      ...build.turn("later"),
      build.compaction({ id: "c1", from: 1, to: 3, summary: "we chose the drag verb" }),
    ];
    const result = resolve(events, "chose the drag verb");
    expect(result).toMatchObject({ kind: "already-compacted", from: 1, to: 3, compactionId: "c1" });
    if (result.kind === "already-compacted") {
      expect(result.message).toContain("inside the summary of turns 2..4");
      expect(result.message).toContain("cannot be split");
    }
  });

  it("does not find text the projection removed (the raw events are not what the model saw)", () => {
    const build = createEventBuilder();
    const events = [
      ...build.turn("q0", {
        reasoning: "secret deliberation",
        tools: [{ name: "grep", result: "hit line" }],
      }),
      ...build.turn("q1"),
      build.compaction({ from: 0, to: 0, reasoning: true, tools: "strip" }),
    ];
    expect(resolve(events, "secret deliberation").kind).toBe("not-found");
    expect(resolve(events, "hit line").kind).toBe("not-found");
  });

  it("searches the view the model was shown: a deferred compaction is not in effect yet", () => {
    const build = createEventBuilder();
    const events = [
      ...build.turns(3),
      build.compaction({ from: 0, to: 1, summary: "summary text", deferredUntilTurn: 3 }),
    ];
    expect(foundTurn(resolve(events, "a:q1"))).toBe(1);
    expect(resolve(events, "summary text").kind).toBe("not-found");
  });

  it("names a summary candidate in an ambiguity", () => {
    const build = createEventBuilder();
    const events = [
      ...build.turns(3),
      ...build.turn("about the parser again"),
      build.compaction({ from: 0, to: 2, summary: "we discussed the parser" }),
    ];
    const result = resolve(events, "the parser");
    expect(result.kind).toBe("ambiguous");
    if (result.kind === "ambiguous") expect(result.message).toContain("- the summary of turns 1..3:");
  });
});

describe("text the anchor search leaves out", () => {
  it("ignores compact tool calls and their results", () => {
    const build = createEventBuilder();
    const events = [
      ...build.turn("unique phrase here"),
      ...build.turn("please compact", {
        tools: [
          {
            name: "compact",
            arguments: { rules: [{ before_quote: "unique phrase here", note: "n" }] },
            result: 'ambiguous: "unique phrase here"',
          },
        ],
      }),
    ];
    expect(foundTurn(resolve(events, "unique phrase here"))).toBe(0);
  });

  it("searches only the user's message in the turn in progress", () => {
    const build = createEventBuilder();
    const events = [
      ...build.turn("where we chose the drag verb"),
      ...build.turn("summarize everything except the current task", {
        answer: 'I will compact everything before "where we chose the drag verb".',
      }),
    ];
    expect(foundTurn(resolve(events, "where we chose the drag verb", 1))).toBe(0);
    expect(resolve(events, "where we chose the drag verb").kind).toBe("ambiguous");
    expect(foundTurn(resolve(events, "summarize everything except", 1))).toBe(1);
  });
});

describe("text helpers", () => {
  it("normalizes whitespace and quotes", () => {
    expect(normalizeQuoteText("  a\n\tb   ‘c’ “d”  ")).toBe(`a b 'c' "d"`);
  });

  it("cuts excerpts with ellipses only where text was cut", () => {
    expect(excerptStart("short", 10)).toBe("short");
    expect(excerptStart("one two three four", 7)).toBe("one two…");
    expect(excerptEnd("one two three four", 10)).toBe("…three four");
    const text = `${"x".repeat(50)}NEEDLE${"y".repeat(50)}`;
    const excerpt = cutAroundMatch(text, 50, 6);
    expect(excerpt.startsWith("…")).toBe(true);
    expect(excerpt.endsWith("…")).toBe(true);
    expect(excerpt).toContain("NEEDLE");
  });
});
