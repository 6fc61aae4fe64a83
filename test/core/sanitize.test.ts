/**
 * Terminal sanitizing (src/core/present/sanitize.ts) and the listing's title (src/cli/render): examples,
 * and properties checking that the fast paths for clean text change nothing.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { displayTitle } from "../../src/cli/render/conversation-summary.js";
import { sanitizeLine, sanitizeTerminalText, stringifyJson } from "../../src/core/present/sanitize.js";

/** The sanitizer without its fast path, as it was written first. */
function reference(text: string): string {
  return text
    .replace(/\r\n/g, "\n")
    .replace(
      /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[PX^_][^\u001b]*(?:\u001b\\)?|\u001b[@-Z\\-_]?|\u009b[0-?]*[ -/]*[@-~]|\u009d[^\u0007\u001b\u009c]*(?:\u0007|\u009c|\u001b\\)?|[\u0090\u0098\u009e\u009f][^\u001b\u009c]*(?:\u009c|\u001b\\)?/g,
      "",
    )
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, "");
}

/** Strings rich in what the sanitizer looks for. */
const terminalText = fc
  .array(
    fc.oneof(
      fc.string(),
      fc.constantFrom("\u001b[31m", "\u001b]0;title\u0007", "\u001bP1$r\u001b\\", "\r\n", "\r", "\t", "\n"),
      fc.constantFrom(
        "\u0000",
        "\u0007",
        "\u007f",
        "\u009b",
        "\u009b31m",
        "\u009d0;t\u009c",
        "\u202e",
        "\u2066",
        "\u00a0",
        "\u3000",
        "  ",
        " ",
        "é",
        "🦀",
      ),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(""));

describe("sanitizeTerminalText", () => {
  it("removes escape sequences and controls, keeps tabs and newlines", () => {
    expect(sanitizeTerminalText("a\u001b[31mred\u001b[0m b")).toBe("ared b");
    expect(sanitizeTerminalText("x\u001b]0;pwned\u0007y")).toBe("xy");
    expect(sanitizeTerminalText("line\r\nnext\rover")).toBe("line\nnextover");
    expect(sanitizeTerminalText("tab\tnew\nline \u009b2J")).toBe("tab\tnew\nline ");
    // An 8-bit CSI or OSC goes with its parameters: no `31m` left behind.
    expect(sanitizeTerminalText("rate limited \u009b31mnow\u009b0m")).toBe("rate limited now");
    expect(sanitizeTerminalText("a\u009d0;title\u009cb \u009d52;c;eA==\u0007c")).toBe("ab c");
    // Bidirectional overrides and isolates: the text shows in the order it reads.
    expect(sanitizeTerminalText("run \u202eexe.txt\u202c and \u2067x\u2069")).toBe("run exe.txt and x");
    expect(sanitizeTerminalText("plain text, ünïcode 🦀")).toBe("plain text, ünïcode 🦀");
  });

  it("equals the reference for any text", () => {
    fc.assert(fc.property(terminalText, (text) => sanitizeTerminalText(text) === reference(text)));
  });
});

describe("displayTitle", () => {
  it("collapses whitespace, trims, sanitizes, and names the untitled", () => {
    expect(displayTitle({ title: "  Fix\tthe \u001b[1mbuild\u001b[0m\n now " })).toBe("Fix the build now");
    expect(displayTitle({ title: "Plain title" })).toBe("Plain title");
    expect(displayTitle({ title: "" })).toBe("(untitled)");
    expect(displayTitle({})).toBe("(untitled)");
  });

  it("equals sanitizing, collapsing and trimming, for any title", () => {
    fc.assert(
      fc.property(terminalText, (title) => {
        const expected = title ? reference(title).replace(/\s+/g, " ").trim() : "(untitled)";
        return displayTitle({ title }) === expected;
      }),
    );
  });
});

describe("sanitizeLine", () => {
  it("makes an error message one clean line", () => {
    expect(sanitizeLine("401 nope \u001b]0;TITLE\u0007\n  next\r\n\u009b2J end ")).toBe("401 nope next end");
  });
});

describe("stringifyJson", () => {
  it("escapes DEL and C1 controls that JSON.stringify leaves raw, and parses back the same", () => {
    const value = { text: "a\u009b2J b\u009d0;x\u0007 c\u007f d\u0085 é\u00a0", lone: "\ud800" };
    const json = stringifyJson(value, 2);
    expect(json).not.toMatch(/[\u007f-\u009f]/);
    expect(json).toContain("a\\u009b2J b\\u009d0;x\\u0007 c\\u007f d\\u0085 é\u00a0");
    expect(json).toContain('"\\ud800"');
    expect(JSON.parse(json)).toEqual(value);
  });

  it("is JSON.stringify for every value, once parsed", () => {
    fc.assert(
      fc.property(fc.jsonValue(), terminalText, (value, text) => {
        const document = { value, text };
        expect(JSON.parse(stringifyJson(document))).toEqual(JSON.parse(JSON.stringify(document)));
        expect(stringifyJson(document)).not.toMatch(/[\u007f-\u009f]/);
      }),
    );
  });
});
