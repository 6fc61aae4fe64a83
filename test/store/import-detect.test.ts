/**
 * Format detection for `cxc conversation import` without `--from` (store/import.ts, in process).
 */
import { describe, expect, it } from "vitest";
import { detectFormat, parseJsonText } from "../../src/store/import.js";

describe("detectFormat", () => {
  it("recognises cxc documents, Anthropic and OpenAI shapes", () => {
    expect(detectFormat({ cxc: "conversation-export", version: 1 })).toBe("cxc");
    expect(detectFormat({ system: "s", messages: [{ role: "user", content: "hi" }] })).toBe("anthropic");
    expect(
      detectFormat([{ role: "assistant", content: [{ type: "tool_use", id: "t", name: "n", input: {} }] }]),
    ).toBe("anthropic");
    expect(detectFormat([{ role: "system", content: "s" }])).toBe("openai");
    expect(detectFormat({ messages: [{ role: "assistant", content: null, tool_calls: [] }] })).toBe("openai");
    expect(detectFormat([{ role: "user", content: "plain" }])).toBe("openai");
  });

  it("gives up on anything else", () => {
    expect(detectFormat({ hello: "world" })).toBeUndefined();
    expect(detectFormat([1, 2, 3])).toBeUndefined();
    expect(detectFormat("text")).toBeUndefined();
  });
});

describe("parseJsonText", () => {
  it("names the line and column of a syntax error", () => {
    expect(() => parseJsonText('{\n  "a": 1,\n  "b" 2\n}', "file.json")).toThrow(
      /^file\.json:3:7: not valid JSON \(expected ':' after a property name\)$/,
    );
    expect(() => parseJsonText("[1,\n2,", "cut.json")).toThrow(
      /^cut\.json:2:3: not valid JSON \(unexpected end\)$/,
    );
    expect(() => parseJsonText("[\n  1,\n  2,,\n]", "comma.json")).toThrow(
      /^comma\.json:3:5: not valid JSON \(unexpected character\)$/,
    );
    expect(parseJsonText('{"a": 1}', "ok.json")).toEqual({ a: 1 });
  });

  it("quotes nothing of the file, however it goes wrong", () => {
    const secret = "hello world, the-secret-token-1234 and the rest of someone's file";
    for (const text of [secret, `[${secret}]`, `{"a": "\u001b]0;${secret}`, `[1] ${secret}`]) {
      let message = "";
      try {
        parseJsonText(text, "f.json");
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/^f\.json:1:\d+: not valid JSON \([a-z ':,]+\)$/);
      expect(message).not.toContain("secret");
    }
  });

  it("refuses a value nested too deeply, without a stack overflow", () => {
    const deep = `${"[".repeat(20_000)}${"]".repeat(20_000)}`;
    expect(() => parseJsonText(deep, "deep.json")).toThrow(
      /^deep\.json: nested more than 256 levels deep, which no conversation needs$/,
    );
    expect(parseJsonText(`${"[".repeat(256)}${"]".repeat(256)}`, "ok.json")).toBeDefined();
  });
});
