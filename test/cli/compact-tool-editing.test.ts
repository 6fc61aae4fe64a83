/**
 * `e` on the compact tool opens its rules as TOML: the summary reads as text, and whatever is
 * rendered parses back to the same arguments.
 */
import { describe, expect, it } from "vitest";
import { compactArgumentsEditing } from "../../src/tools/compact-editing.js";

const roundTrip = (value: Record<string, unknown>) => {
  const parsed = compactArgumentsEditing.parse(compactArgumentsEditing.render(value));
  expect(parsed.ok).toBe(true);
  return parsed.ok ? parsed.value : undefined;
};

describe("the compact tool's editing form", () => {
  it("shows a multi-line summary as lines of text, and reads it back unchanged", () => {
    const args = {
      rules: [
        {
          keep_first: 0,
          before_quote: 'What about "--until"?',
          summary: "We added --since.\nOpen: --until, and a `--timezone` flag.\n",
          note: "the parser work is done",
        },
      ],
    };
    const text = compactArgumentsEditing.render(args);
    expect(text).toContain("[[rules]]");
    expect(text).toContain("We added --since.\nOpen: --until, and a `--timezone` flag.\n");
    expect(text).not.toContain("\\n");
    expect(roundTrip(args)).toEqual(args);
  });

  it("falls back to an escaped string for text a literal string cannot hold", () => {
    const args = {
      rules: [
        { keep_last: 2, summary: "has '''triple quotes'''\nand lines", note: "n" },
        { keep_last: 1, summary: "a\u0007bell\nline", tool_calls: "omit", note: "m" },
      ],
    };
    expect(roundTrip(args)).toEqual(args);
  });

  it("says in its header what saving does and every field the tool takes", () => {
    const text = compactArgumentsEditing.render({ rules: [{ summary: "S", note: "n" }] });
    // Saving is not running: the plan is shown again and asked about; an empty file keeps it.
    expect(text).toContain("cxc shows the\n# plan again and asks before anything is recorded.");
    expect(text).toContain("Saving an empty file keeps the proposal.");
    expect(text).not.toContain("…");
    for (const field of [
      "keep_first",
      "keep_last",
      "after_quote",
      "before_quote",
      "reasoning",
      "summary",
      "note",
    ])
      expect(text).toMatch(new RegExp(`^#.*\\b${field}\\b`, "m"));
    expect(text).toContain('tool_calls = "strip" | "strip-requests" | "strip-responses" | "omit"');
  });

  it("names a TOML mistake in one line", () => {
    const parsed = compactArgumentsEditing.parse("[[rules]]\nsummary = '''unterminated");
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? "" : parsed.error).toMatch(/^not valid TOML: [^\n]+$/);
  });
});
