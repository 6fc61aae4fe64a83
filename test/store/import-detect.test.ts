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
      /^file\.json:3:7: not valid JSON \(Unexpected number\)$/,
    );
    expect(() => parseJsonText("[1,\n2,", "cut.json")).toThrow(/^cut\.json:2:3: not valid JSON/);
    // V8 gives no position for an unexpected token; then no line is claimed.
    expect(() => parseJsonText("[\n  1,\n  2,,\n]", "comma.json")).toThrow(
      /^comma\.json: not valid JSON \(Unexpected token ','\)$/,
    );
    expect(parseJsonText('{"a": 1}', "ok.json")).toEqual({ a: 1 });
  });
});
