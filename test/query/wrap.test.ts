/** Wrapping at words for the terminal (`print` at a terminal): src/cli/terminal/wrap.ts. */
import { describe, expect, it } from "vitest";
import { wrapAtWords } from "../../src/cli/terminal/wrap.js";

describe("wrapAtWords", () => {
  it("keeps lines that fit and breaks longer ones at their last space that fits", () => {
    expect(wrapAtWords("short line\nanother", 30)).toBe("short line\nanother");
    expect(wrapAtWords("the quick brown fox jumps over the lazy dog and runs", 20)).toBe(
      "the quick brown fox\njumps over the lazy\ndog and runs",
    );
  });

  it("indents continuation rows as the line is indented", () => {
    expect(wrapAtWords("  a quoted message that goes on past the edge", 20)).toBe(
      "  a quoted message\n  that goes on past\n  the edge",
    );
  });

  it("cuts only a word longer than a row, where the row ends", () => {
    expect(wrapAtWords(`see ${"x".repeat(30)} end`, 20)).toBe(
      `see\n${"x".repeat(20)}\n${"x".repeat(10)} end`,
    );
  });

  it("counts wide characters as two columns and colour sequences as none", () => {
    expect(wrapAtWords("日本語 日本語 日本語 日本語", 20)).toBe("日本語 日本語 日本語\n日本語");
    expect(wrapAtWords("\u001b[1mbold words\u001b[22m and more words to wrap", 22)).toBe(
      "\u001b[1mbold words\u001b[22m and more\nwords to wrap",
    );
  });

  it("never cuts a word that fits a row", () => {
    const words = Array.from({ length: 200 }, (_, index) => `word${index}`);
    const rows = wrapAtWords(words.join(" "), 33).split("\n");
    expect(rows.every((row) => row.length <= 33)).toBe(true);
    expect(rows.join(" ").split(" ")).toEqual(words);
  });
});
