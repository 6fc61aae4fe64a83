/**
 * Unit tests for the shared rendering helpers behind the conversation commands: turn selectors,
 * relative times, tables and grep excerpts.
 */
import { describe, expect, it } from "vitest";
import { formatRelativeTime } from "../../src/core/present/relative-time.js";
import { renderTable, truncateText } from "../../src/cli/render/table.js";
import { buildRawTranscript, renderTranscriptText } from "../../src/cli/render/transcript.js";
import { parseTurnSelection, resolveTurnSelection } from "../../src/cli/render/turn-selection.js";
import { cutExcerpt, findMatches } from "../../src/cli/render/excerpt.js";
import { createEventBuilder } from "../helpers/builders.js";

/** A conversation of `count` turns. */
function turnsOf(count: number) {
  return createEventBuilder().turns(count);
}

describe("turn selection", () => {
  it.each([
    [{}, 5, { start: 0, end: 5 }],
    [{ first: "2" }, 5, { start: 0, end: 2 }],
    [{ first: "9" }, 5, { start: 0, end: 5 }],
    [{ last: "2" }, 5, { start: 3, end: 5 }],
    [{ last: "0" }, 5, { start: 0, end: 0 }],
    [{ turn: "3" }, 5, { start: 2, end: 3 }],
    [{ turn: "2..4" }, 5, { start: 1, end: 4 }],
    [{ turn: "..2" }, 5, { start: 0, end: 2 }],
    [{ turn: "4.." }, 5, { start: 3, end: 5 }],
    [{ turn: ".." }, 0, { start: 0, end: 0 }],
  ])("%j over %i turns resolves to %j", (options, turnCount, expected) => {
    expect(resolveTurnSelection(parseTurnSelection(options), turnsOf(turnCount))).toEqual(expected);
  });

  it("does not clamp --turn endpoints", () => {
    expect(() => resolveTurnSelection(parseTurnSelection({ turn: "1..6" }), turnsOf(5))).toThrow(
      "turn 6 out of range (conversation has 5 turns)",
    );
    expect(() => resolveTurnSelection(parseTurnSelection({ turn: "1" }), turnsOf(0))).toThrow(
      "turn 1 out of range (conversation has 0 turns)",
    );
  });
});

describe("transcript", () => {
  it("numbers turns from 1 and puts global entries in the turn they fell in", () => {
    const build = createEventBuilder();
    const events = [...build.turns(2), build.configDelta({ a: 1 })];
    const turns = buildRawTranscript(events, { start: 0, end: 2 });
    expect(turns.map((turn) => turn.turnNumbers)).toEqual([[1], [2]]);
    expect(renderTranscriptText(turns)).toContain('[assistant]\na:q1\n[config] {"a":1}\n');
  });
});

describe("small helpers", () => {
  const now = Date.parse("2026-03-01T12:00:00Z");
  it.each([
    ["2026-03-01T11:59:55Z", "just now"],
    ["2026-03-01T11:59:00Z", "1 minute ago"],
    ["2026-03-01T09:00:00Z", "3 hours ago"],
    ["2026-02-27T12:00:00Z", "2 days ago"],
    ["2025-03-01T12:00:00Z", "1 year ago"],
    ["2026-03-02T12:00:00Z", "in 1 day"],
    ["not a time", "not a time"],
  ])("%s is %s", (timestamp, expected) => {
    expect(formatRelativeTime(timestamp, now)).toBe(expected);
  });

  it("renders aligned tables and truncates", () => {
    expect(
      renderTable(
        [{ header: "ID" }, { header: "N", alignRight: true }, { header: "TITLE" }],
        [
          ["a", "1", "x"],
          ["bbb", "22", ""],
        ],
      ),
    ).toBe("ID    N  TITLE\na     1  x\nbbb  22");
    expect(truncateText("abcdef", 4)).toBe("abc…");
    expect(truncateText("abc", 4)).toBe("abc");
  });

  it("counts code points, not UTF-16 units, when padding and cutting", () => {
    // "🦀x" is 3 UTF-16 units but 2 code points; a lone surrogate counts as one.
    expect(
      renderTable(
        [{ header: "A" }, { header: "B" }],
        [
          ["🦀x", "1"],
          ["abc", "2"],
        ],
      ),
    ).toBe("A    B\n🦀x   1\nabc  2");
    expect(renderTable([{ header: "A" }, { header: "B" }], [["\ud800", "1"]])).toBe("A  B\n\ud800  1");
    expect(truncateText("🦀🦀🦀", 3)).toBe("🦀🦀🦀");
    expect(truncateText("🦀🦀🦀🦀", 3)).toBe("🦀🦀…");
  });

  it("finds literal matches per line and cuts excerpts", () => {
    expect(findMatches("one\nTwo two\nthree", "two", { ignoreCase: false })).toEqual([
      { line: 2, excerpt: "Two two" },
    ]);
    expect(findMatches("a.b a*b", "a*b", { ignoreCase: true })).toEqual([{ line: 1, excerpt: "a.b a*b" }]);
    expect(cutExcerpt("0123456789needle0123456789", 10, 6, 10)).toBe("…89needle01…");
  });
});
